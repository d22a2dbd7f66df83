// TRA (tunable-radix all-to-all, Fan et al. Sec. III) through the generic
// checker: the paper's worked examples (Figs. 1-3, derived by hand from the
// printed rules, see tra.hpp), every property for every (P, r) with
// 2 <= P <= 40, per-round and per-rank volume against Propositions 1-4, the
// headline numbers of Sec. III-B at P = 16384, the threaded executor, and
// mutations that a property must catch.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/support/schedule_lookup.hpp"
#include "properties/instance_checker.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/translation_equivariant.hpp"
#include "tests/support/alltoall.hpp"
#include "tests/support/mutations.hpp"

namespace collcheck {
namespace {

using mutation::describe;
using mutation::violated;
using test::blk;
using test::blocks;

const VariantInfo& variant(const std::string& name) { return test::registered_variant("tra", name); }

InstanceParams params(uint64_t p, uint32_t r) {
  InstanceParams ip;
  ip.p = p;
  ip.radix = r;
  return ip;
}

InstanceCheck check(const Schedule& s, const Claim* c, Exactness e = Exactness::exact) {
  CheckOptions o;
  o.exactness = e;
  return check_schedule(s, c, {}, o);
}

RankStep step_of(const Schedule& s, Rank r, int step) {
  RankStep rs;
  s.rank_step(r, step, rs);
  return rs;
}

// ---- the paper's examples -----------------------------------------------------------

// Fig. 2 (P = 9, r = 3): w = 2, four rounds; rank 0 sends to 1, 2, 3, 6.
// Positions with digit x equal to z, and which block each holds (tra.hpp,
// Derivation): round (0,1) positions 1, 4, 7 hold rank 0's own blocks for
// 1, 4, 7; round (1,1) positions 3, 4, 5 hold (0,3), and (8,3), (7,3) that
// arrived in rounds (0,1), (0,2) (positions 4 and 5 have digit 0 = 1, 2).
TEST(Tra, PaperFig2RankZero) {
  const uint64_t P = 9;
  Tra t(P, 3);
  ASSERT_EQ(t.w(), 2);
  ASSERT_EQ(t.num_steps(), 4);
  ASSERT_EQ(t.num_blocks(), 81u);
  const std::vector<Rank> to = {1, 2, 3, 6}, from = {8, 7, 6, 3};
  const std::vector<BlockSet> sent = {
      blocks(P, {{0, 1}, {0, 4}, {0, 7}}),
      blocks(P, {{0, 2}, {0, 5}, {0, 8}}),
      blocks(P, {{0, 3}, {8, 3}, {7, 3}}),
      blocks(P, {{0, 6}, {8, 6}, {7, 6}}),
  };
  // What rank 0 receives: the sender q's positions, held blocks (q - (i mod 3^x), 0).
  const std::vector<BlockSet> got = {
      blocks(P, {{8, 0}, {8, 3}, {8, 6}}),  // from 8, positions 1, 4, 7: (8, 8+i)
      blocks(P, {{7, 0}, {7, 3}, {7, 6}}),  // from 7, positions 2, 5, 8
      blocks(P, {{6, 0}, {5, 0}, {4, 0}}),  // from 6, positions 3, 4, 5: srcs 6, 5, 4
      blocks(P, {{3, 0}, {2, 0}, {1, 0}}),  // from 3, positions 6, 7, 8: srcs 3, 2, 1
  };
  const int xs[] = {0, 0, 1, 1}, zs[] = {1, 2, 1, 2};
  for (int s = 0; s < 4; ++s) {
    SCOPED_TRACE("step " + std::to_string(s));
    EXPECT_EQ(t.round(s).x, xs[s]);
    EXPECT_EQ(t.round(s).z, static_cast<uint64_t>(zs[s]));
    RankStep rs = step_of(t, 0, s);
    ASSERT_EQ(rs.sends.size(), 1u);
    ASSERT_EQ(rs.recvs.size(), 1u);
    EXPECT_EQ(rs.sends[0].peer, to[s]);
    EXPECT_EQ(t.send_peer(0, s), to[s]);
    EXPECT_EQ(rs.sends[0].blocks, sent[s]) << rs.sends[0].blocks.to_string();
    EXPECT_EQ(rs.sends[0].combine, Combine::copy);
    EXPECT_EQ(rs.recvs[0].peer, from[s]);
    EXPECT_EQ(rs.recvs[0].blocks, got[s]) << rs.recvs[0].blocks.to_string();
    EXPECT_EQ(t.blocks_in_round(s), 3u);  // r^(w-1) per round (Proof 2)
  }
  // Prop. 1 and 2.
  EXPECT_EQ(tra::prop_rounds(9, 3), 4u);
  EXPECT_EQ(tra::prop_blocks(9, 3), 12u);
}

// Fig. 1 / Proof 1 (P = 8, r = 3): "P0 transmitting its 5th data-block to P5
// (5 is 12 with 3-base encoding) ... can be broken in two steps: P0
// transmitting to P2 ... and then P2 to P5"; four rounds in all.
TEST(Tra, PaperFig1BlockFiveTakesTwoHops) {
  Tra t(8, 3);
  ASSERT_EQ(t.num_steps(), 4);
  const Block b = blk(8, 0, 5);
  std::vector<std::pair<Rank, Rank>> hops;  // (from, to) of every transfer carrying b
  for (int s = 0; s < t.num_steps(); ++s)
    for (Rank r = 0; r < 8; ++r) {
      RankStep rs = step_of(t, r, s);
      for (const Transfer& tr : rs.sends)
        if (tr.blocks.contains(b)) hops.push_back({r, tr.peer});
    }
  EXPECT_EQ(hops, (std::vector<std::pair<Rank, Rank>>{{0, 2}, {2, 5}}));
  // Rounds (0,1) (0,2) (1,1) (1,2); digit 1 = 2 exists (indices 6, 7).
  EXPECT_EQ(t.round(3).x, 1);
  EXPECT_EQ(t.round(3).z, 2u);
}

// Fig. 3 (P = 11, r = 3): w = 3, rounds (0,1) (0,2) (1,1) (1,2) (2,1), round
// (2,2) is empty (2*9 >= 11). Proof 4: round (0,1) sends 4 blocks (3 full
// groups plus the last group's blue unit, "the last blue unit is sent"),
// (0,2) 3 ("4 groups, but 3 green units"), (2,1) 2 ("only 2 data-blocks").
TEST(Tra, PaperFig3NonPowerOfTheRadix) {
  const uint64_t P = 11;
  Tra t(P, 3);
  ASSERT_EQ(t.w(), 3);
  ASSERT_EQ(t.num_steps(), 5);
  const std::vector<Rank> to = {1, 2, 3, 6, 9};
  const std::vector<uint64_t> h = {4, 3, 3, 3, 2};
  // Positions {1,4,7,10}, {2,5,8}, {3,4,5}, {6,7,8}, {9,10}; before digit x a
  // position i holds the block from 0 - (i mod 3^x).
  const std::vector<BlockSet> sent = {
      blocks(P, {{0, 1}, {0, 4}, {0, 7}, {0, 10}}),
      blocks(P, {{0, 2}, {0, 5}, {0, 8}}),
      blocks(P, {{0, 3}, {10, 3}, {9, 3}}),
      blocks(P, {{0, 6}, {10, 6}, {9, 6}}),
      blocks(P, {{0, 9}, {10, 9}}),  // positions 9 (src 0) and 10 (src 0 - 10 mod 9 = -1)
  };
  for (int s = 0; s < 5; ++s) {
    SCOPED_TRACE("step " + std::to_string(s));
    RankStep rs = step_of(t, 0, s);
    ASSERT_EQ(rs.sends.size(), 1u);
    EXPECT_EQ(rs.sends[0].peer, to[s]);
    EXPECT_EQ(rs.sends[0].blocks, sent[s]) << rs.sends[0].blocks.to_string();
    EXPECT_EQ(t.blocks_in_round(s), h[s]);
  }
  EXPECT_EQ(t.round(4).x, 2);
  EXPECT_EQ(t.round(4).z, 1u);
  // Prop. 3: w(r-1) - floor((27 - 11)/9) = 6 - 1 = 5; Prop. 4: D = 15.
  EXPECT_EQ(tra::prop_rounds(P, 3), 5u);
  EXPECT_EQ(tra::prop_blocks(P, 3), 15u);
  EXPECT_EQ(tra::prop_names(P, 3), "Prop. 3/4");
}

// Sec. III-B: at P = 16,384 "K at r = sqrt(P) is 254", "D at r = sqrt(P) is
// 32,512", "D (= 114,688) at r = 2"; counted from the rounds (blocks_in_round,
// O(1) per round), not by simulating the flow.
TEST(Tra, HeadlineNumbersAtP16384) {
  const uint64_t P = 16384;
  Tra t(P, 128);
  ASSERT_EQ(t.num_steps(), 254);
  uint64_t d = 0;
  for (int s = 0; s < t.num_steps(); ++s) d += t.blocks_in_round(s);
  EXPECT_EQ(d, 32512u);
  // Every rank's real message has that size (a few ranks and rounds).
  for (Rank r : {0u, 1u, 127u, 12345u, 16383u})
    for (int s : {0, 1, 126, 127, 200, 253}) {
      RankStep rs = step_of(t, r, s);
      ASSERT_EQ(rs.sends.size(), 1u);
      EXPECT_EQ(rs.sends[0].blocks.size(), t.blocks_in_round(s)) << "rank " << r << " step " << s;
      EXPECT_EQ(rs.recvs[0].blocks.size(), t.blocks_in_round(s));
    }
  EXPECT_EQ(tra::count_rounds(P, 128), 254u);
  EXPECT_EQ(tra::count_blocks(P, 128), 32512u);
  EXPECT_EQ(tra::prop_rounds(P, 128), 254u);  // = 2 sqrt(P) - 2 (Sec. III-B)
  EXPECT_EQ(tra::prop_blocks(P, 128), 32512u);
  // r = 2 (Bruck): K = log2 P = 14, D = w 2^(w-1) = 114,688.
  EXPECT_EQ(tra::count_rounds(P, 2), 14u);
  EXPECT_EQ(tra::count_blocks(P, 2), 114688u);
  // r = P: the paper says K = 16,384; the schedule (and Prop. 1's w(r-1))
  // has P - 1 = 16,383 rounds of one block each.
  EXPECT_EQ(tra::count_rounds(P, P), 16383u);
  EXPECT_EQ(tra::count_blocks(P, P), 16383u);
  EXPECT_EQ(tra::prop_rounds(P, P), 16383u);
  Tra spread(P, P);
  EXPECT_EQ(spread.num_steps(), 16383);
}

// ---- every (P, r) ---------------------------------------------------------------------

TEST(Tra, EveryPropertyHoldsForEveryRadixUpToP40) {
  const VariantInfo& v = variant("tra");
  for (uint64_t P = 2; P <= 40; ++P)
    for (uint32_t r = 2; r <= P; ++r) {
      SCOPED_TRACE("P=" + std::to_string(P) + " r=" + std::to_string(r));
      const InstanceParams ip = params(P, r);
      ASSERT_FALSE(v.violates(ip).has_value());
      auto s = v.make(ip);
      const Claim c = v.claim(ip);
      InstanceCheck ic = check(*s, &c);
      ASSERT_EQ(ic.verdicts.size(), 6u);
      for (const auto& vd : ic.verdicts) ASSERT_EQ(vd.status, Status::holds) << describe(ic);
      EXPECT_GT(mutation::verdict(ic, prop::postcondition).checks, 0u);
    }
}

// K and D are the same for every rank; every round moves Prop. 4's h from
// every rank; the totals equal Propositions 1-4.
TEST(Tra, EveryRankSendsTheSameKAndD) {
  for (uint64_t P = 2; P <= 40; ++P)
    for (uint64_t r = 2; r <= P; ++r) {
      Tra t(P, r);
      SCOPED_TRACE("P=" + std::to_string(P) + " r=" + std::to_string(r));
      ASSERT_EQ(static_cast<uint64_t>(t.num_steps()), tra::prop_rounds(P, r));
      ASSERT_EQ(static_cast<uint64_t>(t.num_steps()), tra::count_rounds(P, r));
      uint64_t d = 0;
      for (int s = 0; s < t.num_steps(); ++s) {
        const tra::Round& rd = t.round(s);
        const uint64_t h = t.blocks_in_round(s);
        ASSERT_GT(h, 0u) << "empty round " << s;
        d += h;
        for (Rank k = 0; k < P; ++k) {
          RankStep rs = step_of(t, k, s);
          ASSERT_EQ(rs.sends.size(), 1u);
          ASSERT_EQ(rs.recvs.size(), 1u);
          ASSERT_EQ(rs.sends[0].blocks.size(), h) << "rank " << k << " step " << s;
          ASSERT_EQ(rs.recvs[0].blocks.size(), h);
          ASSERT_EQ(rs.sends[0].peer, (k + rd.z * rd.rx) % P);
        }
      }
      ASSERT_EQ(d, tra::prop_blocks(P, r));
      ASSERT_EQ(d, tra::count_blocks(P, r));
    }
}

// Prop. 4's h, round by round, against a brute-force count of the indices
// with digit x = z (P <= 100); Propositions 1-4 against the counted rounds
// and blocks for every (P, r) with P <= 512.
TEST(Tra, PropositionsMatchTheRounds) {
  for (uint64_t P = 2; P <= 100; ++P)
    for (uint64_t r = 2; r <= P; ++r)
      for (const tra::Round& rd : tra::rounds(P, r)) {
        uint64_t n = 0;
        for (uint64_t i = 0; i < P; ++i) n += (i / rd.rx) % r == rd.z;
        ASSERT_EQ(tra::blocks_with_digit(P, r, rd.rx, rd.z), n) << P << " " << r;
        ASSERT_GT(n, 0u);
      }
  for (uint64_t P = 2; P <= 512; ++P)
    for (uint64_t r = 2; r <= P; ++r) {
      ASSERT_EQ(tra::prop_blocks(P, r), tra::count_blocks(P, r)) << "P=" << P << " r=" << r;
      ASSERT_EQ(tra::prop_rounds(P, r), tra::count_rounds(P, r)) << "P=" << P << " r=" << r;
      ASSERT_EQ(tra::prop_rounds(P, r), tra::rounds(P, r).size()) << "P=" << P << " r=" << r;
    }
}

TEST(Tra, FingerprintModeHoldsAtLargerP) {
  for (auto [P, r] : std::vector<std::pair<uint64_t, uint64_t>>{{129, 12}, {200, 15}, {256, 16}, {255, 2}}) {
    Tra t(P, r);
    const Claim c = variant("tra").claim(params(P, static_cast<uint32_t>(r)));
    InstanceCheck ic = check(t, &c, Exactness::fingerprint);
    EXPECT_TRUE(violated(ic).empty()) << "P=" << P << " r=" << r << "\n" << describe(ic);
  }
}

TEST(Tra, OneProcessIsAnEmptySchedule) {
  Tra t(1, 2);
  EXPECT_EQ(t.num_steps(), 0);
  EXPECT_EQ(t.num_blocks(), 1u);
  for (const char* name : {"tra", "bruck", "spread-out"}) {
    const VariantInfo& v = variant(name);
    InstanceParams ip = params(1, 0);
    ASSERT_FALSE(v.violates(ip).has_value()) << name;
    auto s = v.make(ip);
    const Claim c = v.claim(ip);
    InstanceCheck ic = check(*s, &c);
    EXPECT_TRUE(violated(ic).empty()) << name << "\n" << describe(ic);
  }
}

// ---- real data -------------------------------------------------------------------------

TEST(Tra, ThreadedExecutorDeliversEveryBlock) {
  // Non-powers of the radix, radices near sqrt(P), r = 2 and r = P.
  const std::vector<std::pair<uint64_t, uint64_t>> cases = {
      {2, 2}, {3, 2}, {3, 3}, {5, 2}, {5, 3}, {7, 3}, {8, 3}, {9, 3}, {10, 4}, {11, 3},
      {12, 4}, {13, 4}, {16, 4}, {17, 5}, {20, 5}, {24, 24}, {31, 6}, {33, 2}};
  for (auto [P, r] : cases)
    for (bool in_place : {true, false}) {
      Tra t(P, r);
      runtime::ExecOptions o;
      o.in_place = in_place;
      o.seed = 11 + P;
      o.dtype = P % 2 ? runtime::DType::float64 : runtime::DType::int64;
      runtime::ExecResult res = runtime::execute_threads(t, o);
      EXPECT_EQ(res.verdict.status, Status::holds)
          << "P=" << P << " r=" << r << ": "
          << (res.verdict.counterexample ? res.verdict.counterexample->message : std::string());
      EXPECT_FALSE(res.deadlock);
      EXPECT_EQ(res.stats.steps, t.num_steps());
    }
}

// ---- mutations ----------------------------------------------------------------------------

TEST(Tra, DroppingATransferLosesBlocks) {
  Tra t(11, 3);
  MaterializedSchedule m = materialize(t);
  const int last = m.num_steps() - 1;
  Transfer dropped = mutation::drop_transfer(m, last, 0, t.send_peer(0, last));
  ASSERT_FALSE(dropped.blocks.empty());
  InstanceCheck ic = mutation::check(m, {});
  std::set<std::string> v = violated(ic);
  EXPECT_TRUE(v.count(prop::postcondition)) << describe(ic);
  EXPECT_FALSE(v.count(prop::matching));
}

TEST(Tra, MisroutingATransferIsCaught) {
  // Rank 0's first message goes to 2 instead of 1 (both ends listed).
  Tra t(9, 3);
  MaterializedSchedule m = materialize(t);
  mutation::redirect_transfer(m, 0, 0, 1, 2);
  InstanceCheck ic = mutation::check(m, {});
  EXPECT_TRUE(violated(ic).count(prop::postcondition)) << describe(ic);
}

TEST(Tra, SwappingOneBlockOfAMessageIsCaught) {
  // Rank 0 sends its own block for 2 where the rule says its block for 1: the
  // right source, the wrong destination. Rank 1 never gets (0, 1).
  const uint64_t P = 9;
  Tra t(P, 3);
  MaterializedSchedule m = materialize(t);
  mutation::swap_block(m, 0, 0, 1, blk(P, 0, 1), blk(P, 0, 2));
  InstanceCheck ic = mutation::check(m, {});
  EXPECT_TRUE(violated(ic).count(prop::postcondition)) << describe(ic);
  const auto& c = *mutation::verdict(ic, prop::postcondition).counterexample;
  EXPECT_EQ(c.rank, Rank{1});
}

TEST(Tra, ForwardingABlockTooEarlyIsCaught) {
  // Rank 1 forwards (0, 4) in round (0,1), the round in which it receives it
  // (it belongs to round (1,1) at rank 1): the sender does not hold it yet.
  const uint64_t P = 9;
  Tra t(P, 3);
  MaterializedSchedule m = materialize(t);
  mutation::add_block(m, 0, 1, 2, blk(P, 0, 4));
  InstanceCheck ic = mutation::check(m, {});
  EXPECT_TRUE(violated(ic).count(prop::causality)) << describe(ic);
}

// ---- registry ---------------------------------------------------------------------------

TEST(Tra, RegistryEntries) {
  const AlgorithmInfo* a = find_algorithm("tra");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->collective, Collective::alltoall);
  EXPECT_EQ(a->default_variant().name, "tra");
  const VariantInfo& v = variant("tra");
  EXPECT_TRUE(v.takes("radix"));
  EXPECT_FALSE(v.takes("ppn"));
  EXPECT_TRUE(variant("bruck").options.empty());
  EXPECT_TRUE(variant("spread-out").options.empty());
  for (const char* name : {"tra", "bruck", "spread-out"}) {
    EXPECT_EQ(variant(name).family_properties, (std::vector<std::string>{"alltoall-delivery", "tra-formulas"}));
    EXPECT_TRUE(variant(name).expected_to_hold);
  }
  // Default radix: ceil(sqrt P).
  for (auto [P, r] : std::vector<std::pair<uint64_t, uint64_t>>{{2, 2}, {3, 2}, {4, 2}, {5, 3}, {9, 3}, {10, 4},
                                                                 {16, 4}, {17, 5}, {2048, 46}, {16384, 128}}) {
    auto s = v.make(params(P, 0));
    EXPECT_EQ(dynamic_cast<const Tra&>(translation_direct(*s)).radix(), r) << P;
  }
  EXPECT_EQ(dynamic_cast<const Tra&>(translation_direct(*variant("bruck").make(params(37, 0)))).radix(), 2u);
  EXPECT_EQ(dynamic_cast<const Tra&>(translation_direct(*variant("spread-out").make(params(37, 0)))).radix(), 37u);
  // Claims: Prop. 1/2 at P = r^w, Prop. 3/4 otherwise; spread-out P-1 and P-1.
  Claim c = v.claim(params(16384, 128));
  EXPECT_EQ(c.steps, 254);
  EXPECT_EQ(c.volume_blocks, 32512u);
  EXPECT_NE(c.source.find("Prop. 1"), std::string::npos);
  c = v.claim(params(11, 3));
  EXPECT_EQ(c.steps, 5);
  EXPECT_EQ(c.volume_blocks, 15u);
  EXPECT_NE(c.source.find("Prop. 3"), std::string::npos);
  c = variant("spread-out").claim(params(12, 0));
  EXPECT_EQ(c.steps, 11);
  EXPECT_EQ(c.volume_blocks, 11u);
  c = variant("bruck").claim(params(12, 0));
  EXPECT_EQ(c.steps, 4);
  EXPECT_EQ(c.volume_blocks, 6u + 6u + 4u + 4u);  // digits 0..3 of 0..11 equal to 1
  // Restrictions.
  EXPECT_FALSE(v.violates(params(5, 5)).has_value());
  auto why = v.violates(params(5, 6));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("must be in 2..P = 5"), std::string::npos) << *why;
  EXPECT_TRUE(v.violates(params(1, 2)).has_value());
  EXPECT_TRUE(v.violates(params(tra::kMaxRanks + 1, 0)).has_value());
  EXPECT_FALSE(v.violates(params(70000, 0)).has_value());  // past 65535: 64-bit blocks
  EXPECT_THROW(Tra(5, 6), InputError);
  EXPECT_THROW(Tra(5, 1), InputError);
  EXPECT_THROW(Tra(0, 2), InputError);
  EXPECT_THROW(Tra(tra::kMaxRanks + 1, 2), InputError);  // P*P blocks past 2^63
  EXPECT_EQ(Tra(65536, 256).num_blocks(), uint64_t{1} << 32);  // 64-bit blocks: past the old 32-bit index
}

}  // namespace
}  // namespace collcheck
