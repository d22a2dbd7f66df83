// Two reduces of one block into rank 0 in one step (Trivance's joint
// reduction; properties/flow/flow_rotation.hpp): the generic checker applies
// them in the order of the peers' rank numbers, which the group does not
// keep, so where they overlap the NUMBER of exactly-once reports depends on
// the order. The schedule below makes that happen: at step 1 rank x reduces
// rank x+1's and rank x+2's partial sums {x, x+1} and {x+1, x+2} into its
// own {x-1, x}. In the order +1, +2 that is two reports; rank p-2 receives
// from p-1 and 0 and takes rank 0's first, which is one report. Enumeration
// counts 2p - 1.
//   * p-bit sets and runs of ranks under the 1D translations recount per
//     order: the quotient decides it, with enumeration's count, in both;
//   * boxes (a torus group) judge rank 0's order only: they must decline
//     the step, not report 2p;
//   * without overlap (Trivance's joint reduction at distances 1 and 3)
//     nothing depends on the order and runs and boxes decide it.
#include <gtest/gtest.h>

#include "properties/flow/flow_rotation.hpp"
#include "properties/instance_checker.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

class JointReduce final : public EquivariantSchedule {
 public:
  // second: 2, the overlapping shape above; 3, Trivance's joint reduction
  // at distances 1 and 3 (no overlap: windows of 3 then 9 ranks).
  JointReduce(uint64_t p, bool torus, uint64_t second)
      : spec_{Collective::allreduce, p, 1, 0},
        action_(torus ? GroupAction(SymmetryGroup::torus_translations, BlockAction::fixed, spec_, 0,
                                    {static_cast<uint32_t>(p)})
                      : GroupAction(SymmetryGroup::translations, BlockAction::fixed, spec_)),
        second_(second) {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2; }
  void representative_step(int s, RankStep& out) const override {
    out.clear();
    const uint64_t p = spec_.p;
    auto at = [p](int64_t d) { return static_cast<Rank>((static_cast<int64_t>(p) + d % static_cast<int64_t>(p)) % p); };
    if (second_ == 2) {  // the overlapping shape
      if (s == 0) {
        out.add_send(at(1), Combine::reduce).blocks.insert(0);
        out.add_recv(at(-1), Combine::reduce).blocks.insert(0);
        return;
      }
      out.add_send(at(-1), Combine::reduce).blocks.insert(0);
      out.add_send(at(-2), Combine::reduce).blocks.insert(0);
      out.add_recv(at(1), Combine::reduce).blocks.insert(0);
      out.add_recv(at(2), Combine::reduce).blocks.insert(0);
      return;
    }
    // Trivance's joint reduction at distances 1, then 3: windows of 3, then 9.
    const int64_t d = s == 0 ? 1 : 3;
    for (int64_t x : {d, -d}) {
      out.add_send(at(x), Combine::reduce).blocks.insert(0);
      out.add_recv(at(x), Combine::reduce).blocks.insert(0);
    }
  }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return "a test schedule, equivariant by construction"; }

 private:
  CollectiveSpec spec_;
  GroupAction action_;
  uint64_t second_;
};

using test::by_quotient;

InstanceCheck check(const Schedule& s, bool symmetry) { return test::check_exact(s, nullptr, {}, symmetry); }

uint64_t exactly_once_violations(const InstanceCheck& c) {
  for (const Verdict& v : c.verdicts)
    if (v.property == "exactly-once") return v.violations;
  return 0;
}

TEST(QuotientOrder, TheEnumeratedCountDependsOnTheOrder) {
  for (uint64_t p : {7u, 8u, 12u}) {
    const InstanceCheck e = check(JointReduce(p, false, 2), false);
    EXPECT_EQ(exactly_once_violations(e), 2 * p - 1) << p;
  }
}

TEST(QuotientOrder, PBitSetsAndRunsRecountPerOrder) {
  for (uint64_t p : {7u, 8u, 12u}) {
    JointReduce s(p, false, 2);
    const InstanceCheck q = check(s, true), e = check(s, false);
    ASSERT_TRUE(by_quotient(q)) << p;
    test::expect_same_verdicts(q, e, "p=" + std::to_string(p));
    for (auto cells : {flow::QuotientCells::bits, flow::QuotientCells::runs}) {
      std::string why;
      auto r = flow::run_quotient(s, {}, &why, cells);
      ASSERT_TRUE(r) << p << ": " << why;
      for (const Verdict& v : r->verdicts)
        if (v.property == "exactly-once") {
          EXPECT_EQ(v.violations, 2 * p - 1) << p;
        }
    }
  }
}

TEST(QuotientOrder, BoxesDeclineAnOrderDependentStep) {
  for (uint64_t p : {7u, 8u, 12u}) {
    JointReduce torus(p, true, 2);
    const InstanceCheck q = check(torus, true), e = check(torus, false);
    EXPECT_FALSE(by_quotient(q)) << p;
    ASSERT_EQ(q.stats.count("quotient_declined"), 1u);
    EXPECT_NE(q.stats.at("quotient_declined").find("depends on the order"), std::string::npos);
    EXPECT_EQ(exactly_once_violations(q), 2 * p - 1);
    test::expect_same_verdicts(q, e, "torus p=" + std::to_string(p));
  }
}

TEST(QuotientOrder, WithoutOverlapRunsAndBoxesDecide) {
  for (uint64_t p : {9u, 27u}) {  // 9: holds; 27: the postcondition fails (9 of 27), in any order
    std::string why;
    auto bits = flow::run_quotient(JointReduce(p, false, 3), {}, &why, flow::QuotientCells::bits);
    auto runs = flow::run_quotient(JointReduce(p, false, 3), {}, &why, flow::QuotientCells::runs);
    ASSERT_TRUE(bits && runs) << why;
    for (size_t i = 0; i < bits->verdicts.size(); ++i)
      test::expect_same_verdict(bits->verdicts[i], runs->verdicts[i], "slot " + std::to_string(i));
    JointReduce torus(p, true, 3);
    const InstanceCheck q = check(torus, true), e = check(torus, false);
    EXPECT_TRUE(by_quotient(q)) << p << (q.stats.count("quotient_declined") ? q.stats.at("quotient_declined") : "");
    test::expect_same_verdicts(q, e, "torus p=" + std::to_string(p));
  }
}

}  // namespace
}  // namespace collcheck
