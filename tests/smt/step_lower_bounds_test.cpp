// Step lower bounds by SAT (smt/step_lower_bounds.hpp). Each bound is checked
// from both sides: no schedule of L-1 steps (unsat, the proof) and a schedule
// of L steps (sat, replayed by the Z3-independent replay_step_schedule), so a
// vacuous encoding (everything unsat) or a too permissive one (everything
// sat) fails. The replay itself is shown to reject broken schedules.
// Bounds L come from the papers: log2 p one-port (Swing, recursive doubling),
// ceil(log3 p) two-port (Trivance Theorem 4.3), n-1+ceil(log2 p) for an
// n-block broadcast (Traff, Sec. 1).
#include "tests/support/schedule_lookup.hpp"
#include "smt/step_lower_bounds.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "schedules/registry.hpp"
#include "smt/query_registry.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 60000;

StepProblem problem(StepGoal g, uint64_t p, int steps, int ports, Content c = Content::knowledge) {
  StepProblem P;
  P.goal = g;
  P.p = p;
  P.steps = steps;
  P.model.ports = ports;
  P.model.content = c;
  return P;
}

// The bound is proven (L-1 impossible) and tight (L possible, replayed).
void expect_tight_bound(StepProblem P, int expected_bound) {
  ASSERT_EQ(information_bound(P.goal, P.p, P.model.ports, P.blocks), expected_bound);
  Verdict v = prove_step_lower_bound(P, kBudgetMs);
  EXPECT_EQ(v.status, Status::holds) << v.stats["error"] << v.stats["reason_unknown"];
  EXPECT_EQ(v.stats["bound"], std::to_string(expected_bound));
  EXPECT_EQ(v.mode, "z3");
  P.steps = expected_bound;
  StepSearch s = find_schedule(P, kBudgetMs);
  ASSERT_EQ(s.answer, Existence::exists) << s.verdict.stats["reason_unknown"];
  EXPECT_EQ(replay_step_schedule(P, s.schedule), std::nullopt) << format_step_schedule(P, s.schedule);
}

TEST(StepLowerBounds, AllreduceOnePortP8NeedsLog2P) {
  expect_tight_bound(problem(StepGoal::allreduce, 8, 0, 1), 3);
}

TEST(StepLowerBounds, AllreduceOnePortRunningSumP8) {
  // Recursive doubling / Swing latency: whole running sums, exactly once.
  expect_tight_bound(problem(StepGoal::allreduce, 8, 0, 1, Content::running_sum), 3);
}

TEST(StepLowerBounds, AllreduceTwoPortRingOf9NeedsLog3P) {
  expect_tight_bound(problem(StepGoal::allreduce, 9, 0, 2), 2);
  expect_tight_bound(problem(StepGoal::allreduce, 9, 0, 2, Content::running_sum), 2);
}

TEST(StepLowerBounds, BroadcastNBlocksTraff) {
  for (uint32_t n : {1u, 2u, 3u, 4u}) {
    StepProblem P = problem(StepGoal::broadcast, 8, 0, 1);
    P.blocks = n;
    expect_tight_bound(P, static_cast<int>(n) - 1 + 3);
  }
  StepProblem P = problem(StepGoal::broadcast, 6, 0, 1);
  P.blocks = 2;
  P.root = 4;
  expect_tight_bound(P, 1 + 3);
}

TEST(StepLowerBounds, AllgatherAndAlltoallOnePort) {
  expect_tight_bound(problem(StepGoal::allgather, 8, 0, 1), 3);
  expect_tight_bound(problem(StepGoal::alltoall, 6, 0, 1), 3);
}

TEST(StepLowerBounds, OneTargetRelaxationIsStillAProof) {
  StepProblem P = problem(StepGoal::allreduce, 8, 0, 1);
  P.one_target = true;
  Verdict v = prove_step_lower_bound(P, kBudgetMs);
  EXPECT_EQ(v.status, Status::holds);
  EXPECT_NE(v.stats["query"].find("only rank 0"), std::string::npos);
}

// The step-bound question at the sizes that fit a unit test: a two-port allreduce
// in ceil(log3 7) = 2 steps with exactly-once is impossible with one running
// sum per rank, but exists when a rank keeps its received vectors separately.
TEST(StepLowerBounds, RunningSumVersusStoredContributionsAtN7) {
  StepSearch rs = find_schedule(problem(StepGoal::allreduce, 7, 2, 2, Content::running_sum), kBudgetMs);
  EXPECT_EQ(rs.answer, Existence::impossible) << rs.verdict.stats["reason_unknown"];
  StepProblem st = problem(StepGoal::allreduce, 7, 2, 2, Content::stored);
  StepSearch s = find_schedule(st, kBudgetMs);
  ASSERT_EQ(s.answer, Existence::exists);
  EXPECT_EQ(replay_step_schedule(st, s.schedule), std::nullopt);
  // Always adding (no replace) is a restriction of running_sum: impossible too.
  EXPECT_EQ(find_schedule(problem(StepGoal::allreduce, 7, 2, 2, Content::running_sum_add), kBudgetMs).answer,
            Existence::impossible);
  // n = 9 = 3^2: Trivance's case, running sums that are always added suffice.
  StepProblem n9 = problem(StepGoal::allreduce, 9, 2, 2, Content::running_sum_add);
  StepSearch s9 = find_schedule(n9, kBudgetMs);
  ASSERT_EQ(s9.answer, Existence::exists);
  EXPECT_EQ(replay_step_schedule(n9, s9.schedule), std::nullopt);
}

TEST(StepLowerBounds, RingNeighboursNeedTheDiameter) {
  // Only r -> r+-1: information travels one hop per step, so p = 6 needs
  // floor(p/2) = 3 steps even with two ports.
  StepProblem P = problem(StepGoal::allreduce, 6, 2, 2);
  P.model.topology = Topology::ring_neighbours;
  EXPECT_EQ(find_schedule(P, kBudgetMs).answer, Existence::impossible);
  P.steps = 3;
  StepSearch s = find_schedule(P, kBudgetMs);
  ASSERT_EQ(s.answer, Existence::exists);
  EXPECT_EQ(replay_step_schedule(P, s.schedule), std::nullopt);
}

// The replay rejects every broken rule (mutations of a found schedule).
TEST(StepLowerBounds, ReplayRejectsBrokenSchedules) {
  StepProblem P = problem(StepGoal::allreduce, 4, 2, 1, Content::running_sum);
  StepSearch s = find_schedule(P, kBudgetMs);
  ASSERT_EQ(s.answer, Existence::exists);
  ASSERT_EQ(replay_step_schedule(P, s.schedule), std::nullopt);
  {  // drop a message: someone ends incomplete
    auto m = s.schedule;
    m.pop_back();
    EXPECT_NE(replay_step_schedule(P, m), std::nullopt);
  }
  {  // a second message into the same rank in one step: ports
    auto m = s.schedule;
    StepMessage extra = m.front();
    extra.src = (extra.dst + 2) % 4 == extra.src ? (extra.dst + 3) % 4 : (extra.dst + 2) % 4;
    extra.items = {extra.src};
    m.push_back(extra);
    auto why = replay_step_schedule(P, m);
    ASSERT_NE(why, std::nullopt);
  }
  {  // step 2 re-sends a step-1 message: part of a running sum, or a double count
    auto m = s.schedule;
    StepMessage again = m.front();
    again.step = 2;
    m.push_back(again);
    EXPECT_NE(replay_step_schedule(P, m), std::nullopt);
  }
  {  // replacing the accumulator is a running_sum move, not a running_sum_add one
    StepProblem A = P;
    A.model.content = Content::running_sum_add;
    auto m = s.schedule;
    m.back().replace = true;
    auto why = replay_step_schedule(A, m);
    ASSERT_NE(why, std::nullopt);
    EXPECT_NE(why->find("replace"), std::string::npos) << *why;
  }
  {  // an item the sender does not hold
    auto m = s.schedule;
    m.front().items = {(m.front().src + 1) % 4};
    EXPECT_NE(replay_step_schedule(P, m), std::nullopt);
  }
  {  // the knowledge model forgives duplicates, exactly-once does not
    StepProblem K = P;
    K.model.content = Content::knowledge;
    std::vector<StepMessage> twice = {{1, 0, 1, {0}, false}, {1, 1, 0, {1}, false},
                                      {2, 0, 1, {0, 1}, false}, {2, 1, 0, {0, 1}, false}};
    StepProblem two = K;
    two.p = 2;
    EXPECT_EQ(replay_step_schedule(two, twice), std::nullopt);
    two.model.content = Content::running_sum;
    EXPECT_NE(replay_step_schedule(two, twice), std::nullopt);
  }
}

// Every schedule Z3 finds in the exactly-once models replays without Z3, so
// no valid model is ever reported as an encoding bug. Regression: the
// running-sum encoding let a rank "replace" its accumulator in a step in
// which it received nothing (K false, no incoming message), i.e. drop it; a
// later message from that rank then carried less than the replay's
// accumulator (and a message of the empty sum was not listed at all, so its
// receiver's replace was lost). p = 3, 4 steps, two ports came back as
// "rank 0 gets item 0 twice (exactly-once): encoding bug"; four more of these
// sizes did too. All of them are small (the whole sweep takes seconds).
TEST(StepLowerBounds, ExactlyOnceModelsAlwaysReplay) {
  for (Content c : {Content::running_sum, Content::running_sum_add, Content::stored})
    for (uint64_t p = 2; p <= (c == Content::stored ? 6u : 7u); ++p)
      for (int T = 1; T <= 4; ++T)
        for (int k = 1; k <= 2; ++k)
          for (bool one : {false, true}) {
            StepProblem P = problem(StepGoal::allreduce, p, T, k, c);
            P.one_target = one;
            const std::string what = std::string(to_string(c)) + " p=" + std::to_string(p) + " T=" +
                                     std::to_string(T) + " ports=" + std::to_string(k) + (one ? " one-target" : "");
            StepSearch s = find_schedule(P, kBudgetMs);
            ASSERT_NE(s.answer, Existence::unknown) << what << ": " << s.verdict.stats["error"]
                                                    << s.verdict.stats["reason_unknown"];
            if (s.answer == Existence::exists) {
              EXPECT_EQ(replay_step_schedule(P, s.schedule), std::nullopt)
                  << what << ": " << format_step_schedule(P, s.schedule);
            }
          }
}

// The replay still rejects running-sum schedules that break the model, among
// them what the old encoding extracted for p = 3, 4 steps, two ports (rank 1
// dropped its sum in step 1, so 1 -> 0 in step 4 repeats item 0 for rank 0).
TEST(StepLowerBounds, ReplayRejectsCorruptedRunningSumModels) {
  StepProblem P = problem(StepGoal::allreduce, 3, 4, 2, Content::running_sum);
  const std::vector<StepMessage> old_encoding = {
      {1, 0, 2, {0}, false},    {1, 1, 0, {1}, true},     {2, 0, 1, {1}, true},     {2, 2, 0, {0, 2}, true},
      {3, 0, 1, {0, 2}, true},  {3, 1, 2, {1}, true},     {4, 1, 0, {0, 2}, false}, {4, 1, 2, {0, 2}, false},
      {4, 2, 0, {1}, false},    {4, 2, 1, {1}, false}};
  auto why = replay_step_schedule(P, old_encoding);
  ASSERT_NE(why, std::nullopt);
  StepSearch s = find_schedule(P, kBudgetMs);
  ASSERT_EQ(s.answer, Existence::exists) << s.verdict.stats["error"];
  ASSERT_EQ(replay_step_schedule(P, s.schedule), std::nullopt);
  // One accumulator, one decision per rank and step: a receiver cannot add
  // one message and replace with another.
  // Rank 0 replacing by {0,1} + {2} is a valid one-target schedule, adding
  // would count its own 0 twice; the flags must agree.
  StepProblem three = problem(StepGoal::allreduce, 3, 2, 2, Content::running_sum);
  three.one_target = true;
  std::vector<StepMessage> replace_both = {{1, 0, 1, {0}, false}, {2, 1, 0, {0, 1}, true}, {2, 2, 0, {2}, true}};
  EXPECT_EQ(replay_step_schedule(three, replace_both), std::nullopt);
  std::vector<StepMessage> mixed = replace_both;
  mixed.back().replace = false;
  why = replay_step_schedule(three, mixed);
  ASSERT_NE(why, std::nullopt);
  EXPECT_NE(why->find("replace"), std::string::npos) << *why;
  // Every replace flag of a found schedule flipped: rejected (a rank loses
  // its sum, or gets a contribution twice).
  StepProblem four = problem(StepGoal::allreduce, 4, 2, 1, Content::running_sum);
  StepSearch f = find_schedule(four, kBudgetMs);
  ASSERT_EQ(f.answer, Existence::exists);
  ASSERT_EQ(replay_step_schedule(four, f.schedule), std::nullopt);
  for (size_t k = 0; k < f.schedule.size(); ++k) {
    auto m = f.schedule;
    for (StepMessage& x : m)
      if (x.step == m[k].step && x.dst == m[k].dst) x.replace = !x.replace;
    EXPECT_NE(replay_step_schedule(four, m), std::nullopt) << "flipped " << k << ": " << format_step_schedule(four, m);
  }
}

TEST(StepLowerBounds, TinyTimeoutIsUnknown) {
  StepProblem P = problem(StepGoal::allreduce, 16, 3, 1);
  StepSearch s = find_schedule(P, 1);
  EXPECT_EQ(s.answer, Existence::unknown);
  EXPECT_EQ(s.verdict.status, Status::unknown);
  EXPECT_EQ(prove_step_lower_bound(P, 1).status, Status::unknown);
}

TEST(StepLowerBounds, WritesTheQueryAsSmt2) {
  auto dir = std::filesystem::temp_directory_path() / ("slb-smt2-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  StepSearch s = find_schedule(problem(StepGoal::allreduce, 4, 1, 1), kBudgetMs, dir.string());
  EXPECT_EQ(s.answer, Existence::impossible);
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NE(ss.str().find("(check-sat)"), std::string::npos);
    EXPECT_NE(ss.str().find("unsat"), std::string::npos);  // the recorded answer
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(StepLowerBounds, UnsupportedProblemsAreSkipped) {
  StepProblem big = problem(StepGoal::alltoall, 200, 7, 1);
  EXPECT_TRUE(unsupported(big).has_value());
  EXPECT_EQ(find_schedule(big, kBudgetMs).verdict.status, Status::skipped);
  StepProblem wrong = problem(StepGoal::broadcast, 8, 3, 1, Content::running_sum);
  EXPECT_TRUE(unsupported(wrong).has_value());
  EXPECT_EQ(information_bound(StepGoal::broadcast, 8, 2, 3), -1);
}

TEST(StepLowerBounds, RegistryQueryComparesTheClaim) {
  const Query* q = nullptr;
  for (const Query& x : queries())
    if (x.name == "smt-step-lower-bound") q = &x;
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(q->applies_to(test::registered_algorithm("swing"), test::registered_variant("swing", "latency")));
  EXPECT_TRUE(q->applies_to(test::registered_algorithm("traff"), test::registered_variant("traff", "broadcast")));
  EXPECT_FALSE(q->applies_to(test::registered_algorithm("tra2"), test::registered_variant("tra2", "tra2")));
  EXPECT_TRUE(q->unsupported(InstanceParams{64, 0}).has_value());
  EXPECT_FALSE(q->unsupported(InstanceParams{16, 0}).has_value());
  EXPECT_TRUE(q->unsupported_variant(test::registered_algorithm("swing"), test::registered_variant("swing", "latency"), InstanceParams{27, 0}).has_value());
  EXPECT_FALSE(q->unsupported_variant(test::registered_algorithm("trivance"), test::registered_variant("trivance", "latency"), InstanceParams{27, 0}).has_value());
  InstanceParams big{16, 0};
  big.blocks = 8;  // 7 + 4 = 11 steps
  EXPECT_TRUE(q->unsupported_variant(test::registered_algorithm("traff"), test::registered_variant("traff", "broadcast"), big).has_value());
  EXPECT_FALSE(q->unsupported_variant(test::registered_algorithm("swing"), test::registered_variant("swing", "latency"), big).has_value());
  QueryContext ctx;
  Verdict sw = q->run(test::registered_algorithm("swing"), test::registered_variant("swing", "latency"), InstanceParams{8, 0}, ctx);
  EXPECT_EQ(sw.status, Status::holds);
  EXPECT_EQ(sw.stats["claimed_steps"], "3");
  EXPECT_NE(sw.stats["optimal"].find("yes"), std::string::npos);
  Verdict tri = q->run(test::registered_algorithm("trivance"), test::registered_variant("trivance", "latency"), InstanceParams{9, 0}, ctx);
  EXPECT_EQ(tri.status, Status::holds);
  EXPECT_EQ(tri.stats["bound"], "2");
  Verdict tri27 = q->run(test::registered_algorithm("trivance"), test::registered_variant("trivance", "latency"), InstanceParams{27, 0}, ctx);  // no 2-step two-port schedule
  EXPECT_EQ(tri27.status, Status::holds);
  EXPECT_EQ(tri27.stats["bound"], "3");
  EXPECT_NE(tri27.stats["optimal"].find("yes"), std::string::npos);
  Verdict bw = q->run(test::registered_algorithm("swing"), test::registered_variant("swing", "bandwidth"), InstanceParams{8, 0}, ctx);  // 2 log2 p: bandwidth-optimal, not step-optimal
  EXPECT_EQ(bw.status, Status::holds);
  EXPECT_NE(bw.stats["optimal"].find("exceeds the bound by 3"), std::string::npos);
  InstanceParams tp{6, 0};
  tp.blocks = 2;
  Verdict tr = q->run(test::registered_algorithm("traff"), test::registered_variant("traff", "broadcast"), tp, ctx);
  EXPECT_EQ(tr.status, Status::holds);
  EXPECT_EQ(tr.stats["bound"], "4");
}

// The size limit of the registry query is the schedule's own port model
// (Schedule::ports()), the one the query then proves, not a guess from the
// algorithm's name: p <= 16 for one port, p <= 27 for two or more.
// Regression: swing paper-odd (two ports: the extra node) and trivance-torus
// (2 per dimension) were limited as one-port schedules, so p = 17..27 was
// refused as "beyond the one-port step-bound query" although the query that
// runs is a two-port one (p = 19: ceil(log3 19) = 3 steps, 2 refuted).
TEST(StepLowerBounds, RegistrySizeLimitUsesTheSchedulesPorts) {
  const Query* q = nullptr;
  for (const Query& x : queries())
    if (x.name == "smt-step-lower-bound") q = &x;
  ASSERT_NE(q, nullptr);
  QueryContext ctx;
  auto accepted = [&](const std::string& a, const std::string& v, const InstanceParams& ip) {
    return !q->unsupported(ip).has_value() && !q->unsupported_variant(test::registered_algorithm(a), test::registered_variant(a, v), ip).has_value();
  };
  // One-port schedules: 16 is the limit.
  EXPECT_TRUE(accepted("swing", "latency", InstanceParams{16, 0}));
  EXPECT_FALSE(accepted("swing", "latency", InstanceParams{17, 0}));
  EXPECT_FALSE(accepted("recursive-doubling", "latency", InstanceParams{19, 0}));
  // Two-port schedules: 27.
  EXPECT_TRUE(accepted("trivance", "latency", InstanceParams{27, 0}));
  EXPECT_TRUE(accepted("bruck-allreduce", "latency", InstanceParams{25, 0}));
  EXPECT_FALSE(accepted("trivance", "latency", InstanceParams{28, 0}));
  InstanceParams odd{19, 0};
  ASSERT_EQ(find_algorithm("swing")->find_variant("paper-odd")->make(odd)->ports(), 2);
  EXPECT_TRUE(accepted("swing", "paper-odd", odd));
  Verdict v = q->run(test::registered_algorithm("swing"), test::registered_variant("swing", "paper-odd"), odd, ctx);
  EXPECT_EQ(v.status, Status::holds) << v.stats["error"] << v.stats["reason"];
  EXPECT_EQ(v.stats["bound"], "3");
  EXPECT_NE(v.stats["model"].find("2-port"), std::string::npos) << v.stats["model"];
  InstanceParams ring{19, 0};
  ring.dims = {19};
  ASSERT_EQ(find_algorithm("trivance-torus")->find_variant("latency")->make(ring)->ports(), 2);
  EXPECT_TRUE(accepted("trivance-torus", "latency", ring));
  Verdict t = q->run(test::registered_algorithm("trivance-torus"), test::registered_variant("trivance-torus", "latency"), ring, ctx);
  EXPECT_EQ(t.status, Status::holds) << t.stats["error"] << t.stats["reason"];
  EXPECT_EQ(t.stats["bound"], "3");
  EXPECT_NE(t.stats["model"].find("2-port"), std::string::npos) << t.stats["model"];
  // A torus with more dimensions has more ports (4 for 3x3): still accepted,
  // and proven in its own port model (ceil(log5 9) = 2).
  InstanceParams torus{9, 0};
  torus.dims = {3, 3};
  EXPECT_TRUE(accepted("trivance-torus", "latency", torus));
  Verdict t4 = q->run(test::registered_algorithm("trivance-torus"), test::registered_variant("trivance-torus", "latency"), torus, ctx);
  EXPECT_EQ(t4.status, Status::holds) << t4.stats["error"] << t4.stats["reason"];
  EXPECT_NE(t4.stats["model"].find("4-port"), std::string::npos) << t4.stats["model"];
  // The limit message names the port model it applied.
  auto why = q->unsupported_variant(test::registered_algorithm("swing"), test::registered_variant("swing", "latency"), InstanceParams{17, 0});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("one-port"), std::string::npos) << *why;
  // An instance the variant itself excludes is left to run(), which skips it.
  EXPECT_FALSE(q->unsupported_variant(test::registered_algorithm("swing"), test::registered_variant("swing", "paper-odd"), InstanceParams{18, 0}).has_value());
  EXPECT_EQ(q->run(test::registered_algorithm("swing"), test::registered_variant("swing", "paper-odd"), InstanceParams{18, 0}, ctx).status, Status::skipped);
}

}  // namespace
}  // namespace collcheck::smt
