// The torus translations (schedules/symmetry.hpp) and the schedules
// certified under them (schedules/translation_equivariant.hpp: the bucket
// allreduce, Trivance on a torus):
//   * the group acts regularly, g_r^{-1} inverts g_r on ranks and blocks, and
//     a block set maps to the set of its blocks' images;
//   * faithfulness: every rank's step of the wrapper equals the direct
//     generator's on every shape of sides 1..6, 8, 9 with up to 3 dimensions
//     and 216 nodes (Trivance latency: sides 3^k up to 729 nodes, and left
//     unwrapped on every other shape), route ties included;
//   * a generator that is not circulant on a line (Trivance latency's fold)
//     is told apart by the same comparison;
//   * the quotient's verdicts equal enumeration's, and the link costs through
//     the orbit argument equal the enumerated ones;
//   * a defect in rank 0's step is found through the quotient.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/bucket/bucket_torus.hpp"
#include "schedules/int_math.hpp"
#include "schedules/registry.hpp"
#include "schedules/torus_shape.hpp"
#include "schedules/translation_equivariant.hpp"
#include "schedules/trivance/trivance_torus.hpp"
#include "tests/support/same_schedule.hpp"
#include "tests/support/dropped_block.hpp"
#include "tests/support/group_action_check.hpp"
#include "tests/support/link_cost_compare.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/torus_shapes.hpp"
#include "tests/support/verdict_compare.hpp"
#include "topology/link_load.hpp"
#include "topology/topology.hpp"

namespace collcheck {
namespace {

std::vector<std::vector<uint32_t>> shapes(const std::vector<uint32_t>& sides, uint64_t max_nodes) {
  return test::every_shape(sides, max_nodes, 3);
}

const std::vector<uint32_t> kSides = {1, 2, 3, 4, 5, 6, 8, 9};

using test::shape_nodes;

TEST(TorusTranslations, TheGroupActsRegularlyAndInverts) {
  for (const auto& dims : shapes(kSides, 64)) {
    const uint64_t p = shape_nodes(dims);
    CollectiveSpec spec;
    spec.p = p;
    spec.nblocks = static_cast<uint32_t>(2 * p);
    const GroupAction g(SymmetryGroup::torus_translations, BlockAction::as_ranks, spec, 0, dims);
    for (Rank r = 0; r < p; ++r) {
      test::expect_regular_element(g, r, dims_label(dims));
      // a translation: coordinate by coordinate, x_i + r_i, never a reflection
      for (Rank x = 0; x < p; ++x)
        for (size_t i = 0; i < dims.size(); ++i) {
          bool refl = true;
          const uint64_t stride = torus_strides(dims)[i];
          ASSERT_EQ(g.coordinate(r, i, static_cast<uint32_t>((x / stride) % dims[i]), refl),
                    ((x / stride) % dims[i] + (r / stride) % dims[i]) % dims[i]);
          ASSERT_FALSE(refl);
        }
    }
  }
  CollectiveSpec spec{Collective::allreduce, 12, 12, 0};
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::torus_translations, BlockAction::fixed, spec, 0, {}));
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::torus_translations, BlockAction::fixed, spec, 0, {3, 5}));
  EXPECT_FALSE(GroupAction::invalid(SymmetryGroup::torus_translations, BlockAction::fixed, spec, 0, {3, 4}));
}

void expect_ties_equivariant(const Schedule& s, const std::string& what) {
  RankStep zero;
  for (int st = 0; st < s.num_steps(); ++st) {
    s.rank_step(0, st, zero);
    for (Rank r = 1; r < s.p(); ++r)
      for (size_t i = 0; i < zero.sends.size(); ++i)
        ASSERT_EQ(s.route_tie(r, st, i), s.route_tie(0, st, i)) << what << " rank " << r << " step " << st;
  }
}

TEST(TorusTranslations, EveryRankIsTheDirectGeneratorsForEveryDeclaredVariant) {
  int compared = 0, unwrapped = 0;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      if (v.symmetry != SymmetryGroup::torus_translations) continue;
      if (a.name == "tra2") continue;  // its torus is N x Q from --ppn, not --dims: tra/tra2_equivariant_test.cpp
      // the hypercube 2^k of p itself, not --dims: recursive_doubling/recursive_doubling_equivariant_test.cpp
      if (!v.takes("dims")) continue;
      const bool trivance_latency = a.name == "trivance-torus" && v.name == "latency";
      std::vector<std::vector<uint32_t>> all = shapes(kSides, 216);
      if (trivance_latency)
        for (const auto& dims : shapes({1, 3, 9, 27}, 729)) all.push_back(dims);
      for (const auto& dims : all) {
        InstanceParams ip;
        ip.dims = dims;
        ip.p = shape_nodes(dims);
        if (v.violates(ip)) continue;
        const std::string what = a.name + "/" + v.name + " " + dims_label(dims);
        auto s = v.make(ip);
        const auto* eq = dynamic_cast<const TranslationEquivariant*>(s.get());
        const bool pow3 = std::all_of(dims.begin(), dims.end(), [](uint32_t d) { return is_pow3(d); });
        if (trivance_latency && !pow3) {  // the fold: enumerated, not certified
          EXPECT_EQ(eq, nullptr) << what;
          ++unwrapped;
          continue;
        }
        ASSERT_NE(eq, nullptr) << what;
        EXPECT_EQ(eq->action().group(), SymmetryGroup::torus_translations);
        test::expect_equal_everywhere(eq->direct(), *eq, what);
        expect_ties_equivariant(eq->direct(), what);
        ++compared;
      }
    }
  EXPECT_GT(compared, 300);
  EXPECT_GT(unwrapped, 50);
}

TEST(TorusTranslations, TrivanceLatencysFoldIsToldApart) {
  // Wrapped by hand on sides that are not powers of three, rank 0's image
  // is not the algorithm's rank r: the extra nodes of the fold break the
  // translations, which is why make_trivance_torus_certified leaves it out.
  int told = 0;
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{4}, {5, 3}, {2, 9}, {4, 4}}) {
    auto direct = make_trivance_torus(dims, TrivanceTorus::Kind::latency);
    TranslationEquivariant wrong(make_trivance_torus(dims, TrivanceTorus::Kind::latency), BlockAction::fixed, dims,
                                 "wrong on purpose");
    told += test::differ_somewhere(*direct, wrong);
  }
  EXPECT_EQ(told, 4);
}

using test::by_quotient;

InstanceCheck check(const Schedule& s, const Claim* claim, bool symmetry) { return test::check_exact(s, claim, {}, symmetry); }

TEST(TorusTranslations, QuotientVerdictsAndLinkCostsEqualEnumeration) {
  int quotient = 0;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      if (v.symmetry != SymmetryGroup::torus_translations) continue;
      if (a.name == "tra2") continue;  // its torus is N x Q from --ppn, not --dims: tra/tra2_equivariant_test.cpp
      // the hypercube 2^k of p itself, not --dims: recursive_doubling/recursive_doubling_equivariant_test.cpp
      if (!v.takes("dims")) continue;
      for (const auto& dims : shapes(kSides, 96)) {
        InstanceParams ip;
        ip.dims = dims;
        ip.p = shape_nodes(dims);
        if (v.violates(ip)) continue;
        const auto s = v.make(ip);
        const auto* eq = dynamic_cast<const TranslationEquivariant*>(s.get());
        if (!eq) continue;  // Trivance latency off sides 3^k (above)
        const Claim claim = v.claim(ip);
        const std::string what = a.name + "/" + v.name + " " + dims_label(dims);
        const InstanceCheck q = check(*s, &claim, true), e = check(eq->direct(), &claim, false);
        ASSERT_TRUE(by_quotient(q)) << what << ": " << (q.stats.count("quotient_declined") ? q.stats.at("quotient_declined") : "");
        EXPECT_EQ(q.stats.count("quotient_disagreed"), 0u) << what;
        test::expect_same_verdicts(q, e, what);
        ++quotient;
        const TorusTopology t(dims);
        test::expect_same_link_cost(measure_link_cost(*s, t), measure_link_cost(eq->direct(), t), what);
      }
    }
  EXPECT_GT(quotient, 200);
}

// The bucket with one block dropped from rank 0's last send (an allgather
// copy: a reduce-scatter drop makes contribution sets that are not boxes,
// and the quotient declines those) and from the receive that mirrors it (rank 0's receive from its predecessor is that
// peer's image of the send): every rank inherits the defect, the quotient
// must find it as enumeration does.
// The bucket on `dims` with the defect in `step` (test::DroppedBlock).
test::DroppedBlock DroppedBlockBucket(const std::vector<uint32_t>& dims, int step) {
  auto inner = std::make_unique<BucketTorus>(dims, true);
  GroupAction g(SymmetryGroup::torus_translations, BlockAction::as_ranks, inner->spec(), 0, dims);
  return test::DroppedBlock(std::move(inner), std::move(g), step);
}

TEST(TorusTranslations, ADefectInRankZeroIsFoundThroughTheQuotient) {
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{4, 4}, {3, 5}, {2, 3, 4}}) {
    const test::DroppedBlock s = DroppedBlockBucket(dims, -1);
    const InstanceCheck q = check(s, nullptr, true), e = check(s, nullptr, false);
    ASSERT_TRUE(by_quotient(q)) << dims_label(dims) << ": " << (q.stats.count("quotient_declined") ? q.stats.at("quotient_declined") : "no stat") << (q.refused ? q.refused->reason : "") << " method " << (q.stats.count("method") ? q.stats.at("method") : "none");
    EXPECT_EQ(combined_status(q.verdicts), Status::violated) << dims_label(dims);
    EXPECT_EQ(q.stats.count("quotient_disagreed"), 0u);
    test::expect_same_verdicts(q, e, dims_label(dims));
  }
}

// Dropped in the reduce-scatter, the contribution sets stop being boxes:
// the quotient declines, saying why, and enumeration refutes the instance.
TEST(TorusTranslations, ADefectTheBoxesCannotHoldIsDeclinedAndEnumerated) {
  const test::DroppedBlock s = DroppedBlockBucket({4, 4}, 0);
  const InstanceCheck q = check(s, nullptr, true);
  EXPECT_FALSE(by_quotient(q));
  ASSERT_EQ(q.stats.count("quotient_declined"), 1u);
  EXPECT_NE(q.stats.at("quotient_declined").find("not a product of per-dimension sets"), std::string::npos);
  EXPECT_EQ(combined_status(q.verdicts), Status::violated);
}

}  // namespace
}  // namespace collcheck
