// TRA2 (two-layer tunable-radix all-to-all, Fan et al. Sec. IV) through the
// generic checker: the paper's examples (Figs. 5-7, derived by hand), every
// property for every (P, Q, r1, r2) with P <= 36, K = K1 + K2 and D per rank,
// the two refuted readings (the printed rules, variant paper-literal; the
// printed K1/K2 formulas, variant paper-formulas) with their exact failure
// sets, the threaded executor and mutations.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "schedules/translation_equivariant.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "properties/instance_checker.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/tra/tra2.hpp"
#include "tests/support/alltoall.hpp"
#include "tests/support/mutations.hpp"

namespace collcheck {
namespace {

using mutation::describe;
using mutation::violated;
using test::blk;
using test::blocks;

const VariantInfo& variant(const std::string& name) { return test::registered_variant("tra2", name); }

InstanceParams params(uint64_t p, uint32_t q, uint32_t r1, uint32_t r2) {
  InstanceParams ip;
  ip.p = p;
  ip.ppn = q;
  ip.radix = r1;
  ip.radix2 = r2;
  return ip;
}

RankStep step_of(const Schedule& s, Rank r, int step) {
  RankStep rs;
  s.rank_step(r, step, rs);
  return rs;
}

InstanceCheck check(const Schedule& s, const Claim* c, Exactness e = Exactness::exact) {
  CheckOptions o;
  o.exactness = e;
  return check_schedule(s, c, {}, o);
}

// Every (P, Q, r1, r2) with P <= maxp: Q divides P, r1 in 2..Q (none if
// Q = 1), r2 in 2..N (none if N = 1). 0 stands for "no radix".
struct Inst {
  uint64_t p, q, r1, r2;
};
std::vector<Inst> all_instances(uint64_t maxp) {
  std::vector<Inst> out;
  for (uint64_t p = 1; p <= maxp; ++p)
    for (uint64_t q = 1; q <= p; ++q) {
      if (p % q) continue;
      const uint64_t n = p / q;
      for (uint64_t r1 = q >= 2 ? 2 : 0; r1 <= (q >= 2 ? q : 0); ++r1)
        for (uint64_t r2 = n >= 2 ? 2 : 0; r2 <= (n >= 2 ? n : 0); ++r2) out.push_back({p, q, r1, r2});
    }
  return out;
}
std::string name(const Inst& i) {
  return "P=" + std::to_string(i.p) + " Q=" + std::to_string(i.q) + " r1=" + std::to_string(i.r1) +
         " r2=" + std::to_string(i.r2);
}
InstanceParams params(const Inst& i) {
  return params(i.p, static_cast<uint32_t>(i.q), static_cast<uint32_t>(i.r1), static_cast<uint32_t>(i.r2));
}

// ---- the paper's examples -------------------------------------------------------------

// Figs. 5(b) and 6: P = 8, N = 2 nodes of Q = 4, r1 = r2 = 2. Two intra-node
// rounds, one inter-node round: "both of these patterns require log2 8 = 3
// rounds". Fig. 6: "P0 ... transmits all colored data-blocks all at once to P1
// in the first round" (positions j = 1, 3 of both groups, its own blocks for
// local indices 1 and 3); column P0 after round (2) reads 00 30 02 32 ...: it
// received P3's blocks for 0, 2 (and, in group 1, for 4, 6). Round (1,1):
// positions j = 2, 3: (0, 2) and (3, 2) (which arrived from P3), per group.
TEST(Tra2, PaperFig6IntraNodeRounds) {
  const uint64_t P = 8;
  Tra2 t(P, 4, 2, 2);
  ASSERT_EQ(t.k1(), 2);
  ASSERT_EQ(t.k2(), 1);
  ASSERT_EQ(t.num_steps(), 3);
  RankStep s0 = step_of(t, 0, 0);
  ASSERT_EQ(s0.sends.size(), 1u);
  EXPECT_EQ(s0.sends[0].peer, 1u);
  EXPECT_EQ(s0.sends[0].blocks, blocks(P, {{0, 1}, {0, 3}, {0, 5}, {0, 7}}));
  EXPECT_EQ(s0.recvs[0].peer, 3u);
  EXPECT_EQ(s0.recvs[0].blocks, blocks(P, {{3, 0}, {3, 2}, {3, 4}, {3, 6}}));
  RankStep s1 = step_of(t, 0, 1);
  EXPECT_EQ(s1.sends[0].peer, 2u);
  EXPECT_EQ(s1.sends[0].blocks, blocks(P, {{0, 2}, {3, 2}, {0, 6}, {3, 6}}));
  // Nothing crosses a node in the intra-node rounds.
  for (int s = 0; s < t.k1(); ++s)
    for (Rank r = 0; r < P; ++r) EXPECT_EQ(step_of(t, r, s).sends[0].peer / 4, r / 4);
}

// Fig. 5: "the P3 -> P4 inter-node data exchange in the first communication
// round of TRA gets translated to P3 -> P0 intra-node communication followed
// by P0 -> P4 inter-node communication in TRA2"; "TRA has 7 global inter-node
// data exchanges (black arrows) compared to TRA2's four" (messages leaving the
// first node), "the total number of data exchanges remains unchanged".
TEST(Tra2, PaperFig5BlockRouteAndInterNodeMessages) {
  const uint64_t P = 8;
  Tra2 t2(P, 4, 2, 2);
  Tra t1(P, 2);
  const Block b = blk(P, 3, 4);
  std::vector<std::pair<Rank, Rank>> hops;
  for (int s = 0; s < t2.num_steps(); ++s)
    for (Rank r = 0; r < P; ++r)
      for (const Transfer& tr : step_of(t2, r, s).sends)
        if (tr.blocks.contains(b)) hops.push_back({r, tr.peer});
  EXPECT_EQ(hops, (std::vector<std::pair<Rank, Rank>>{{3, 0}, {0, 4}}));
  EXPECT_EQ(step_of(t1, 3, 0).sends[0].peer, 4u);  // TRA: P3 -> P4 in round one
  auto leaving_node0 = [](const Schedule& s) {
    int n = 0;
    for (int st = 0; st < s.num_steps(); ++st)
      for (Rank r = 0; r < 4; ++r)
        for (const Transfer& tr : step_of(s, r, st).sends) n += tr.peer >= 4;
    return n;
  };
  EXPECT_EQ(leaving_node0(t1), 7);
  EXPECT_EQ(leaving_node0(t2), 4);
  EXPECT_EQ(t1.num_steps(), t2.num_steps());  // 3 rounds each, 8 messages per round
}

// Fig. 7 (P = 16, Q = 4, N = 4, r2 = 2): "super-process-0 ... must send data
// to super-process-1 in the first communication round (transferring the two
// blue colored super-blocks) ... P0 -> P4, P1 -> P5, P2 -> P6, P3 -> P7".
// The two super-blocks have indices 01 and 11: node 0's data for nodes 1 and
// 3; P0 carries their local-index-0 shares: the blocks from P0..P3 to P4 and
// to P12. Second round (x = 1): indices 10, 11 go to node 2, the second one
// being node 3's super-block for node 2 that arrived in round one.
TEST(Tra2, PaperFig7InterNodeRounds) {
  const uint64_t P = 16;
  for (uint64_t r1 : {2u, 3u, 4u}) {
    Tra2 t(P, 4, r1, 2);
    SCOPED_TRACE("r1=" + std::to_string(r1));
    ASSERT_EQ(t.k2(), 2);
    const int first = t.k1();
    for (Rank g = 0; g < 4; ++g) {
      RankStep rs = step_of(t, g, first);
      EXPECT_EQ(rs.sends[0].peer, 4 + g);
      EXPECT_EQ(rs.recvs[0].peer, 12 + g);
    }
    EXPECT_EQ(step_of(t, 0, first).sends[0].blocks,
              blocks(P, {{0, 4}, {1, 4}, {2, 4}, {3, 4}, {0, 12}, {1, 12}, {2, 12}, {3, 12}}));
    RankStep second = step_of(t, 0, first + 1);
    EXPECT_EQ(second.sends[0].peer, 8u);
    EXPECT_EQ(second.sends[0].blocks,
              blocks(P, {{0, 8}, {1, 8}, {2, 8}, {3, 8}, {12, 8}, {13, 8}, {14, 8}, {15, 8}}));
    EXPECT_EQ(t.blocks_in_round(first), 8u);  // Q * 2 super-block positions
  }
}

// Sec. IV: "if r = r1 = r2 and log_r1 Q, log_r2 N, and log_r P are all
// integers ... TRA2 requires the same number of communication rounds as TRA".
TEST(Tra2, SameRoundsAsTraWhenEverythingIsAPowerOfR) {
  for (auto [P, Q, r] : std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>{
           {8, 4, 2}, {8, 2, 2}, {16, 4, 2}, {64, 8, 2}, {27, 3, 3}, {81, 9, 3}, {256, 16, 4}, {512, 8, 8}}) {
    Tra2 t2(P, Q, r, r);
    Tra t1(P, r);
    EXPECT_EQ(t2.num_steps(), t1.num_steps()) << P << " " << Q << " " << r;
  }
}

// ---- every (P, Q, r1, r2) ------------------------------------------------------------

TEST(Tra2, EveryPropertyHoldsForEveryInstanceUpToP36) {
  const VariantInfo& v = variant("tra2");
  size_t n = 0;
  for (const Inst& i : all_instances(36)) {
    SCOPED_TRACE(name(i));
    const InstanceParams ip = params(i);
    ASSERT_FALSE(v.violates(ip).has_value()) << *v.violates(ip);
    auto s = v.make(ip);
    const Claim c = v.claim(ip);
    InstanceCheck ic = check(*s, &c);
    ASSERT_EQ(ic.verdicts.size(), 6u);
    for (const auto& vd : ic.verdicts) ASSERT_EQ(vd.status, Status::holds) << describe(ic);
    ++n;
  }
  EXPECT_GT(n, 1000u);
}

// K = K1 + K2 (Prop. 3 for Q and N) and D = N D(Q, r1) + Q D(N, r2); every
// rank sends the same number of blocks in every round.
TEST(Tra2, EveryRankSendsTheSameKAndD) {
  for (const Inst& i : all_instances(36)) {
    SCOPED_TRACE(name(i));
    Tra2 t(i.p, i.q, i.r1, i.r2);
    const uint64_t N = i.p / i.q;
    const uint64_t k1 = i.q >= 2 ? tra::prop_rounds(i.q, i.r1) : 0, k2 = N >= 2 ? tra::prop_rounds(N, i.r2) : 0;
    ASSERT_EQ(static_cast<uint64_t>(t.k1()), k1);
    ASSERT_EQ(static_cast<uint64_t>(t.k2()), k2);
    uint64_t d = 0;
    for (int s = 0; s < t.num_steps(); ++s) {
      const uint64_t h = t.blocks_in_round(s);
      d += h;
      for (Rank r = 0; r < i.p; ++r) {
        RankStep rs = step_of(t, r, s);
        ASSERT_EQ(rs.sends.size(), 1u);
        ASSERT_EQ(rs.sends[0].blocks.size(), h) << "rank " << r << " step " << s;
        ASSERT_EQ(rs.recvs[0].blocks.size(), h);
        ASSERT_EQ(rs.sends[0].peer, t.send_peer(r, s));
        ASSERT_EQ(rs.recvs[0].peer, t.recv_peer(r, s));
      }
    }
    const uint64_t want = (i.q >= 2 ? N * tra::prop_blocks(i.q, i.r1) : 0) + (N >= 2 ? i.q * tra::prop_blocks(N, i.r2) : 0);
    ASSERT_EQ(d, want);
    const Claim c = variant("tra2").claim(params(i));
    ASSERT_EQ(c.steps, static_cast<int>(k1 + k2));
    ASSERT_EQ(c.volume_blocks, want);
  }
}

TEST(Tra2, FingerprintModeHoldsAtLargerP) {
  for (const Inst& i : std::vector<Inst>{{240, 16, 4, 4}, {256, 16, 4, 16}, {210, 7, 3, 5}, {128, 64, 8, 2}}) {
    Tra2 t(i.p, i.q, i.r1, i.r2);
    const Claim c = variant("tra2").claim(params(i));
    InstanceCheck ic = check(t, &c, Exactness::fingerprint);
    EXPECT_TRUE(violated(ic).empty()) << name(i) << "\n" << describe(ic);
  }
}

// ---- the refuted readings --------------------------------------------------------------

// The printed intra-node direction (gp - z r^x after a forward shift) delivers
// the block for local index g + j to g - j, the printed inter-node shift and
// sign deliver node k - ni's super-block to ni - k: correct exactly when
// Q <= 2 and N <= 2. Only the postcondition fails: every sender holds what it
// sends (causality), so the blocks really travel as the derivation says.
TEST(Tra2, PaperLiteralFailsExactlyWhenQOrNExceedsTwo) {
  const VariantInfo& v = variant("paper-literal");
  EXPECT_FALSE(v.expected_to_hold);
  for (const Inst& i : all_instances(36)) {
    SCOPED_TRACE(name(i));
    auto s = v.make(params(i));
    const Claim c = v.claim(params(i));
    InstanceCheck ic = check(*s, &c);
    const uint64_t N = i.p / i.q;
    if (i.q <= 2 && N <= 2) {
      ASSERT_TRUE(violated(ic).empty()) << describe(ic);
    } else {
      ASSERT_EQ(violated(ic), std::set<std::string>{prop::postcondition}) << describe(ic);
    }
  }
  // The minimal instances: P = 3 as three nodes of one (the registry default
  // Q for P = 3) and as one node of three.
  {
    auto s = v.make(params(3, 0, 0, 0));
    InstanceCheck ic = check(*s, nullptr);
    const auto& c = *mutation::verdict(ic, prop::postcondition).counterexample;
    EXPECT_EQ(c.location(), "p=3 rank=1 step=1 block=1") << describe(ic);
    EXPECT_EQ(c.actual, "missing ranks {0}");
  }
  {
    auto s = v.make(params(3, 3, 2, 0));
    InstanceCheck ic = check(*s, nullptr);
    EXPECT_EQ(mutation::verdict(ic, prop::postcondition).counterexample->location(), "p=3 rank=0 step=1 block=3")
        << describe(ic);
  }
}

// The printed K1, K2 (with P for Q and N) disagree with the schedule exactly
// when both phases are non-empty; the smallest such instance is
// (P, Q, r1, r2) = (4, 2, 2, 2): printed 3 + 3, measured 1 + 1.
TEST(Tra2, PaperFormulasDisagreeExactlyWhenBothPhasesExist) {
  const VariantInfo& v = variant("paper-formulas");
  EXPECT_FALSE(v.expected_to_hold);
  bool first = true;
  for (const Inst& i : all_instances(36)) {
    SCOPED_TRACE(name(i));
    auto s = v.make(params(i));
    const Claim c = v.claim(params(i));
    const bool both = i.q >= 2 && i.p / i.q >= 2;
    EXPECT_EQ(c.steps != s->num_steps(), both) << "claimed " << c.steps << ", schedule " << s->num_steps();
    if (both && first) {
      first = false;
      EXPECT_EQ(name(i), "P=4 Q=2 r1=2 r2=2");
      EXPECT_EQ(c.steps, 6);
      EXPECT_EQ(s->num_steps(), 2);
    }
  }
  // Through the checker: only cost fails, with the step count.
  auto s = v.make(params(4, 0, 0, 0));
  const Claim c = v.claim(params(4, 0, 0, 0));
  InstanceCheck ic = check(*s, &c);
  EXPECT_EQ(violated(ic), std::set<std::string>{prop::cost}) << describe(ic);
  EXPECT_EQ(mutation::verdict(ic, prop::cost).counterexample->actual, "2 steps");
}

// ---- real data, mutations ------------------------------------------------------------------

TEST(Tra2, ThreadedExecutorDeliversEveryBlock) {
  for (const Inst& i : std::vector<Inst>{{4, 2, 2, 2}, {6, 2, 2, 3}, {6, 3, 2, 2}, {8, 4, 2, 2}, {8, 2, 2, 4},
                                         {9, 3, 3, 3}, {12, 4, 3, 2}, {12, 3, 2, 4}, {18, 6, 3, 2}, {20, 4, 2, 5},
                                         {7, 1, 0, 3}, {7, 7, 3, 0}, {24, 4, 4, 6}}) {
    Tra2 t(i.p, i.q, i.r1, i.r2);
    runtime::ExecOptions o;
    o.seed = 5 + i.p;
    runtime::ExecResult res = runtime::execute_threads(t, o);
    EXPECT_EQ(res.verdict.status, Status::holds)
        << name(i) << ": " << (res.verdict.counterexample ? res.verdict.counterexample->message : std::string());
    EXPECT_FALSE(res.deadlock);
  }
  // The literal reading fails on real data too.
  Tra2 lit(6, 3, 2, 2, Tra2::Reading::paper_literal);
  EXPECT_EQ(runtime::execute_threads(lit, {}).verdict.status, Status::violated);
}

TEST(Tra2, DroppingAnInterNodeTransferLosesBlocks) {
  Tra2 t(12, 3, 2, 2);
  MaterializedSchedule m = materialize(t);
  const int last = m.num_steps() - 1;
  ASSERT_FALSE(t.intra_node(last));
  mutation::drop_transfer(m, last, 4, t.send_peer(4, last));
  InstanceCheck ic = mutation::check(m, {});
  EXPECT_TRUE(violated(ic).count(prop::postcondition)) << describe(ic);
}

TEST(Tra2, MisroutingAnIntraNodeTransferIsCaught) {
  // P = 12, Q = 4: rank 0's first message goes to 2 instead of 1.
  Tra2 t(12, 4, 2, 3);
  MaterializedSchedule m = materialize(t);
  mutation::redirect_transfer(m, 0, 0, 1, 2);
  InstanceCheck ic = mutation::check(m, {});
  EXPECT_TRUE(violated(ic).count(prop::postcondition)) << describe(ic);
}

// ---- registry and bad input ------------------------------------------------------------------

TEST(Tra2, RegistryDefaultsAndRestrictions) {
  const AlgorithmInfo* a = find_algorithm("tra2");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->collective, Collective::alltoall);
  EXPECT_EQ(a->default_variant().name, "tra2");
  const VariantInfo& v = variant("tra2");
  for (const char* o : {"radix", "radix2", "ppn"}) EXPECT_TRUE(v.takes(o)) << o;
  EXPECT_FALSE(v.takes("n"));
  // Defaults: Q = the largest divisor <= sqrt P, r1 = ceil(sqrt Q), r2 = ceil(sqrt N), clamped.
  struct Want {
    uint64_t p, q, r1, r2;
  };
  for (const Want& w : std::vector<Want>{{1, 1, 0, 0},  {2, 1, 0, 2},  {4, 2, 2, 2},  {7, 1, 0, 3},
                                         {12, 3, 2, 2}, {36, 6, 3, 3}, {64, 8, 3, 3}, {1024, 32, 6, 6}}) {
    auto s = v.make(params(w.p, 0, 0, 0));
    const auto& t = dynamic_cast<const Tra2&>(translation_direct(*s));  // wrapped on N x Q (tra2_equivariant_test.cpp)
    EXPECT_EQ(t.q(), w.q) << w.p;
    EXPECT_EQ(t.n(), w.p / w.q) << w.p;
    if (w.q >= 2) {
      EXPECT_EQ(t.r1(), w.r1) << w.p;
    }
    if (w.p / w.q >= 2) {
      EXPECT_EQ(t.r2(), w.r2) << w.p;
    }
  }
  auto why = v.violates(params(8, 3, 0, 0));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("must divide P = 8"), std::string::npos) << *why;
  why = v.violates(params(8, 4, 5, 0));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("r1 = 5 must be in 2..Q = 4"), std::string::npos) << *why;
  why = v.violates(params(8, 4, 0, 3));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("r2 = 3 must be in 2..N = P/Q = 2"), std::string::npos) << *why;
  why = v.violates(params(8, 1, 2, 0));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("no intra-node phase"), std::string::npos) << *why;
  why = v.violates(params(8, 8, 0, 2));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("no inter-node phase"), std::string::npos) << *why;
  EXPECT_FALSE(v.violates(params(8, 8, 3, 0)).has_value());
  EXPECT_THROW(Tra2(8, 3, 2, 2), InputError);
  EXPECT_THROW(Tra2(8, 4, 5, 2), InputError);
  EXPECT_THROW(Tra2(8, 4, 2, 3), InputError);
  for (const char* name : {"tra2", "paper-literal", "paper-formulas"})
    EXPECT_EQ(variant(name).family_properties, (std::vector<std::string>{"alltoall-delivery", "tra-formulas"}));
}

}  // namespace
}  // namespace collcheck
