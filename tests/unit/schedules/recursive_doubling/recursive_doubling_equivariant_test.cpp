// Recursive doubling (latency) and Rabenseifner (bandwidth) as certified
// schedules (schedules/recursive_doubling/recursive_doubling.cpp): the cores
// on p' = 2^k ranks are equivariant under x -> x XOR r, the translations of
// the torus 2 x .. x 2, and their folds are decided as compositions
// (properties/flow/fold_composition.hpp) with the core by the certified
// quotient:
//   * faithfulness: every rank's step of each wrapped core equals the direct
//     generator's, for every k <= 10;
//   * a circulant rule (peer r + 2^s) wrapped as XOR-equivariant is told
//     apart by the same comparison;
//   * every p <= 130 of both variants is decided by the quotient (p a power
//     of two) or the composition (the others), with enumeration's verdicts,
//     checks and minimal counterexamples;
//   * a defect in rank 0's program is found through the quotient, and a fold
//     over that defective core is never composed (enumeration refutes it).
#include <gtest/gtest.h>

#include <memory>

#include "properties/flow/fold_composition.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/fold.hpp"
#include "schedules/recursive_doubling/recursive_doubling.hpp"
#include "schedules/translation_equivariant.hpp"
#include "tests/support/dropped_block.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/same_schedule.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

std::vector<uint32_t> hypercube(uint64_t p) {
  std::vector<uint32_t> dims;
  for (uint64_t x = p; x > 1; x /= 2) dims.push_back(2);
  return dims;
}

TEST(RecursiveDoublingEquivariant, EveryRankIsTheDirectGeneratorsUpTo1024) {
  for (uint64_t p = 2; p <= 1024; p *= 2) {
    test::expect_equal_everywhere(*make_recursive_doubling_latency_direct(p), *make_recursive_doubling_latency(p),
                                  "latency p=" + std::to_string(p));
    test::expect_equal_everywhere(*make_rabenseifner_direct(p), *make_rabenseifner(p),
                                  "rabenseifner p=" + std::to_string(p));
    EXPECT_TRUE(dynamic_cast<const EquivariantSchedule*>(make_recursive_doubling_latency(p).get())) << p;
    EXPECT_TRUE(dynamic_cast<const EquivariantSchedule*>(make_rabenseifner(p).get())) << p;
  }
}

// Whole-vector exchange with r + 2^s (mod p): circulant, not XOR-equivariant.
class CirculantDoubling final : public Schedule {
 public:
  explicit CirculantDoubling(uint64_t p) : spec_{Collective::allreduce, p, 1, 0} {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return static_cast<int>(hypercube(spec_.p).size()); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    const uint64_t d = uint64_t{1} << s;
    out.sends.push_back({static_cast<Rank>((r + d) % spec_.p), BlockSet::single(0), Combine::reduce});
    out.recvs.push_back({static_cast<Rank>((r + spec_.p - d) % spec_.p), BlockSet::single(0), Combine::reduce});
  }

 private:
  CollectiveSpec spec_;
};

TEST(RecursiveDoublingEquivariant, ACirculantRuleWrappedAsXorIsToldApart) {
  for (uint64_t p : {4u, 8u, 64u}) {
    auto wrapped = torus_translation_equivariant(std::make_unique<CirculantDoubling>(p), BlockAction::fixed,
                                                 hypercube(p), "wrongly claimed");
    EXPECT_TRUE(test::differ_somewhere(CirculantDoubling(p), *wrapped)) << p;
  }
}

TEST(RecursiveDoublingEquivariant, EveryPTo130IsDecidedWithEnumerationsVerdicts) {
  for (const char* name : {"latency", "bandwidth"}) {
    const VariantInfo& v = test::registered_variant("recursive-doubling", name);
    for (uint64_t p = 2; p <= 130; ++p) {
      CheckOptions sym, enu;
      enu.use_symmetry = false;
      const InstanceCheck q = test::check_variant(v, p, sym), e = test::check_variant(v, p, enu);
      const std::string what = std::string(name) + " p=" + std::to_string(p);
      ASSERT_TRUE(q.stats.count("method")) << what << ": " << test::declined(q);
      const std::string& method = q.stats.at("method");
      const bool pow2 = (p & (p - 1)) == 0;
      EXPECT_EQ(method.rfind(pow2 ? "quotient: torus-translations on the hypercube" : "composition: fold of ", 0), 0u)
          << what << ": " << method;
      if (!pow2) {
        EXPECT_NE(method.find("core (p' ranks) by the certified quotient"), std::string::npos) << what;
      }
      EXPECT_FALSE(e.stats.count("method")) << what;
      test::expect_same_verdicts(q, e, what);
      for (const Verdict& x : q.verdicts) EXPECT_EQ(x.status, Status::holds) << what << " " << x.property;
    }
  }
}

TEST(RecursiveDoublingEquivariant, ADefectInRankZeroIsFoundAndItsFoldIsNotComposed) {
  int found_by_quotient = 0;
  for (bool bandwidth : {false, true}) {
    for (uint64_t pp : {4u, 16u}) {
      auto direct = bandwidth ? make_rabenseifner_direct(pp) : make_recursive_doubling_latency_direct(pp);
      CollectiveSpec spec = direct->spec();
      GroupAction g(SymmetryGroup::torus_translations, bandwidth ? BlockAction::as_ranks : BlockAction::fixed, spec,
                    0, hypercube(pp));
      const std::string what = std::string(bandwidth ? "rabenseifner" : "latency") + " p'=" + std::to_string(pp);
      {
        test::DroppedBlock bad(std::move(direct), g, 0);
        const InstanceCheck q = test::check_exact(bad, nullptr, StepHook{}, true);
        const InstanceCheck e = test::check_exact(bad, nullptr, StepHook{}, false);
        EXPECT_EQ(combined_status(q.verdicts), Status::violated) << what;
        test::expect_same_verdicts(q, e, what);
        if (test::by_quotient(q)) {
          ++found_by_quotient;
          // A quotient's refutation at small p is rechecked by enumeration and agrees.
          EXPECT_TRUE(q.stats.count("quotient_rechecked")) << what;
        } else {
          // Rabenseifner's defective halves: a union that is not a box; the
          // quotient declines (never approximates) and enumeration decides.
          EXPECT_NE(test::declined(q).find("not a product of per-dimension sets"), std::string::npos)
              << what << ": " << test::declined(q);
        }
      }
      // The same defective core under a fold of one extra rank: declined, then enumerated.
      auto core = std::make_unique<test::DroppedBlock>(
          bandwidth ? make_rabenseifner_direct(pp) : make_recursive_doubling_latency_direct(pp), g, 0);
      FoldedSchedule f(pp + 1, std::move(core));
      const InstanceCheck c = test::check_exact(f, nullptr, StepHook{}, true);
      ASSERT_TRUE(c.stats.count("quotient_declined")) << what;
      EXPECT_NE(c.stats.at("quotient_declined").find("the core of " + std::to_string(pp) + " ranks"),
                std::string::npos)
          << c.stats.at("quotient_declined");
      EXPECT_FALSE(c.stats.count("method")) << what;
      EXPECT_EQ(combined_status(c.verdicts), Status::violated) << what;
    }
  }
  EXPECT_GE(found_by_quotient, 2);  // latency's, at both p'
}

}  // namespace
}  // namespace collcheck
