// TRA2 (schedules/tra/tra2.hpp) under the torus translations of N x Q (node
// ni, local index gp; rank ni*Q + gp row-major) with blocks as (source,
// destination) pairs (schedules/symmetry.hpp):
//   * the group acts regularly on ranks and pairs, g_r^{-1} inverts g_r, and
//     a block set maps to the set of its blocks' images;
//   * faithfulness: every rank's step of the registry's tra2 equals the
//     direct generator's for every P <= 64, every Q dividing P and every
//     radix pair (r1, r2), and for a few larger shapes at their defaults;
//   * the printed reading (paper-literal) is not circulant: it is left
//     unwrapped, and wrapping it by hand is told apart by the same comparison;
//   * the quotient's verdicts equal enumeration's (both readings' schedules
//     where wrapped), rank 0's held cells only;
//   * a defect in rank 0's step is found through the quotient as enumeration
//     finds it.
#include <gtest/gtest.h>

#include "properties/flow/flow_rotation.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra2.hpp"
#include "schedules/translation_equivariant.hpp"
#include "tests/support/alltoall.hpp"
#include "tests/support/dropped_block.hpp"
#include "tests/support/group_action_check.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/same_schedule.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

using test::by_quotient;

InstanceParams tra2_params(uint64_t p, uint64_t q, uint64_t r1, uint64_t r2) {
  InstanceParams ip;
  ip.p = p;
  ip.ppn = q;
  ip.radix = r1;
  ip.radix2 = r2;
  return ip;
}

// Every (P, Q, r1, r2) with P <= max_p (r1 = 0 / r2 = 0: the phase is empty).
template <class F>
void for_each_shape(uint64_t max_p, F&& f) {
  test::for_each_tra2_shape(1, max_p, std::forward<F>(f));
}

std::string label(uint64_t p, uint64_t q, uint64_t r1, uint64_t r2) {
  return "P=" + std::to_string(p) + " Q=" + std::to_string(q) + " r1=" + std::to_string(r1) +
         " r2=" + std::to_string(r2);
}

TEST(Tra2Translations, PairsOnTheTorusActRegularlyAndInvert) {
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{2, 3}, {4, 4}, {3, 5}, {1, 6}, {6, 1}}) {
    const uint64_t p = uint64_t{dims[0]} * dims[1];
    CollectiveSpec spec{Collective::alltoall, p, p * p, 0};
    const GroupAction g(SymmetryGroup::torus_translations, BlockAction::pairs, spec, 0, dims);
    for (Rank r = 0; r < p; ++r) {
      test::expect_regular_element(g, r, "pairs on " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]));
    }
  }
  // Pairs need an all-to-all of p * p blocks, and no reflections.
  CollectiveSpec a2a{Collective::alltoall, 6, 36, 0};
  EXPECT_FALSE(GroupAction::invalid(SymmetryGroup::torus_translations, BlockAction::pairs, a2a, 0, {2, 3}));
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::torus_swing_dihedral, BlockAction::pairs, a2a, 0, {2, 3}));
  CollectiveSpec ar{Collective::allreduce, 6, 36, 0};
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::torus_translations, BlockAction::pairs, ar, 0, {2, 3}));
}

TEST(Tra2Translations, EveryRankIsTheDirectGeneratorsForEveryShapeAndRadixTo64) {
  const VariantInfo& v = test::registered_variant("tra2", "tra2");
  int compared = 0;
  for_each_shape(64, [&](uint64_t p, uint64_t q, uint64_t r1, uint64_t r2) {
    const InstanceParams ip = tra2_params(p, q, r1, r2);
    ASSERT_FALSE(v.violates(ip)) << label(p, q, r1, r2);
    const auto s = v.make(ip);
    const auto* eq = dynamic_cast<const TranslationEquivariant*>(s.get());
    ASSERT_NE(eq, nullptr) << label(p, q, r1, r2);
    ASSERT_EQ(eq->action().group(), SymmetryGroup::torus_translations);
    ASSERT_EQ(eq->action().dims(), (std::vector<uint32_t>{static_cast<uint32_t>(p / q), static_cast<uint32_t>(q)}));
    test::expect_equal_everywhere(eq->direct(), *eq, label(p, q, r1, r2));
    ++compared;
  });
  // Larger shapes at the default radices.
  for (const auto& [p, q] : std::vector<std::pair<uint64_t, uint64_t>>{{96, 8}, {100, 10}, {128, 16}, {210, 7}}) {
    const auto s = v.make(tra2_params(p, q, 0, 0));
    const auto* eq = dynamic_cast<const TranslationEquivariant*>(s.get());
    ASSERT_NE(eq, nullptr);
    test::expect_equal_everywhere(eq->direct(), *eq, label(p, q, 0, 0));
    ++compared;
  }
  EXPECT_GT(compared, 1000);
}

TEST(Tra2Translations, ThePrintedReadingIsNotCirculantAndStaysEnumerated) {
  const VariantInfo& literal = test::registered_variant("tra2", "paper-literal");
  EXPECT_EQ(literal.symmetry, SymmetryGroup::undeclared);
  int told = 0;
  for (const auto& [p, q] : std::vector<std::pair<uint64_t, uint64_t>>{{9, 3}, {12, 3}, {12, 4}, {16, 4}}) {
    const InstanceParams ip = tra2_params(p, q, 2, 2);
    EXPECT_EQ(dynamic_cast<const EquivariantSchedule*>(literal.make(ip).get()), nullptr);
    const std::vector<uint32_t> dims{static_cast<uint32_t>(p / q), static_cast<uint32_t>(q)};
    Tra2 direct(p, q, 2, 2, Tra2::Reading::paper_literal);
    TranslationEquivariant wrong(std::make_unique<Tra2>(p, q, 2, 2, Tra2::Reading::paper_literal), BlockAction::pairs,
                                 dims, "wrong on purpose");
    told += test::differ_somewhere(direct, wrong);
  }
  EXPECT_EQ(told, 4);
  // The intended reading wrapped on the wrong torus (Q x N) is told apart too.
  TranslationEquivariant transposed(std::make_unique<Tra2>(12, 4, 2, 2), BlockAction::pairs, {4, 3}, "wrong on purpose");
  EXPECT_TRUE(test::differ_somewhere(Tra2(12, 4, 2, 2), transposed));
}

TEST(Tra2Translations, QuotientVerdictsEqualEnumeration) {
  int quotient = 0;
  for (const char* name : {"tra2", "paper-formulas"}) {
    const VariantInfo& v = test::registered_variant("tra2", name);
    for_each_shape(36, [&](uint64_t p, uint64_t q, uint64_t r1, uint64_t r2) {
      const InstanceParams ip = tra2_params(p, q, r1, r2);
      const auto s = v.make(ip);
      const auto* eq = dynamic_cast<const TranslationEquivariant*>(s.get());
      ASSERT_NE(eq, nullptr);
      const Claim claim = v.claim(ip);
      const std::string what = std::string(name) + " " + label(p, q, r1, r2);
      const InstanceCheck qc = test::check_exact(*s, &claim, {}, true), ec = test::check_exact(eq->direct(), &claim, {}, false);
      ASSERT_TRUE(by_quotient(qc)) << what << ": " << test::declined(qc);
      if (p >= 2) {
        EXPECT_NE(qc.stats.at("method").find("the blocks it holds only"), std::string::npos) << what;
      }
      test::expect_same_verdicts(qc, ec, what);
      ++quotient;
    });
  }
  EXPECT_GT(quotient, 200);
}

// TRA2 (r1 = r2 = 2) on N x Q with the defect in `step` (test::DroppedBlock).
test::DroppedBlock DroppedPairTra2(uint64_t p, uint64_t q, int step) {
  auto inner = std::make_unique<Tra2>(p, q, 2, 2);
  GroupAction g(SymmetryGroup::torus_translations, BlockAction::pairs, inner->spec(), 0,
                {static_cast<uint32_t>(p / q), static_cast<uint32_t>(q)});
  return test::DroppedBlock(std::move(inner), std::move(g), step);
}

TEST(Tra2Translations, ADefectInRankZeroIsFoundThroughTheQuotient) {
  for (const auto& [p, q] : std::vector<std::pair<uint64_t, uint64_t>>{{8, 4}, {12, 3}, {16, 4}, {18, 6}})
    for (int step : {0, 1}) {
      const test::DroppedBlock s = DroppedPairTra2(p, q, step);
      const std::string what = label(p, q, 2, 2) + " step " + std::to_string(step);
      const InstanceCheck qc = test::check_exact(s, nullptr, {}, true), ec = test::check_exact(s, nullptr, {}, false);
      ASSERT_TRUE(by_quotient(qc)) << what << ": " << test::declined(qc);
      EXPECT_EQ(combined_status(qc.verdicts), Status::violated) << what;
      test::expect_same_verdicts(qc, ec, what);
    }
}

}  // namespace
}  // namespace collcheck
