// Threaded executor (runtime/threaded_executor.hpp): real threads, real data.
//
//  * every registry variant that is expected to hold computes its collective
//    (allreduce, broadcast, allgather, ...) for p = 1..12, int64/float/double,
//    in-place and out-of-place, and, where it takes them, for other block
//    counts n and non-zero roots;
//  * the schedule files the MPI tests run (tests/mpi/schedules/: reduce,
//    reduce-scatter and alltoall, which no registry algorithm covers, plus
//    wrong schedules of several kinds) get the same verdict here as under MPI;
//  * hand-mutated schedules (dropped, duplicated, unmatched transfers) are
//    reported at the right rank and block, and deadlocks are found without
//    hanging;
//  * the non-commutative operator (permutations of 0..7, MPICH allred3 style)
//    records which algorithms preserve rank order -- see the Permutation tests
//    for the findings.
#include <gtest/gtest.h>

#include "tests/support/torus_shape_for.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/threaded_executor.hpp"
#include "schedules/recursive_doubling/recursive_doubling.hpp"
#include "schedules/registry.hpp"
#include "schedules/ring/ring_allreduce.hpp"
#include "schedules/formats/schedule_json.hpp"
#include "schedules/swing/swing_latency.hpp"

namespace collcheck::runtime {
namespace {

using namespace std::chrono_literals;

std::string describe(const ExecResult& r) {
  std::string s = std::string(to_string(r.verdict.status)) + " [" + r.verdict.mode + "]";
  if (r.verdict.counterexample)
    s += " " + r.verdict.counterexample->location() + ": " + r.verdict.counterexample->message;
  return s;
}

const Counterexample& cx(const ExecResult& r) {
  EXPECT_TRUE(r.verdict.counterexample.has_value()) << describe(r);
  static const Counterexample none;
  return r.verdict.counterexample ? *r.verdict.counterexample : none;
}

std::unique_ptr<Schedule> make(const std::string& algo, const std::string& variant, uint64_t p) {
  const AlgorithmInfo* a = find_algorithm(algo);
  EXPECT_NE(a, nullptr) << algo;
  const VariantInfo* v = a ? a->find_variant(variant) : nullptr;
  EXPECT_NE(v, nullptr) << algo << "/" << variant;
  return v->make(InstanceParams{p, 0});
}

ExecOptions perm_options() {
  ExecOptions o;
  o.op = ReduceOp::permutation;
  return o;
}

// ---- Every registry variant that is expected to hold --------------------------

struct VariantCase {
  std::string algo, variant;
};

// Readable test listings (and CTest names): "swing/bandwidth".
void PrintTo(const VariantCase& c, std::ostream* os) { *os << c.algo << "/" << c.variant; }

std::vector<VariantCase> holding_variants() {
  std::vector<VariantCase> out;
  for (const auto& a : registry())
    for (const auto& v : a.variants)
      if (v.expected_to_hold) out.push_back({a.name, v.name});
  return out;
}

class RegistryVariant : public ::testing::TestWithParam<VariantCase> {};

// The (rank, block) pairs the collective constrains: the executor checks these.
uint64_t required_pairs(const CollectiveSpec& spec) {
  uint64_t n = 0;
  for (Rank r = 0; r < spec.p; ++r)
    for (Block b = 0; b < spec.nblocks; ++b) n += spec.required(r, b).kind != Requirement::Kind::none;
  return n;
}

// The instances of a variant at p: the defaults (n = 0, root = 0) and, for
// collectives that take them, n = 1 and 3 and the roots p/2 and p-1.
std::vector<InstanceParams> instances(const AlgorithmInfo& a, const VariantInfo& v, uint64_t p) {
  std::vector<InstanceParams> out{{p, 0, 0}};
  // A torus variant (it takes --dims) runs on the 1-D torus of p nodes here, or on r x c.
  if (v.takes("dims")) out.front().dims = test::torus_shape_for(v, p);
  if (a.collective == Collective::allreduce) return out;
  for (uint32_t n : {1u, 3u}) out.push_back({p, 0, n});
  if (a.collective == Collective::broadcast || a.collective == Collective::reduce)
    for (Rank root : {static_cast<Rank>(p / 2), static_cast<Rank>(p - 1)})
      if (root != 0) out.push_back({p, root, root % 2 ? 3u : 0u});
  return out;
}

TEST_P(RegistryVariant, CorrectForP1To12AllDtypesBothPlacements) {
  const auto& c = GetParam();
  const AlgorithmInfo* a = find_algorithm(c.algo);
  const VariantInfo* v = a->find_variant(c.variant);
  int runs = 0;
  for (uint64_t p = 1; p <= 12; ++p) {
    for (const InstanceParams& ip : instances(*a, *v, p)) {
      if (v->violates && v->violates(ip)) continue;
      auto sched = v->make(ip);
      const bool defaults = ip.blocks == 0 && ip.root == 0;
      for (DType d : {DType::int64, DType::float32, DType::float64, DType::int32})
        for (bool in_place : {true, false}) {
          // Other n and roots: one dtype per placement is enough.
          if (!defaults && (d == DType::float32 || (d == DType::int64) != in_place)) continue;
          ExecOptions o;
          o.dtype = d;
          o.in_place = in_place;
          o.seed = 1000 + p;
          ExecResult r = execute_threads(*sched, o);
          EXPECT_EQ(r.verdict.status, Status::holds) << c.algo << "/" << c.variant << " p=" << p << " n=" << ip.blocks
                                                     << " root=" << ip.root << ": " << describe(r);
          EXPECT_FALSE(r.deadlock);
          EXPECT_EQ(r.verdict.checks, required_pairs(sched->spec()));
          ++runs;
        }
    }
  }
  EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(Registry, RegistryVariant, ::testing::ValuesIn(holding_variants()),
                         [](const ::testing::TestParamInfo<VariantCase>& info) {
                           std::string n = info.param.algo + "_" + info.param.variant;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// ---- Stats and modes ------------------------------------------------------

TEST(ThreadedExecutor, StatsModeAndChecks) {
  auto ring = make_ring_allreduce(4);
  ExecOptions o;
  o.dtype = DType::float64;
  o.in_place = false;
  ExecResult r = execute_threads(*ring, o);
  EXPECT_EQ(r.verdict.status, Status::holds) << describe(r);
  EXPECT_EQ(r.verdict.property, "executor");
  EXPECT_EQ(r.verdict.mode, "threads/double/out-of-place");
  EXPECT_EQ(r.stats.steps, 6);
  EXPECT_EQ(r.stats.messages, 6u * 4u);              // one message per rank per step
  EXPECT_EQ(r.stats.bytes, 6u * 4u * 3u * sizeof(double));  // one block of 3 elements each
  EXPECT_EQ(r.verdict.checks, 16u);
  EXPECT_EQ(r.verdict.stats.at("messages"), "24");
  EXPECT_EQ(mode_string(perm_options()), "threads/permutation/in-place");
}

// ---- Mutated schedules ----------------------------------------------------

// Ring p = 4, last step (allgather t = 2): rank r receives block (r - 2) mod 4
// from r - 1 as a copy. Dropping the transfer into rank 2 leaves only rank 2's
// block 0 wrong.
TEST(ThreadedExecutor, DroppedTransferIsReportedAtTheRightRankAndBlock) {
  MaterializedSchedule m = materialize(*make_ring_allreduce(4));
  const int last = m.num_steps() - 1;
  ASSERT_EQ(m.steps[last][1].sends.size(), 1u);
  ASSERT_EQ(m.steps[last][1].sends[0].peer, 2u);
  ASSERT_EQ(m.steps[last][2].recvs[0].blocks, BlockSet::single(0));
  m.steps[last][1].sends.clear();
  m.steps[last][2].recvs.clear();
  MaterializedView broken(std::move(m));
  for (DType d : {DType::int64, DType::float32}) {
    ExecOptions o;
    o.dtype = d;
    ExecResult r = execute_threads(broken, o);
    ASSERT_EQ(r.verdict.status, Status::violated);
    EXPECT_FALSE(r.deadlock);
    EXPECT_EQ(r.verdict.violations, 1u) << describe(r);
    EXPECT_EQ(cx(r).p, 4u);
    EXPECT_EQ(cx(r).rank, 2u);
    EXPECT_EQ(cx(r).block, 0u);
    EXPECT_NE(cx(r).message.find("rank 2 block 0"), std::string::npos) << cx(r).message;
  }
}

// Ring p = 3, step 0: rank 0 sends block 0 to rank 1 (reduce). Duplicating the
// transfer on both ends makes rank 1 add rank 0's input twice; the allgather
// then spreads the wrong block 0 to every rank.
TEST(ThreadedExecutor, DuplicatedTransferIsReportedAsDoubleCounting) {
  MaterializedSchedule m = materialize(*make_ring_allreduce(3));
  ASSERT_EQ(m.steps[0][0].sends[0].peer, 1u);
  ASSERT_EQ(m.steps[0][0].sends[0].blocks, BlockSet::single(0));
  m.steps[0][0].sends.push_back(m.steps[0][0].sends[0]);
  m.steps[0][1].recvs.push_back(m.steps[0][1].recvs[0]);
  MaterializedView broken(std::move(m));

  ExecResult r = execute_threads(broken, {});
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_EQ(r.verdict.violations, 3u) << describe(r);  // block 0 on every rank
  EXPECT_EQ(cx(r).rank, 0u);
  EXPECT_EQ(cx(r).block, 0u);
  EXPECT_NE(cx(r).message.find("rank 0's contribution is counted twice"), std::string::npos) << cx(r).message;

  // The permutation operator sees the overlap at the step where it happens
  // (on recursive doubling, which keeps rank order at p = 4: the ring at
  // p = 3 already combines out of order at rank 0 in step 0, the first
  // finding in time, before the overlap at rank 1).
  MaterializedSchedule rd = materialize(*make_recursive_doubling_latency(4));
  ASSERT_EQ(rd.steps[0][0].sends[0].peer, 1u);
  ASSERT_EQ(rd.steps[0][1].recvs[0].peer, 0u);
  rd.steps[0][0].sends.push_back(rd.steps[0][0].sends[0]);
  rd.steps[0][1].recvs.push_back(rd.steps[0][1].recvs[0]);
  ExecResult q = execute_threads(MaterializedView(std::move(rd)), perm_options());
  ASSERT_EQ(q.verdict.status, Status::violated);
  EXPECT_EQ(cx(q).rank, 1u);
  EXPECT_EQ(cx(q).step, 0);
  EXPECT_NE(cx(q).message.find("overlap"), std::string::npos) << cx(q).message;
  EXPECT_NE(cx(q).message.find("at step 0"), std::string::npos) << cx(q).message;
}

// A duplicated send without its recv leaves a message nobody receives.
TEST(ThreadedExecutor, MessageNeverReceivedIsReported) {
  MaterializedSchedule m = materialize(*make_ring_allreduce(3));
  m.steps[1][2].sends.push_back(m.steps[1][2].sends[0]);  // rank 2 -> rank 0 twice at step 1
  MaterializedView broken(std::move(m));
  ExecResult r = execute_threads(broken, {});
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_FALSE(r.deadlock);
  EXPECT_EQ(cx(r).rank, 0u);
  EXPECT_EQ(cx(r).step, 1);
  EXPECT_EQ(cx(r).peer, 2u);
  EXPECT_NE(cx(r).message.find("never receives"), std::string::npos) << cx(r).message;
}

// Sending a block one does not hold yet sends uninitialised memory: reported
// at the sender's step (causality), and the receiver's block is garbage.
TEST(ThreadedExecutor, BlockSentBeforeItIsHeldIsReported) {
  // Allgather p = 2, 2 blocks: rank r owns block r. Rank 0 wrongly sends
  // block 1 (rank 1's) instead of block 0; rank 1 correctly sends block 1.
  MaterializedSchedule m;
  m.spec = CollectiveSpec{Collective::allgather, 2, 2, 0};
  m.steps.resize(1, std::vector<RankStep>(2));
  m.steps[0][0].sends.push_back({1, BlockSet::single(1), Combine::copy});
  m.steps[0][1].recvs.push_back({0, BlockSet::single(1), Combine::copy});
  m.steps[0][1].sends.push_back({0, BlockSet::single(1), Combine::copy});
  m.steps[0][0].recvs.push_back({1, BlockSet::single(1), Combine::copy});
  ExecResult r = execute_threads(MaterializedView(std::move(m)), {});
  ASSERT_EQ(r.verdict.status, Status::violated);
  // causality at rank 0, plus rank 1's block 0 (never received) and block 1
  // (overwritten with garbage).
  EXPECT_EQ(r.verdict.violations, 3u) << describe(r);
  EXPECT_EQ(cx(r).rank, 0u);
  EXPECT_EQ(cx(r).step, 0);
  EXPECT_EQ(cx(r).block, 1u);
  EXPECT_NE(cx(r).message.find("before it holds any data"), std::string::npos) << cx(r).message;
}

TEST(ThreadedExecutor, PeerOutOfRangeIsReportedWithoutHanging) {
  MaterializedSchedule m = materialize(*make_ring_allreduce(3));
  m.steps[0][1].sends[0].peer = 7;
  ExecOptions o;
  o.deadlock_timeout = 2s;
  ExecResult r = execute_threads(MaterializedView(std::move(m)), o);
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_TRUE(r.deadlock);  // rank 2 waits for the message rank 1 could not send
  bool named = false;
  for (auto& s : r.stuck) named |= (s.rank == 2 && s.waiting_for == std::vector<Rank>{1});
  EXPECT_TRUE(named) << describe(r);
}

// ---- Deadlocks --------------------------------------------------------------

TEST(ThreadedExecutor, RecvWithoutSendIsDeadlockNamingTheStuckRank) {
  MaterializedSchedule m;
  m.spec = CollectiveSpec{Collective::allreduce, 3, 1, 0};
  m.steps.resize(1, std::vector<RankStep>(3));
  m.steps[0][1].recvs.push_back({2, BlockSet::single(0), Combine::reduce});  // nobody sends
  ExecOptions o;
  o.deadlock_timeout = 60s;  // exact detection does not wait for it: timed_out stays false
  ExecResult r = execute_threads(MaterializedView(std::move(m)), o);
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_TRUE(r.deadlock);
  EXPECT_FALSE(r.timed_out) << "the deadlock was found by the watchdog's timeout, not detected exactly";
  ASSERT_EQ(r.stuck.size(), 1u);
  EXPECT_EQ(r.stuck[0].rank, 1u);
  EXPECT_EQ(r.stuck[0].step, 0);
  EXPECT_EQ(r.stuck[0].waiting_for, std::vector<Rank>{2});
  EXPECT_EQ(cx(r).rank, 1u);
  EXPECT_EQ(cx(r).step, 0);
  EXPECT_EQ(cx(r).peer, 2u);
  EXPECT_NE(cx(r).message.find("deadlock: rank 1 is stuck at step 0 waiting for rank 2"), std::string::npos)
      << cx(r).message;
}

// Removing one send in the middle of a ring: rank 0 waits at step 2 for rank
// 3, and the ranks behind it pile up waiting for each other.
TEST(ThreadedExecutor, MissingSendCascadesIntoDeadlockWithMinimalStuckRank) {
  MaterializedSchedule m = materialize(*make_ring_allreduce(4));
  ASSERT_EQ(m.steps[2][3].sends[0].peer, 0u);
  m.steps[2][3].sends.clear();
  ExecOptions o;
  o.deadlock_timeout = 2s;
  ExecResult r = execute_threads(MaterializedView(std::move(m)), o);
  ASSERT_TRUE(r.deadlock) << describe(r);
  EXPECT_FALSE(r.timed_out);
  ASSERT_FALSE(r.stuck.empty());
  EXPECT_EQ(r.stuck[0].rank, 0u);
  EXPECT_EQ(r.stuck[0].step, 2);
  EXPECT_EQ(r.stuck[0].waiting_for, std::vector<Rank>{3});
  EXPECT_EQ(cx(r).rank, 0u);
  EXPECT_EQ(cx(r).step, 2);
  EXPECT_EQ(cx(r).peer, 3u);
}

// Every rank receives from its left neighbour at step 0 but sends only at
// step 1: a circular wait.
TEST(ThreadedExecutor, CircularWaitIsDeadlock) {
  const uint64_t p = 5;
  MaterializedSchedule m;
  m.spec = CollectiveSpec{Collective::allreduce, p, 1, 0};
  m.steps.resize(2, std::vector<RankStep>(p));
  for (Rank r = 0; r < p; ++r) {
    m.steps[0][r].recvs.push_back({static_cast<Rank>((r + p - 1) % p), BlockSet::single(0), Combine::reduce});
    m.steps[1][r].sends.push_back({static_cast<Rank>((r + 1) % p), BlockSet::single(0), Combine::reduce});
  }
  ExecOptions o;
  o.deadlock_timeout = 2s;
  ExecResult r = execute_threads(MaterializedView(std::move(m)), o);
  ASSERT_TRUE(r.deadlock);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.stuck.size(), p);
  EXPECT_NE(cx(r).message.find("stuck ranks: 0,1,2,3,4"), std::string::npos) << cx(r).message;
}

// A rank that makes no progress (here: a rank program that stalls) trips the
// watchdog after the timeout even though nobody is provably deadlocked.
class StallingSchedule final : public Schedule {
 public:
  StallingSchedule() : inner_(make_ring_allreduce(3)) {}
  const CollectiveSpec& spec() const override { return inner_->spec(); }
  int num_steps() const override { return inner_->num_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    if (r == 0 && s == 1) std::this_thread::sleep_for(800ms);
    inner_->rank_step(r, s, out);
  }

 private:
  std::unique_ptr<Schedule> inner_;
};

TEST(ThreadedExecutor, WatchdogStopsARunWithoutProgress) {
  StallingSchedule s;
  ExecOptions o;
  o.deadlock_timeout = 200ms;
  ExecResult r = execute_threads(s, o);
  ASSERT_TRUE(r.deadlock);
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(cx(r).message.find("no progress for 200 ms"), std::string::npos) << cx(r).message;
}

// ---- Non-commutative operator: who preserves rank order? ---------------------
//
// Each element is a permutation of 0..7 and reduction composes in rank order;
// the executor only combines values whose rank intervals are adjacent, so the
// result x_0 * x_1 * ... * x_{p-1} is the only one accepted.

std::vector<uint64_t> order_preserving_ps(const std::string& algo, const std::string& variant, uint64_t max_p) {
  std::vector<uint64_t> ok;
  const VariantInfo* v = find_algorithm(algo)->find_variant(variant);
  for (uint64_t p = 1; p <= max_p; ++p) {
    if (v->violates && v->violates(InstanceParams{p, 0})) continue;
    auto s = make(algo, variant, p);
    for (bool in_place : {true, false}) {
      ExecOptions o = perm_options();
      o.in_place = in_place;
      ExecResult r = execute_threads(*s, o);
      EXPECT_FALSE(r.deadlock);
      if (r.verdict.status == Status::holds && in_place) ok.push_back(p);
    }
  }
  return ok;
}

// Recursive doubling (distance 1, 2, 4, ...) combines adjacent intervals, the
// textbook choice for non-commutative operators (MPICH uses it for them). The
// fold used for non-powers of two breaks order at step 0: rank i combines its
// input with rank p'+i's.
TEST(Permutation, RecursiveDoublingLatencyPreservesOrderExactlyForPowersOfTwo) {
  EXPECT_EQ(order_preserving_ps("recursive-doubling", "latency", 16), (std::vector<uint64_t>{1, 2, 4, 8, 16}));
  ExecResult r = execute_threads(*make("recursive-doubling", "latency", 6), perm_options());
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_NE(cx(r).message.find("rank 0 must combine rank 0 with rank 4 (from rank 4) at step 0"), std::string::npos)
      << cx(r).message;
}

// Rabenseifner (recursive halving starting at distance p/2): at p = 8 rank 0
// must combine its input with rank 4's at step 0, which no operand order can
// turn into x_0 * ... * x_7. Order is preserved only for p <= 2.
TEST(Permutation, RecursiveDoublingBandwidthAtP8BreaksOrderAtStep0) {
  ExecResult r = execute_threads(*make("recursive-doubling", "bandwidth", 8), perm_options());
  ASSERT_EQ(r.verdict.status, Status::violated) << describe(r);
  EXPECT_FALSE(r.deadlock);
  EXPECT_EQ(cx(r).p, 8u);
  EXPECT_EQ(cx(r).rank, 0u);
  EXPECT_EQ(cx(r).block, 0u);
  EXPECT_NE(cx(r).message.find("order not preserved: rank 0 must combine rank 0 with rank 4 (from rank 4) at step 0"),
            std::string::npos)
      << cx(r).message;
  EXPECT_NE(cx(r).message.find("there is a gap"), std::string::npos);
  EXPECT_EQ(order_preserving_ps("recursive-doubling", "bandwidth", 16), (std::vector<uint64_t>{1, 2}));
  // The same schedule is right for a commutative sum.
  EXPECT_EQ(execute_threads(*make("recursive-doubling", "bandwidth", 8), {}).verdict.status, Status::holds);
}

// The Swing paper says Swing works with non-commutative operators because it
// sends contiguous data. What collcheck finds: the data is contiguous only
// around the ring. At p = 8, step 1, rank 0 holds x_0 x_1 and its peer rank 7
// holds x_6 x_7; the only contiguous product is x_6 x_7 x_0 x_1, a rotation.
// Every Swing variant that holds for sums (bandwidth, latency, and
// bandwidth-contiguous, whose *blocks* are contiguous ranges) preserves rank
// order only for p = 1, 2, 4, where the peers happen to line up; for every
// other p up to 16 the product is wrong. For non-powers of two the fold
// (latency) already breaks order at step 0.
TEST(Permutation, SwingPreservesOrderOnlyAroundTheRingNotInRankOrder) {
  for (const char* variant : {"bandwidth", "latency", "bandwidth-contiguous"}) {
    ExecResult r = execute_threads(*make("swing", variant, 8), perm_options());
    ASSERT_EQ(r.verdict.status, Status::violated) << variant;
    EXPECT_EQ(cx(r).rank, 0u) << variant;
    EXPECT_NE(cx(r).message.find("rank 0 must combine ranks 0..1 with ranks 6..7 (from rank 7) at step 1"),
              std::string::npos)
        << variant << ": " << cx(r).message;
    EXPECT_NE(cx(r).message.find("adjacent only around the ring"), std::string::npos) << cx(r).message;
    EXPECT_EQ(order_preserving_ps("swing", variant, 16), (std::vector<uint64_t>{1, 2, 4})) << variant;
  }
}

// How wrong is the rotation? Let the reduction accept cyclic adjacency (what an
// implementation that "just sends contiguous data" computes; when both operand
// orders are contiguous it prefers the one that is contiguous in rank order)
// and see where each rank's product starts. For Swing latency at p = 8, rank
// 0's partial at step 1 already contains x_7 x_0, so its final product cannot
// start at x_0, while rank 1 gets x_0 ... x_7: the ranks do not even agree.
std::vector<uint64_t> cyclic_product_starts(const Schedule& s) {
  const uint64_t p = s.p();
  std::vector<uint64_t> start(p), len(p, 1);
  for (Rank r = 0; r < p; ++r) start[r] = r;
  RankStep rs;
  for (int st = 0; st < s.num_steps(); ++st) {
    auto ns = start, nl = len;
    for (Rank r = 0; r < p; ++r) {
      s.rank_step(r, st, rs);
      for (const Transfer& t : rs.recvs) {
        uint64_t a = ns[r], la = nl[r], b = start[t.peer], lb = len[t.peer];
        if (t.combine == Combine::copy) {
          ns[r] = b, nl[r] = lb;
        } else if (a + la == b) {  // mine, then the peer's, in rank order
          nl[r] = la + lb;
        } else if (b + lb == a) {  // the peer's, then mine, in rank order
          ns[r] = b, nl[r] = la + lb;
        } else if ((a + la) % p == b) {  // contiguous only around the ring
          nl[r] = la + lb;
        } else if ((b + lb) % p == a) {
          ns[r] = b, nl[r] = la + lb;
        } else {
          ADD_FAILURE() << "not even cyclically contiguous at step " << st << " rank " << r;
        }
      }
    }
    start = ns, len = nl;
  }
  for (Rank r = 0; r < p; ++r) EXPECT_EQ(len[r], p) << "rank " << r;
  return start;
}

TEST(Permutation, SwingLatencyRanksEndWithDifferentRotations) {
  auto starts = cyclic_product_starts(*make_swing_latency(8));
  EXPECT_NE(starts[0], 0u) << "rank 0 computes a rotation of x_0 * ... * x_7";
  EXPECT_EQ(starts[1], 0u) << "rank 1 computes x_0 * ... * x_7";
  std::vector<uint64_t> distinct = starts;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_GT(distinct.size(), 1u) << "ranks disagree under a non-commutative operator";
  // Recursive doubling, by contrast, gives every rank the product starting at x_0.
  EXPECT_EQ(cyclic_product_starts(*make_recursive_doubling_latency(8)), std::vector<uint64_t>(8, 0));
}

// Ring allreduce: block b's partial travels b, b+1, ..., p-1, 0, ..., so it
// wraps around for every block except 0 and 1 (for block 1 the last combine,
// at rank 0, is x_0 * (x_1 ... x_{p-1})). Order is preserved only for p <= 2.
// The first wrap in time is block p-1's, at rank 0 in step 0 (x_{p-1} then
// x_0); block b's comes at step p-1-b.
TEST(Permutation, RingBreaksOrderForBlocksThatWrapAround) {
  ExecResult r = execute_threads(*make("ring", "bandwidth", 5), perm_options());
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_EQ(cx(r).rank, 0u);
  EXPECT_EQ(cx(r).step, 0);
  EXPECT_EQ(cx(r).block, 4u);
  EXPECT_NE(cx(r).message.find("adjacent only around the ring"), std::string::npos) << cx(r).message;
  EXPECT_EQ(order_preserving_ps("ring", "bandwidth", 12), (std::vector<uint64_t>{1, 2}));
}

// The executor agrees with the checker's findings on the paper variants that
// collcheck refutes (registry known_failure), at their minimal p.
TEST(ThreadedExecutor, PaperVariantsFailAtTheirMinimalP) {
  struct Case {
    const char* variant;
    uint64_t p;
    bool deadlock;
  };
  for (Case c : {Case{"paper-listing1", 6, false}, Case{"paper-laststep", 6, false}, Case{"paper-odd", 3, false},
                 Case{"paper-latency", 3, true}, Case{"paper-latency", 6, false}}) {
    ExecOptions o;
    o.deadlock_timeout = 2s;
    ExecResult r = execute_threads(*make("swing", c.variant, c.p), o);
    EXPECT_EQ(r.verdict.status, Status::violated) << c.variant << " p=" << c.p;
    EXPECT_EQ(r.deadlock, c.deadlock) << c.variant << " p=" << c.p << ": " << describe(r);
    // ... and they are right at p = 4 (a power of two) where the paper's rules agree.
    if (std::string(c.variant) != "paper-odd") {
      EXPECT_EQ(execute_threads(*make("swing", c.variant, 4), o).verdict.status, Status::holds) << c.variant;
    }
  }
}

// ---- The MPI tests' schedule files (tests/mpi/schedules/) ---------------------

// Same files, same verdicts as under collcheck-mpi (tests/mpi/CMakeLists.txt).
struct FileCase {
  std::string file;
  Collective kind;
  bool holds;
  Rank rank = 0;                 // the counterexample's rank, for a violation
  std::optional<Block> block;    // and block, when it names one
  std::string message_part = "";  // a phrase the counterexample's message contains
};

void PrintTo(const FileCase& c, std::ostream* os) { *os << c.file; }

MaterializedSchedule read_schedule_file(const std::string& name) {
  std::ifstream f(std::string(COLLCHECK_SOURCE_DIR) + "/tests/mpi/schedules/" + name);
  EXPECT_TRUE(f.good()) << name;
  std::stringstream ss;
  ss << f.rdbuf();
  return schedule_from_json(ss.str());
}

class ScheduleFile : public ::testing::TestWithParam<FileCase> {};

TEST_P(ScheduleFile, SameVerdictAsUnderMpi) {
  const FileCase& c = GetParam();
  MaterializedView view(read_schedule_file(c.file));
  ASSERT_EQ(view.spec().kind, c.kind);
  for (DType d : {DType::int64, DType::float64})
    for (bool in_place : {true, false}) {
      ExecOptions o;
      o.dtype = d;
      o.in_place = in_place;
      o.deadlock_timeout = 5s;
      ExecResult r = execute_threads(view, o);
      EXPECT_FALSE(r.deadlock) << describe(r);
      if (c.holds) {
        EXPECT_EQ(r.verdict.status, Status::holds) << describe(r);
        EXPECT_EQ(r.verdict.checks, required_pairs(view.spec()));
        continue;
      }
      ASSERT_EQ(r.verdict.status, Status::violated) << describe(r);
      EXPECT_EQ(cx(r).rank, c.rank) << describe(r);
      EXPECT_EQ(cx(r).block, c.block) << describe(r);
      EXPECT_NE(cx(r).message.find(c.message_part), std::string::npos) << describe(r);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Mpi, ScheduleFile,
    ::testing::Values(
        FileCase{"reduce-binomial-p5-root2.json", Collective::reduce, true, 0, std::nullopt, ""},
        FileCase{"reduce-scatter-ring-p3.json", Collective::reduce_scatter, true, 0, std::nullopt, ""},
        FileCase{"alltoall-pairwise-p5.json", Collective::alltoall, true, 0, std::nullopt, ""},
        // The root's last receive is a copy: it loses its own and two other
        // ranks' contributions.
        FileCase{"reduce-root-copies-p5-root2.json", Collective::reduce, false, 2, 0, "rank 2 block 0 element 0"},
        // Rank 0 sends rank 1's block to rank 2 and vice versa: rank 1 never
        // receives block 1 = (0, 1).
        FileCase{"alltoall-swapped-destinations-p3.json", Collective::alltoall, false, 1, 1,
                 "rank 1 block 1 never received rank 0's input"},
        // Rank 1 forwards the root's block in the step it receives it, so it
        // sends data it does not hold yet.
        FileCase{"broadcast-forwards-too-early-p3.json", Collective::broadcast, false, 1, 0,
                 "before it holds any data"},
        // Rank 0 sends block 2 = (1, 0) before receiving it; it lands at
        // rank 1, where nothing is compared, so only the send is wrong.
        FileCase{"alltoall-sends-undefined-p2.json", Collective::alltoall, false, 0, 2,
                 "before it holds any data"},
        // Rank 1 reduces rank 0's block into its own copy of block 0, which
        // it never held.
        FileCase{"allgather-reduces-into-undefined-p2.json", Collective::allgather, false, 1, 0,
                 "does not hold the block (undefined buffer)"}),
    [](const ::testing::TestParamInfo<FileCase>& info) {
      std::string n = info.param.file.substr(0, info.param.file.find('.'));
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

}  // namespace
}  // namespace collcheck::runtime
