// Träff's reduction to a root (Observation 1.3: Algorithm 1 reversed,
// schedules/traff/traff_reduce.hpp):
//  * step counts n-1+q, each non-root rank sends exactly n blocks;
//  * known answers for p = 9 (Table 2 of the paper, derived by hand below)
//    with n = 1 and n = 2, root 0 and a relabelled root;
//  * the reversal relation with TraffBroadcast, transfer by transfer;
//  * every generic property for p = 1..40, n in {1, 2, 3, 8}, several roots,
//    both variants; fingerprint mode for larger p;
//  * the finding: Algorithm 1 never delivers a block twice to a rank
//    (Theorem 1), so the literal reversal (`paper-reversed`) is the same
//    schedule as the first-receipt one and holds; what a repeated receipt
//    would do is shown by a mutation (exactly-once fails);
//  * the threaded executor computes the right sums;
//  * mutations (a dropped or a duplicated transfer) are caught.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "properties/instance_checker.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/registry.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/traff/traff_broadcast.hpp"
#include "schedules/traff/traff_circulant.hpp"
#include "schedules/traff/traff_reduce.hpp"
#include "tests/support/mutations.hpp"

namespace collcheck {
namespace {

using mutation::describe;
using mutation::violated;
using Dedup = TraffReduce::Dedup;

const VariantInfo& variant(const std::string& name) {
  const AlgorithmInfo* a = find_algorithm("traff-reduce");
  if (!a || !a->find_variant(name)) throw std::logic_error("no traff-reduce/" + name);
  return *a->find_variant(name);
}

InstanceCheck check(const Schedule& s, uint32_t n, Exactness e = Exactness::exact) {
  Claim c = variant("reduce").claim(InstanceParams{s.p(), s.spec().root, n});
  CheckOptions o;
  o.exactness = e;
  return check_schedule(s, &c, {}, o);
}

// One transfer as (step, src, dst, block); every Träff reduce message is one block.
using Move = std::tuple<int, Rank, Rank, Block>;

// Every transfer of a materialized schedule, from the senders' lists, after
// checking that each is a single-block reduce.
std::set<Move> moves(const MaterializedSchedule& m) {
  std::set<Move> out;
  for (int s = 0; s < m.num_steps(); ++s)
    for (Rank r = 0; r < m.spec.p; ++r)
      for (const Transfer& t : m.steps[s][r].sends) {
        EXPECT_EQ(t.blocks.size(), 1u);
        EXPECT_EQ(t.combine, Combine::reduce);
        out.insert({s, r, t.peer, t.blocks.ranges().front().lo});
      }
  return out;
}

// ---- step counts and volume -------------------------------------------------------

TEST(TraffReduce, StepsAreNMinus1PlusQAndEveryNonRootSendsNBlocks) {
  for (uint64_t p : {1u, 2u, 3u, 4u, 5u, 9u, 16u, 17u, 18u, 33u})
    for (uint32_t n : {1u, 2u, 3u, 5u, 8u})
      for (Rank root : {Rank{0}, static_cast<Rank>(p - 1)}) {
        TraffReduce red(p, n, root);
        const int q = swing::ceil_log2(p);
        ASSERT_EQ(red.spec().kind, Collective::reduce);
        ASSERT_EQ(red.num_blocks(), n);
        ASSERT_EQ(red.num_steps(), p == 1 ? 0 : static_cast<int>(n) - 1 + q) << "p=" << p << " n=" << n;
        MaterializedSchedule m = materialize(red);
        for (Rank r = 0; r < p; ++r) {
          uint64_t sent = 0, got = 0;
          for (const auto& step : m.steps) {
            EXPECT_LE(step[r].sends.size(), 1u);
            EXPECT_LE(step[r].recvs.size(), 1u);
            for (const Transfer& t : step[r].sends) sent += t.blocks.size();
            for (const Transfer& t : step[r].recvs) got += t.blocks.size();
          }
          EXPECT_EQ(sent, r == root ? 0u : n) << "p=" << p << " n=" << n << " r=" << r;
          if (r == root && p > 1) {
            EXPECT_GE(got, n);  // at least every block once; the root receives in every step
          }
        }
        if (p > 1) {  // the root receives one block in every step
          for (const auto& step : m.steps) EXPECT_EQ(step[root].recvs.size(), 1u) << "p=" << p << " n=" << n;
        }
      }
}

// ---- known answers, derived by hand from Table 2 (p = 9) --------------------------------
//
// p = 9: skip = 1, 2, 3, 5, 9, q = 4. Table 2's nonnegative recvblock entries
// (rank: block in round k, from rank r - skip[k]):
//   k = 0: 1:0.   k = 1: 2:1.   k = 2: 3:2, 4:0.   k = 3: 5:3, 6:0, 7:1, 8:2.
//
// n = 1: x = 0, rounds 0..3, every nonnegative block capped to 0. Broadcast:
//   round 0: 0->1; round 1: 0->2; round 2: 0->3, 1->4; round 3: 0->5, 1->6, 2->7, 3->8.
// Reduce step s' = 3 - round: every arrow reversed.
std::set<Move> p9_n1_expected(Rank root) {
  std::set<Move> e = {{0, 5, 0, 0}, {0, 6, 1, 0}, {0, 7, 2, 0}, {0, 8, 3, 0},
                      {1, 3, 0, 0}, {1, 4, 1, 0}, {2, 2, 0, 0}, {3, 1, 0, 0}};
  std::set<Move> out;
  for (auto [s, a, b, c] : e) out.insert({s, (a + root) % 9, (b + root) % 9, c});
  return out;
}

// n = 2: x = (q - (n-1) mod q) mod q = 3, S = 5, rounds i = 3..7, block of
// round i = recvblock[i mod 4] - 3 + 4 floor(i/4), capped to 1:
//   round 3 (k=3, -3): 5 gets 0 from 0.
//   round 4 (k=0, +1): 1 gets 1 from 0; 6 gets 0 from 5.
//   round 5 (k=1, +1): 2 gets 2->1 from 0; 7 gets 0 from 5.
//   round 6 (k=2, +1): 3 gets 3->1 from 0; 4 gets 1 from 1; 8 gets 0 from 5.
//   round 7 (k=3, +1): 1, 2, 3, 4 get 0 from 5, 6, 7, 8; 5, 6, 7, 8 get
//                      4->1, 1, 2->1, 3->1 from 0, 1, 2, 3.
// Every non-root rank gets blocks 0 and 1 once. Reduce step s' = 7 - i.
std::set<Move> p9_n2_expected() {
  return {{0, 1, 5, 0}, {0, 2, 6, 0}, {0, 3, 7, 0}, {0, 4, 8, 0},
          {0, 5, 0, 1}, {0, 6, 1, 1}, {0, 7, 2, 1}, {0, 8, 3, 1},
          {1, 3, 0, 1}, {1, 4, 1, 1}, {1, 8, 5, 0},
          {2, 2, 0, 1}, {2, 7, 5, 0},
          {3, 1, 0, 1}, {3, 6, 5, 0},
          {4, 5, 0, 0}};
}

TEST(TraffReduce, KnownAnswerP9N1FromTable2) {
  for (Rank root : {0u, 4u, 8u})
    for (Dedup d : {Dedup::first_receipt, Dedup::none}) {
      TraffReduce red(9, 1, root, d);
      ASSERT_EQ(red.num_steps(), 4);
      MaterializedSchedule m = materialize(red);
      EXPECT_EQ(moves(m), p9_n1_expected(root)) << "root=" << root;
      EXPECT_TRUE(violated(check(red, 1)).empty()) << describe(check(red, 1));
    }
}

TEST(TraffReduce, KnownAnswerP9N2FromTable2) {
  TraffReduce red(9, 2, 0);
  ASSERT_EQ(red.num_steps(), 5);
  MaterializedSchedule m = materialize(red);
  EXPECT_EQ(moves(m), p9_n2_expected());
  // The partial results the root combines, by hand from the moves above:
  // block 1 arrives from 5 ({5}), 3 ({3,8}), 2 ({2,7}), 1 ({1,6,4});
  // block 0 once, from 5 ({5,1,8,4,7,3,6,2}).
  InstanceCheck ic = check(red, 2);
  EXPECT_TRUE(violated(ic).empty()) << describe(ic);
}

TEST(TraffReduce, HeaderExampleP4N1) {
  TraffReduce red(4, 1, 0);
  EXPECT_EQ(moves(materialize(red)), (std::set<Move>{{0, 2, 0, 0}, {0, 3, 1, 0}, {1, 1, 0, 0}}));
}

// The first round (Algorithm 1's numbering) in which each rank of p = 9,
// n = 2 receives block n-1 = 1, by hand from the n = 2 table above; the root
// never does (n-1+q+x = 8).
TEST(TraffReduce, FirstCappedRoundP9N2) {
  const std::vector<int64_t> skip = traff::skips(9);
  const std::vector<int64_t> want = {8, 4, 5, 6, 6, 7, 7, 7, 7};
  for (uint64_t r = 0; r < 9; ++r)
    EXPECT_EQ(traff::first_capped_round(traff::recvschedule(r, skip), 2, 3), want[r]) << "r=" << r;
}

// ---- the reversal relation ------------------------------------------------------------

// Broadcast step s: a -> b block c (copy)  <=>  reduce step S-1-s: b -> a block c (reduce),
// listed at both ends.
TEST(TraffReduce, IsAlgorithm1ReversedTransferByTransfer) {
  for (uint64_t p : {2u, 5u, 9u, 17u, 18u, 31u, 64u})
    for (uint32_t n : {1u, 2u, 4u, 9u})
      for (Rank root : {Rank{0}, static_cast<Rank>(p / 2)}) {
        TraffBroadcast b(p, n, root);
        TraffReduce red(p, n, root, Dedup::none);
        MaterializedSchedule mb = materialize(b), mr = materialize(red);
        ASSERT_EQ(mb.num_steps(), mr.num_steps());
        const int S = mb.num_steps();
        for (int s = 0; s < S; ++s)
          for (Rank r = 0; r < p; ++r) {
            const RankStep& bs = mb.steps[S - 1 - s][r];
            const RankStep& rs = mr.steps[s][r];
            ASSERT_EQ(bs.recvs.size(), rs.sends.size());
            ASSERT_EQ(bs.sends.size(), rs.recvs.size());
            for (size_t i = 0; i < bs.recvs.size(); ++i)
              EXPECT_EQ(rs.sends[i], (Transfer{bs.recvs[i].peer, bs.recvs[i].blocks, Combine::reduce}));
            for (size_t i = 0; i < bs.sends.size(); ++i)
              EXPECT_EQ(rs.recvs[i], (Transfer{bs.sends[i].peer, bs.sends[i].blocks, Combine::reduce}));
          }
      }
}

// ---- the finding about the paper's "exactly once" ----------------------------------------

// Theorem 1 with correctness condition 3: the uncapped blocks a rank receives
// are distinct, and only b_r + n - 1 is >= n-1. So Algorithm 1 delivers every
// block exactly once to every non-root rank, never a capped repeat of n-1.
TEST(TraffReduce, Algorithm1DeliversEveryBlockExactlyOnce) {
  for (uint64_t p = 1; p <= 150; ++p)
    for (uint32_t n : {1u, 2u, 3u, 4u, 7u, 8u, 13u}) {
      TraffBroadcast b(p, n, 0);
      std::vector<int> got(p * n, 0);
      RankStep rs;
      for (int s = 0; s < b.num_steps(); ++s)
        for (Rank r = 0; r < p; ++r) {
          b.rank_step(r, s, rs);
          for (const Transfer& t : rs.recvs) t.blocks.for_each([&](Block c) { ++got[r * n + c]; });
        }
      for (Rank r = 1; r < p; ++r)
        for (uint32_t c = 0; c < n; ++c)
          ASSERT_EQ(got[r * n + c], 1) << "p=" << p << " n=" << n << " r=" << r << " block=" << c;
    }
}

// The same by counting (traff::capped_receipts, O(q) per rank): every
// non-root rank gets block n-1 in exactly one round, the root in none, for
// every rank of p = 1..600 and of a few larger p.
TEST(TraffReduce, BlockNMinus1ArrivesInExactlyOneRound) {
  std::vector<uint64_t> ps;
  for (uint64_t p = 1; p <= 600; ++p) ps.push_back(p);
  for (uint64_t p : {1023u, 1024u, 1025u, 4097u}) ps.push_back(p);
  for (uint64_t p : ps) {
    const std::vector<int64_t> skip = traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    for (uint64_t r = 0; r < p && q > 0; ++r) {
      const std::vector<int64_t> rb = traff::recvschedule(r, skip);
      for (int64_t n : {1, 2, 3, 5, 8, 17}) {
        const int64_t x = (q - (n - 1) % q) % q;
        ASSERT_EQ(traff::capped_receipts(rb.data(), q, n, x), r == 0 ? 0 : 1) << "p=" << p << " r=" << r << " n=" << n;
      }
    }
  }
}

// Hence the first-receipt de-duplication drops nothing: `paper-reversed`
// (every transfer reversed) and the default `reduce` are the same schedule.
TEST(TraffReduce, PaperReversedIsTheSameScheduleAsFirstReceipt) {
  for (uint64_t p = 1; p <= 70; ++p)
    for (uint32_t n : {1u, 2u, 3u, 5u, 8u, 11u})
      for (Rank root : std::set<Rank>{0, static_cast<Rank>(p - 1), static_cast<Rank>(p / 3)}) {
        MaterializedSchedule a = materialize(TraffReduce(p, n, root, Dedup::first_receipt));
        MaterializedSchedule b = materialize(TraffReduce(p, n, root, Dedup::none));
        ASSERT_EQ(a.steps, b.steps) << "p=" << p << " n=" << n << " root=" << root;
      }
}

// What a repeated receipt would do if Algorithm 1 had one (Theorem 1 rules it
// out): add to the p = 9, n = 2 broadcast a second, earlier delivery of
// block 1 to rank 8, from rank 1 in round 5 (rank 1 holds block 1 since round
// 4, so the broadcast stays causal). Reversed literally (reduce step 7 - 5 = 2:
// 8 -> 1), rank 8's contribution reaches the root twice, via rank 1 (step 3)
// and via rank 3 (step 1): exactly-once names the second reduce. Keeping only
// the first receipt instead (dropping the reversal of the round-7 receipt,
// step 0: 8 -> 3) is a correct reduce again.
TEST(TraffReduce, ARepeatedReceiptReversedCountsTwice) {
  MaterializedSchedule m = materialize(TraffReduce(9, 2, 0));
  mutation::add_transfer(m, 2, 8, 1, BlockSet::single(1), Combine::reduce);
  InstanceCheck ic = check(MaterializedView(m), 2);
  EXPECT_EQ(violated(ic), (std::set<std::string>{"exactly-once", "postcondition", "cost"})) << describe(ic);
  const Counterexample& c = *mutation::verdict(ic, "exactly-once").counterexample;
  EXPECT_EQ(c.location(), "p=9 rank=0 step=3 block=1 peer=1");
  EXPECT_EQ(c.expected, "contribution of rank 8 at most once");
  mutation::drop_transfer(m, 0, 8, 3);  // the first-receipt rule
  InstanceCheck fixed = check(MaterializedView(m), 2);
  EXPECT_TRUE(violated(fixed).empty()) << describe(fixed);
}

// ---- every property --------------------------------------------------------------------

TEST(TraffReduce, EveryPropertyHoldsForP1To40) {
  for (uint64_t p = 1; p <= 40; ++p)
    for (uint32_t n : {1u, 2u, 3u, 8u})
      for (Rank root : std::set<Rank>{0, static_cast<Rank>(p - 1), static_cast<Rank>(p / 2), static_cast<Rank>(1 % p)})
        for (Dedup d : {Dedup::first_receipt, Dedup::none}) {
          TraffReduce red(p, n, root, d);
          SCOPED_TRACE("p=" + std::to_string(p) + " n=" + std::to_string(n) + " root=" + std::to_string(root));
          InstanceCheck ic = check(red, n);
          ASSERT_TRUE(violated(ic).empty()) << describe(ic);
          if (p > 1) {
            EXPECT_GT(mutation::verdict(ic, "exactly-once").checks, 0u);
          }
        }
}

TEST(TraffReduce, FingerprintModeAgrees) {
  for (uint64_t p : {300u, 1025u, 2000u}) {
    TraffReduce red(p, 5, 7);
    InstanceCheck ic = check(red, 5, Exactness::fingerprint);
    EXPECT_TRUE(violated(ic).empty()) << p << "\n" << describe(ic);
  }
}

// ---- real data --------------------------------------------------------------------------

TEST(TraffReduce, ThreadedExecutorComputesTheSum) {
  for (uint64_t p = 1; p <= 12; ++p)
    for (uint32_t n : {1u, 3u, 8u})
      for (Rank root : std::set<Rank>{0, static_cast<Rank>(p - 1), static_cast<Rank>(p / 2)})
        for (bool in_place : {true, false}) {
          TraffReduce red(p, n, root);
          runtime::ExecOptions o;
          o.in_place = in_place;
          o.dtype = runtime::DType::float64;
          o.seed = 31 + p;
          runtime::ExecResult r = runtime::execute_threads(red, o);
          EXPECT_EQ(r.verdict.status, Status::holds)
              << "p=" << p << " n=" << n << " root=" << root << ": "
              << (r.verdict.counterexample ? r.verdict.counterexample->message : std::string());
          EXPECT_FALSE(r.deadlock);
          EXPECT_EQ(r.verdict.checks, n) << "only the root's n blocks are required";
        }
}

// ---- mutations --------------------------------------------------------------------------

TEST(TraffReduce, DroppingATransferLosesContributions) {
  MaterializedSchedule m = materialize(TraffReduce(17, 4, 0));
  // The last step: the root's only incoming partial result.
  const int last = m.num_steps() - 1;
  const Rank src = mutation::recv_peer(m, last, 0);
  mutation::drop_transfer(m, last, src, 0);
  InstanceCheck ic = check(MaterializedView(m), 4);
  const std::set<std::string> v = violated(ic);
  EXPECT_TRUE(v.count("postcondition")) << describe(ic);
  EXPECT_FALSE(v.count("matching"));  // both ends were dropped
  EXPECT_FALSE(v.count("exactly-once"));
}

TEST(TraffReduce, DuplicatingATransferCountsTwice) {
  MaterializedSchedule m = materialize(TraffReduce(17, 4, 3));
  // Send the root's first incoming partial result again one step later.
  const Rank src = mutation::recv_peer(m, 0, 3);
  mutation::duplicate_transfer(m, 0, src, 3, 1, 3);
  InstanceCheck ic = check(MaterializedView(m), 4);
  const std::set<std::string> v = violated(ic);
  EXPECT_TRUE(v.count("exactly-once")) << describe(ic);
  EXPECT_TRUE(v.count("postcondition")) << describe(ic);
}

// ---- registry --------------------------------------------------------------------------

TEST(TraffReduce, RegistryEntry) {
  const AlgorithmInfo* a = find_algorithm("traff-reduce");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->collective, Collective::reduce);
  ASSERT_EQ(a->variants.size(), 2u);
  EXPECT_EQ(a->default_variant().name, "reduce");
  for (const auto& v : a->variants) {
    EXPECT_TRUE(v.expected_to_hold) << v.name;  // measured: the literal reversal holds too
    EXPECT_EQ(v.family_properties, (std::vector<std::string>{"traff-conditions", "traff-bounds"}));
    EXPECT_FALSE(v.violates(InstanceParams{5, 4, 0}).has_value());
    ASSERT_TRUE(v.violates(InstanceParams{5, 5, 0}).has_value());
    auto s = v.make(InstanceParams{5, 2, 0});
    EXPECT_EQ(s->num_blocks(), 8u);  // default n = 8
    EXPECT_EQ(s->spec().root, 2u);
    Claim c = v.claim(InstanceParams{9, 0, 5});
    EXPECT_EQ(c.steps, 5 - 1 + 4);
    EXPECT_EQ(c.volume_blocks, 5u);
    EXPECT_EQ(v.claim(InstanceParams{1, 0, 5}).steps, 0);
  }
}

}  // namespace
}  // namespace collcheck
