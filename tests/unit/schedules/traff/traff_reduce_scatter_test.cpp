// Träff's reduce-scatter (Observation 1.4: Algorithm 7 reversed,
// schedules/traff/traff_reduce_scatter.hpp) and the allreduce built from it and
// Algorithm 7 (schedules/traff/traff_allreduce.hpp):
//  * step counts n-1+q and 2(n-1+q); every rank sends exactly n(p-1) and
//    2n(p-1) blocks (the paper: p-1 for n = 1);
//  * known answers for p = 3 and p = 9, n = 1, derived by hand (p = 9 from
//    the paper's Table 2);
//  * per root j, the reduce-scatter's transfers of j's blocks are exactly
//    TraffReduce(p, n, j); the first-receipt de-duplication drops nothing
//    (the schedule is Algorithm 7 reversed, transfer by transfer);
//  * every generic property for p = 1..40, n in {1, 2, 3, 8}; fingerprint mode;
//  * the threaded executor; mutations are caught.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "properties/instance_checker.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/registry.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/traff/traff_allgather.hpp"
#include "schedules/traff/traff_allreduce.hpp"
#include "schedules/traff/traff_reduce.hpp"
#include "schedules/traff/traff_reduce_scatter.hpp"
#include "tests/support/mutations.hpp"

namespace collcheck {
namespace {

using mutation::describe;
using mutation::violated;

InstanceCheck check(const Schedule& s, const char* algo, uint32_t n, Exactness e = Exactness::exact) {
  Claim c = find_algorithm(algo)->default_variant().claim(InstanceParams{s.p(), 0, n});
  CheckOptions o;
  o.exactness = e;
  return check_schedule(s, &c, {}, o);
}

std::string exec_message(const runtime::ExecResult& r) {
  return std::string(to_string(r.verdict.status)) + " " +
         (r.verdict.counterexample ? r.verdict.counterexample->location() + ": " + r.verdict.counterexample->message
                                   : std::string());
}

// Blocks {r + d mod p : d in ds} (n = 1: block j belongs to root j).
BlockSet around(Rank r, uint64_t p, std::vector<int> ds) {
  std::vector<Block> b;
  for (int d : ds) b.push_back(static_cast<Block>((r + p + d) % p));
  return BlockSet::from_blocks(b);
}

// Sends of every rank at `step` must be exactly {peer(r), blocks(r)}.
template <class PeerFn, class BlocksFn>
void expect_sends(const MaterializedSchedule& m, int step, PeerFn peer, BlocksFn blocks, Combine c) {
  for (Rank r = 0; r < m.spec.p; ++r) {
    const auto& sends = m.steps[step][r].sends;
    ASSERT_EQ(sends.size(), 1u) << "step " << step << " rank " << r;
    EXPECT_EQ(sends[0], (Transfer{peer(r), blocks(r), c})) << "step " << step << " rank " << r << ": "
                                                              << sends[0].blocks.to_string();
  }
}

// ---- reduce-scatter: counts ---------------------------------------------------------------

TEST(TraffReduceScatter, StepsAndExactlyNTimesPMinus1BlocksPerRank) {
  for (uint64_t p : {1u, 2u, 3u, 7u, 9u, 16u, 17u, 33u})
    for (uint32_t n : {1u, 2u, 4u, 6u}) {
      TraffReduceScatter rs(p, n);
      ASSERT_EQ(rs.spec().kind, Collective::reduce_scatter);
      ASSERT_EQ(rs.num_blocks(), n * p);
      const int q = swing::ceil_log2(p);
      ASSERT_EQ(rs.num_steps(), p == 1 ? 0 : static_cast<int>(n) - 1 + q);
      MaterializedSchedule m = materialize(rs);
      for (Rank r = 0; r < p; ++r) {
        uint64_t sent = 0, got = 0;
        for (const auto& step : m.steps) {
          EXPECT_LE(step[r].sends.size(), 1u);
          EXPECT_LE(step[r].recvs.size(), 1u);
          for (const Transfer& t : step[r].sends) {
            sent += t.blocks.size();
            EXPECT_EQ(t.combine, Combine::reduce);
            EXPECT_EQ(t.blocks.intersect(r * n, (r + 1) * n).size(), 0u) << "a rank never sends its own blocks";
          }
          for (const Transfer& t : step[r].recvs) got += t.blocks.size();
        }
        EXPECT_EQ(sent, n * (p - 1)) << "p=" << p << " n=" << n << " r=" << r;
        EXPECT_EQ(got, n * (p - 1)) << "p=" << p << " n=" << n << " r=" << r;
      }
    }
}

// ---- reduce-scatter: known answers ------------------------------------------------------
//
// p = 3, n = 1 (skip = 1, 2, 3; q = 2; x = 0). Algorithm 7: round 0, r sends
// its block r to r+1; round 1, r sends its block r to r+2 (root r-1's block
// is not packed: r+2 = r-1 is that root). Reversed: step 0 (round 1), r
// sends partial block r+1 to r+1; step 1 (round 0), partial block r-1 to r-1.
TEST(TraffReduceScatter, KnownAnswerP3N1) {
  MaterializedSchedule m = materialize(TraffReduceScatter(3, 1));
  ASSERT_EQ(m.num_steps(), 2);
  expect_sends(m, 0, [](Rank r) { return (r + 1) % 3; }, [](Rank r) { return around(r, 3, {1}); }, Combine::reduce);
  expect_sends(m, 1, [](Rank r) { return (r + 2) % 3; }, [](Rank r) { return around(r, 3, {-1}); }, Combine::reduce);
}

// p = 9, n = 1, from Table 2 (see tests/unit/schedules/traff/traff_reduce_test.cpp for the
// broadcast): relative to root j, the reduce moves rel 5..8 -> rel-5 at step
// 0, 3..4 -> rel-3 at step 1, 2 -> 0 at step 2, 1 -> 0 at step 3. Rank u is
// rel = u - j for root j, so at step 0 u sends to u-5 = u+4 the blocks j =
// u-5..u-8, at step 1 to u-3 the blocks u-3, u-4, at step 2 to u-2 block
// u-2, at step 3 to u-1 block u-1: 4+2+1+1 = 8 = p-1 blocks.
TEST(TraffReduceScatter, KnownAnswerP9N1FromTable2) {
  MaterializedSchedule m = materialize(TraffReduceScatter(9, 1));
  ASSERT_EQ(m.num_steps(), 4);
  auto to = [](int d) { return [d](Rank r) { return static_cast<Rank>((r + 9 + d) % 9); }; };
  expect_sends(m, 0, to(-5), [](Rank r) { return around(r, 9, {-5, -6, -7, -8}); }, Combine::reduce);
  expect_sends(m, 1, to(-3), [](Rank r) { return around(r, 9, {-3, -4}); }, Combine::reduce);
  expect_sends(m, 2, to(-2), [](Rank r) { return around(r, 9, {-2}); }, Combine::reduce);
  expect_sends(m, 3, to(-1), [](Rank r) { return around(r, 9, {-1}); }, Combine::reduce);
}

// ---- reduce-scatter: structure ------------------------------------------------------------

// Root j's blocks j*n .. j*n+n-1 move exactly as in TraffReduce(p, n, j).
TEST(TraffReduceScatter, EachRootsBlocksMoveAsTraffReduce) {
  for (uint64_t p : {2u, 3u, 5u, 9u, 12u, 17u, 18u})
    for (uint32_t n : {1u, 2u, 3u, 6u}) {
      MaterializedSchedule rs = materialize(TraffReduceScatter(p, n));
      for (Rank j = 0; j < p; ++j) {
        MaterializedSchedule red = materialize(TraffReduce(p, n, j));
        ASSERT_EQ(red.num_steps(), rs.num_steps());
        for (int s = 0; s < rs.num_steps(); ++s)
          for (Rank r = 0; r < p; ++r) {
            auto project = [&](const std::vector<Transfer>& list) {
              std::vector<Transfer> out;
              for (const Transfer& t : list) {
                BlockSet mine = t.blocks.intersect(j * n, (j + 1) * n);
                if (mine.empty()) continue;
                BlockSet shifted;
                mine.for_each([&](Block b) { shifted.insert(b - j * n); });
                out.push_back({t.peer, shifted, t.combine});
              }
              return out;
            };
            EXPECT_EQ(project(rs.steps[s][r].sends), red.steps[s][r].sends)
                << "p=" << p << " n=" << n << " root=" << j << " step=" << s << " rank=" << r;
            EXPECT_EQ(project(rs.steps[s][r].recvs), red.steps[s][r].recvs)
                << "p=" << p << " n=" << n << " root=" << j << " step=" << s << " rank=" << r;
          }
      }
    }
}

// The de-duplication drops nothing (Theorem 1, as for the reduce): the
// schedule is Algorithm 7 with every transfer reversed.
TEST(TraffReduceScatter, IsAlgorithm7ReversedTransferByTransfer) {
  for (uint64_t p = 1; p <= 64; ++p)
    for (uint32_t n : {1u, 2u, 3u, 5u}) {
      MaterializedSchedule ag = materialize(TraffAllgather(p, n)), rs = materialize(TraffReduceScatter(p, n));
      const int S = ag.num_steps();
      ASSERT_EQ(rs.num_steps(), S);
      for (int s = 0; s < S; ++s)
        for (Rank r = 0; r < p; ++r) {
          const RankStep& a = ag.steps[S - 1 - s][r];
          RankStep want;
          for (const Transfer& t : a.recvs) want.sends.push_back({t.peer, t.blocks, Combine::reduce});
          for (const Transfer& t : a.sends) want.recvs.push_back({t.peer, t.blocks, Combine::reduce});
          ASSERT_EQ(rs.steps[s][r], want) << "p=" << p << " n=" << n << " step=" << s << " rank=" << r;
        }
    }
}

// ---- reduce-scatter: properties and real data ------------------------------------------------

TEST(TraffReduceScatter, EveryPropertyHoldsForP1To40) {
  for (uint64_t p = 1; p <= 40; ++p)
    for (uint32_t n : {1u, 2u, 3u, 8u}) {
      TraffReduceScatter rs(p, n);
      InstanceCheck ic = check(rs, "traff-reduce-scatter", n);
      ASSERT_TRUE(violated(ic).empty()) << "p=" << p << " n=" << n << "\n" << describe(ic);
    }
}

TEST(TraffReduceScatter, FingerprintModeAgrees) {
  for (uint64_t p : {300u, 1025u}) {
    TraffReduceScatter rs(p, 2);
    InstanceCheck ic = check(rs, "traff-reduce-scatter", 2, Exactness::fingerprint);
    EXPECT_TRUE(violated(ic).empty()) << p << "\n" << describe(ic);
  }
}

TEST(TraffReduceScatter, ThreadedExecutorComputesTheSums) {
  for (uint64_t p = 1; p <= 12; ++p)
    for (uint32_t n : {1u, 3u, 8u})
      for (bool in_place : {true, false}) {
        TraffReduceScatter rs(p, n);
        runtime::ExecOptions o;
        o.in_place = in_place;
        o.seed = 5 + p;
        runtime::ExecResult r = runtime::execute_threads(rs, o);
        EXPECT_EQ(r.verdict.status, Status::holds) << "p=" << p << " n=" << n << ": " << exec_message(r);
        EXPECT_FALSE(r.deadlock);
        EXPECT_EQ(r.verdict.checks, n * p) << "each block at its owner";
      }
}

TEST(TraffReduceScatter, DroppingOrDuplicatingATransferIsCaught) {
  {
    MaterializedSchedule m = materialize(TraffReduceScatter(17, 3));
    const int last = m.num_steps() - 1;
    mutation::drop_transfer(m, last, mutation::recv_peer(m, last, 5), 5);
    InstanceCheck ic = check(MaterializedView(m), "traff-reduce-scatter", 3);
    EXPECT_TRUE(violated(ic).count("postcondition")) << describe(ic);
    EXPECT_FALSE(violated(ic).count("matching"));
  }
  {
    MaterializedSchedule m = materialize(TraffReduceScatter(17, 3));
    const Rank src = mutation::recv_peer(m, 0, 5);
    mutation::duplicate_transfer(m, 0, src, 5, 1, 5);  // may also exceed the port budget
    InstanceCheck ic = check(MaterializedView(m), "traff-reduce-scatter", 3);
    EXPECT_TRUE(violated(ic).count("exactly-once")) << describe(ic);
  }
}

// ---- allreduce -----------------------------------------------------------------------------

TEST(TraffAllreduce, IsTheReduceScatterThenAlgorithm7) {
  for (uint64_t p : {1u, 2u, 3u, 9u, 17u, 24u})
    for (uint32_t n : {1u, 2u, 5u}) {
      TraffAllreduce ar(p, n);
      ASSERT_EQ(ar.spec().kind, Collective::allreduce);
      ASSERT_EQ(ar.num_blocks(), n * p);
      const int q = swing::ceil_log2(p);
      const int S = p == 1 ? 0 : static_cast<int>(n) - 1 + q;
      ASSERT_EQ(ar.num_steps(), 2 * S);
      MaterializedSchedule m = materialize(ar), rs = materialize(TraffReduceScatter(p, n)),
                           ag = materialize(TraffAllgather(p, n));
      for (int s = 0; s < S; ++s) EXPECT_EQ(m.steps[s], rs.steps[s]) << "p=" << p << " step " << s;
      for (int s = 0; s < S; ++s) {
        EXPECT_EQ(m.steps[S + s], ag.steps[s]) << "p=" << p << " step " << S + s;
        for (const RankStep& rstep : m.steps[S + s])
          for (const auto* list : {&rstep.sends, &rstep.recvs})
            for (const Transfer& t : *list) EXPECT_EQ(t.combine, Combine::copy);
      }
      for (Rank r = 0; r < p; ++r) {
        uint64_t sent = 0;
        for (const auto& step : m.steps)
          for (const Transfer& t : step[r].sends) sent += t.blocks.size();
        EXPECT_EQ(sent, 2 * n * (p - 1)) << "p=" << p << " n=" << n << " r=" << r;
      }
    }
}

// p = 9, n = 1: steps 0-3 as in KnownAnswerP9N1FromTable2; then Algorithm 7
// (Table 2's broadcast relative to each root: round 0 rel 0 -> 1, round 1
// 0 -> 2, round 2 0 -> 3 and 1 -> 4, round 3 0..3 -> 5..8): u copies to u+1
// block u, to u+2 block u, to u+3 blocks u, u-1, to u+5 blocks u..u-3.
TEST(TraffAllreduce, KnownAnswerP9N1FromTable2) {
  MaterializedSchedule m = materialize(TraffAllreduce(9, 1));
  ASSERT_EQ(m.num_steps(), 8);
  auto to = [](int d) { return [d](Rank r) { return static_cast<Rank>((r + 9 + d) % 9); }; };
  expect_sends(m, 0, to(-5), [](Rank r) { return around(r, 9, {-5, -6, -7, -8}); }, Combine::reduce);
  expect_sends(m, 3, to(-1), [](Rank r) { return around(r, 9, {-1}); }, Combine::reduce);
  expect_sends(m, 4, to(1), [](Rank r) { return around(r, 9, {0}); }, Combine::copy);
  expect_sends(m, 5, to(2), [](Rank r) { return around(r, 9, {0}); }, Combine::copy);
  expect_sends(m, 6, to(3), [](Rank r) { return around(r, 9, {0, -1}); }, Combine::copy);
  expect_sends(m, 7, to(5), [](Rank r) { return around(r, 9, {0, -1, -2, -3}); }, Combine::copy);
}

TEST(TraffAllreduce, EveryPropertyHoldsForP1To40) {
  for (uint64_t p = 1; p <= 40; ++p)
    for (uint32_t n : {1u, 2u, 3u, 8u}) {
      TraffAllreduce ar(p, n);
      InstanceCheck ic = check(ar, "traff-allreduce", n);
      ASSERT_TRUE(violated(ic).empty()) << "p=" << p << " n=" << n << "\n" << describe(ic);
    }
}

TEST(TraffAllreduce, FingerprintModeAgrees) {
  for (uint64_t p : {300u, 1025u}) {
    TraffAllreduce ar(p, 2);
    InstanceCheck ic = check(ar, "traff-allreduce", 2, Exactness::fingerprint);
    EXPECT_TRUE(violated(ic).empty()) << p << "\n" << describe(ic);
  }
}

TEST(TraffAllreduce, ThreadedExecutorComputesTheSums) {
  for (uint64_t p = 1; p <= 12; ++p)
    for (uint32_t n : {1u, 3u, 8u})
      for (bool in_place : {true, false}) {
        TraffAllreduce ar(p, n);
        runtime::ExecOptions o;
        o.in_place = in_place;
        o.dtype = runtime::DType::float32;
        o.seed = 9 + p;
        runtime::ExecResult r = runtime::execute_threads(ar, o);
        EXPECT_EQ(r.verdict.status, Status::holds) << "p=" << p << " n=" << n << ": " << exec_message(r);
        EXPECT_FALSE(r.deadlock);
        EXPECT_EQ(r.verdict.checks, p * n * p);
      }
}

// An allgather-phase copy turned into a reduce adds the owner's full result
// to the receiver's partial one: the receiver's own contribution twice.
TEST(TraffAllreduce, ReduceInsteadOfCopyInTheAllgatherIsCaught) {
  MaterializedSchedule m = materialize(TraffAllreduce(17, 2));
  const int S = m.num_steps() / 2;
  const Rank t = mutation::send_peer(m, S, 0);
  mutation::flip_combine(m, S, 0, t);
  InstanceCheck ic = check(MaterializedView(m), "traff-allreduce", 2);
  EXPECT_TRUE(violated(ic).count("exactly-once")) << describe(ic);
  EXPECT_TRUE(violated(ic).count("postcondition")) << describe(ic);
}

TEST(TraffAllreduce, RegistryEntries) {
  for (const char* name : {"traff-reduce-scatter", "traff-allreduce"}) {
    const AlgorithmInfo* a = find_algorithm(name);
    ASSERT_NE(a, nullptr) << name;
    ASSERT_EQ(a->variants.size(), 1u);
    const VariantInfo& v = a->default_variant();
    EXPECT_TRUE(v.expected_to_hold);
    EXPECT_EQ(v.family_properties, (std::vector<std::string>{"traff-conditions", "traff-bounds"}));
    EXPECT_FALSE(v.violates(InstanceParams{5, 0, 0}).has_value());
    EXPECT_TRUE(v.violates(InstanceParams{5, 1, 0}).has_value());
    EXPECT_EQ(v.make(InstanceParams{5, 0, 0})->num_blocks(), 8u * 5u);  // default n = 8
  }
  EXPECT_EQ(find_algorithm("traff-reduce-scatter")->collective, Collective::reduce_scatter);
  EXPECT_EQ(find_algorithm("traff-allreduce")->collective, Collective::allreduce);
  Claim rs = find_algorithm("traff-reduce-scatter")->default_variant().claim(InstanceParams{9, 0, 5});
  EXPECT_EQ(rs.steps, 5 - 1 + 4);
  EXPECT_EQ(rs.volume_blocks, 5u * 8u);
  Claim ar = find_algorithm("traff-allreduce")->default_variant().claim(InstanceParams{9, 0, 5});
  EXPECT_EQ(ar.steps, 2 * (5 - 1 + 4));
  EXPECT_EQ(ar.volume_blocks, 2u * 5u * 8u);
}

}  // namespace
}  // namespace collcheck
