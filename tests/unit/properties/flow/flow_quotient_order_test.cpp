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
// Two copies of one block into rank 0 in one step (TwoCopies below): the
// last one applied wins, so the value depends on the order unless the two
// copies carry the same value. Same value (every rank complete, then both
// neighbours copy their block in): the quotient decides it, with p-bit sets,
// runs and boxes, as enumeration does (the receive race is reported either
// way). Different values (each rank's pair of contributions): it declines,
// and enumeration decides.
#include <gtest/gtest.h>

#include "properties/flow/flow_rotation.hpp"
#include "properties/instance_checker.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

// A one-block allreduce under the translations of the ring (or of a 1D
// torus: boxes), blocks fixed; at(d) is rank 0's peer at offset d.
class OneBlockSchedule : public EquivariantSchedule {
 public:
  OneBlockSchedule(uint64_t p, bool torus)
      : spec_{Collective::allreduce, p, 1, 0},
        action_(torus ? GroupAction(SymmetryGroup::torus_translations, BlockAction::fixed, spec_, 0,
                                    {static_cast<uint32_t>(p)})
                      : GroupAction(SymmetryGroup::translations, BlockAction::fixed, spec_)) {}
  const CollectiveSpec& spec() const override { return spec_; }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return "a test schedule, equivariant by construction"; }

 protected:
  Rank at(int64_t d) const {
    const auto p = static_cast<int64_t>(spec_.p);
    return static_cast<Rank>((p + d % p) % p);
  }
  CollectiveSpec spec_;
  GroupAction action_;
};

class JointReduce final : public OneBlockSchedule {
 public:
  // second: 2, the overlapping shape above; 3, Trivance's joint reduction
  // at distances 1 and 3 (no overlap: windows of 3 then 9 ranks).
  JointReduce(uint64_t p, bool torus, uint64_t second) : OneBlockSchedule(p, torus), second_(second) {}
  int num_steps() const override { return 2; }
  void representative_step(int s, RankStep& out) const override {
    out.clear();
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

 private:
  uint64_t second_;
};

// Step 0: every rank reduces block 0 into every other rank (p - 1 sends and
// receives: every rank then holds all p contributions) when `equal`; else
// into its right neighbour only (rank x then holds {x - 1, x}). Step 1: each
// rank copies block 0 to both neighbours, so rank x receives block 0 twice:
// equal values (complete) or different ones ({x - 2, x - 1} and {x, x + 1}).
// The two differ only by a rotation (both are a neighbour's block 0), so the
// step's reports do not tell the orders apart; a third step (different
// values only) does: rank x reduces rank x + 1's block into its own. By rank
// number rank 0 took its left neighbour's value {p - 2, p - 1} and rank 1 its
// right one's {1, 2}: nothing counted twice at rank 0. Rank 1 as the image
// of rank 0 would hold {p - 1, 0}, and p - 1 would count twice.
class TwoCopies final : public OneBlockSchedule {
 public:
  TwoCopies(uint64_t p, bool torus, bool equal) : OneBlockSchedule(p, torus), equal_(equal) {}
  int num_steps() const override { return equal_ ? 2 : 3; }
  int ports() const override { return static_cast<int>(std::max<uint64_t>(2, spec_.p)); }
  void representative_step(int s, RankStep& out) const override {
    out.clear();
    if (s == 0) {
      for (int64_t d = 1; d < (equal_ ? static_cast<int64_t>(spec_.p) : 2); ++d) {
        out.add_send(at(d), Combine::reduce).blocks.insert(0);
        out.add_recv(at(-d), Combine::reduce).blocks.insert(0);
      }
      return;
    }
    if (s == 2) {
      out.add_send(at(-1), Combine::reduce).blocks.insert(0);
      out.add_recv(at(1), Combine::reduce).blocks.insert(0);
      return;
    }
    for (int64_t d : {1, -1}) {
      out.add_send(at(d), Combine::copy).blocks.insert(0);
      out.add_recv(at(d), Combine::copy).blocks.insert(0);
    }
  }

 private:
  bool equal_;
};

using test::by_quotient;

InstanceCheck check(const Schedule& s, bool symmetry) { return test::check_exact(s, nullptr, {}, symmetry); }

// The quotient's own verdicts: a refutation is not re-checked (and replaced)
// by enumeration.
InstanceCheck check_unrechecked(const Schedule& s, bool symmetry) {
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.use_symmetry = symmetry;
  o.recheck_max_p = 0;
  return check_schedule(s, nullptr, {}, o);
}

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

TEST(QuotientOrder, EqualCopiesOfOneBlockAreDecided) {
  for (uint64_t p : {3u, 4u, 5u, 8u, 12u}) {
    const std::string what = "p=" + std::to_string(p);
    const InstanceCheck e = check(TwoCopies(p, false, true), false);
    // Not vacuous: the race is reported, and the copies leave every rank
    // complete in any order.
    bool race = false;
    for (const Verdict& v : e.verdicts) {
      if (v.property == "causality") race = v.violations == p;
      if (v.property == "postcondition") {
        EXPECT_EQ(v.status, Status::holds) << what;
      }
    }
    EXPECT_TRUE(race) << what;
    const InstanceCheck q = check_unrechecked(TwoCopies(p, false, true), true);
    EXPECT_TRUE(by_quotient(q)) << what << ": " << test::declined(q);
    test::expect_same_verdicts(q, e, what);
    TwoCopies s(p, false, true);
    for (auto cells : {flow::QuotientCells::bits, flow::QuotientCells::runs}) {
      std::string why;
      auto r = flow::run_quotient(s, {}, &why, cells);
      ASSERT_TRUE(r) << what << ": " << why;
      for (size_t i = 0; i < r->verdicts.size(); ++i)
        for (const Verdict& v : e.verdicts)
          if (v.property == r->verdicts[i].property) test::expect_same_verdict(r->verdicts[i], v, what);
    }
    const InstanceCheck qt = check_unrechecked(TwoCopies(p, true, true), true), et = check(TwoCopies(p, true, true), false);
    EXPECT_TRUE(by_quotient(qt)) << "torus " << what << ": " << test::declined(qt);
    test::expect_same_verdicts(qt, et, "torus " + what);
  }
}

TEST(QuotientOrder, CopiesOfDifferentValuesDecline) {
  for (uint64_t p : {3u, 4u, 5u, 8u, 12u}) {
    const std::string what = "p=" + std::to_string(p);
    for (bool torus : {false, true}) {
      TwoCopies s(p, torus, false);
      const InstanceCheck q = check_unrechecked(s, true), e = check(s, false);
      EXPECT_FALSE(by_quotient(q)) << what;
      EXPECT_NE(test::declined(q).find("copies of two different values"), std::string::npos) << test::declined(q);
      test::expect_same_verdicts(q, e, what);
      // The last copy applied wins: rank x keeps a pair, never all p.
      for (const Verdict& v : e.verdicts)
        if (v.property == "postcondition") {
          EXPECT_EQ(v.status, Status::violated) << what;
        }
    }
    std::string why;
    EXPECT_FALSE(flow::run_quotient(TwoCopies(p, false, false), {}, &why, flow::QuotientCells::runs)) << what;
  }
}

// Trivance's paper-bandwidth readings (no de-duplication) receive one
// block from both peers by copies in their last steps at every p that is not
// a power of three, and the two copies carry the same value: the quotient
// decides them (it declined them before, and they were enumerated), with
// enumeration's verdicts, counterexamples and counts. Its own verdicts are
// compared (no re-check by enumeration). Where a copy meets a reduce of the
// same block, or both peers are one rank (p = 2), it still declines and the
// instance is enumerated: p = 2, 14 and 122 up to 200.
TEST(QuotientOrder, TrivancePaperBandwidthReadingsAreDecidedAsEnumerated) {
  for (const char* name : {"paper-bandwidth", "paper-bandwidth-own-stays"}) {
    const VariantInfo& v = test::registered_variant("trivance", name);
    std::vector<uint64_t> declined;
    int violated = 0;
    for (uint64_t p = 1; p <= 200; ++p) {
      const std::string what = std::string(name) + " p=" + std::to_string(p);
      CheckOptions o;
      o.recheck_max_p = 0;
      const InstanceCheck q = test::check_variant(v, p, o), e = test::check_variant(v, p, false, false);
      EXPECT_FALSE(by_quotient(e)) << what;
      test::expect_same_verdicts(q, e, what);
      violated += combined_status(q.verdicts) == Status::violated;
      if (by_quotient(q)) continue;
      declined.push_back(p);
      EXPECT_EQ(test::declined(q), "rank 0 receives one block twice in one step with a copy involved") << what;
    }
    EXPECT_EQ(declined, (std::vector<uint64_t>{2, 14, 122})) << name;
    EXPECT_EQ(violated, 200 - 5) << name;  // all but 1, 3, 9, 27, 81
  }
}

}  // namespace
}  // namespace collcheck
