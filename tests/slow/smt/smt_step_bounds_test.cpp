// The larger step-bound proofs (smt/step_lower_bounds.hpp), minutes each on a
// loaded machine: excluded from the default suite (label slow).
//   - allreduce, one port, p = 16: no 3-step schedule (log2 p = 4), in the
//     most permissive (knowledge) model, all ranks required;
//   - two-port allreduce with one running sum per rank and
//     exactly-once: no 2-step schedule for n = 8 (ceil(log3 8) = 2), while
//     with stored contributions one exists (replayed);
//   - Traff's n-block broadcast, p = 8, n = 8: no 9-step schedule.
#include <gtest/gtest.h>

#include "smt/step_lower_bounds.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 900000;

TEST(SmtStepBoundsSlow, AllreduceOnePortP16) {
  StepProblem P;
  P.goal = StepGoal::allreduce;
  P.p = 16;
  P.model.ports = 1;
  Verdict v = prove_step_lower_bound(P, kBudgetMs);
  EXPECT_EQ(v.status, Status::holds) << v.stats["reason_unknown"];
  EXPECT_EQ(v.stats["bound"], "4");
}

TEST(SmtStepBoundsSlow, TwoPortRunningSumN8IsImpossibleStoredIsNot) {
  StepProblem P;
  P.goal = StepGoal::allreduce;
  P.p = 8;
  P.steps = 2;
  P.model.ports = 2;
  P.model.content = Content::running_sum;
  EXPECT_EQ(find_schedule(P, kBudgetMs).answer, Existence::impossible);
  P.model.content = Content::stored;
  StepSearch s = find_schedule(P, kBudgetMs);
  ASSERT_EQ(s.answer, Existence::exists);
  EXPECT_EQ(replay_step_schedule(P, s.schedule), std::nullopt);
}

TEST(SmtStepBoundsSlow, BroadcastP8EightBlocks) {
  StepProblem P;
  P.goal = StepGoal::broadcast;
  P.p = 8;
  P.blocks = 8;
  P.model.ports = 1;
  Verdict v = prove_step_lower_bound(P, kBudgetMs);  // n-1+log2 p = 10: no 9-step schedule
  EXPECT_EQ(v.status, Status::holds) << v.stats["reason_unknown"];
  EXPECT_EQ(v.stats["bound"], "10");
}

}  // namespace
}  // namespace collcheck::smt
