// Swing on a torus checked by its quotient (schedules/swing/swing_equivariant.hpp,
// the torus-swing-dihedral group of schedules/symmetry.hpp):
//   * faithfulness: every rank's step of the wrapper (g_r of rank 0's) equals
//     the direct generator's, on every shape of sides 1, 2, 4, 8 with up to
//     4 dimensions and 128 nodes, both kinds, both peer readings and the
//     layouts the mutation tests use; the group acts regularly and g_r^{-1}
//     inverts g_r on ranks and blocks;
//   * route ties: rank r's routed links are g_r of rank 0's (the premise of
//     the link-load quotient), link for link;
//   * the quotient's verdicts equal enumeration's (status, checks,
//     violations, minimal counterexample) for the registered variants,
//     holding and refuted, and the link costs equal the enumerated ones;
//   * a defect in one collective's layout is found through the quotient
//     (not mirrored: ports shared; every collective from dimension 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "properties/swing/swing_torus_ports.hpp"
#include "schedules/registry.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_torus.hpp"
#include "schedules/torus_shape.hpp"
#include "tests/support/group_action_check.hpp"
#include "tests/support/link_cost_compare.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/torus_shapes.hpp"
#include "tests/support/verdict_compare.hpp"
#include "topology/link_load.hpp"
#include "topology/topology.hpp"

namespace collcheck {
namespace {

std::vector<std::vector<uint32_t>> shapes(uint64_t max_nodes) { return test::every_shape({1, 2, 4, 8}, max_nodes, 4); }

std::string label(const std::vector<uint32_t>& dims) { return dims_label(dims); }

TEST(SwingTorusEquivariant, EveryRankIsTheImageOfRankZero) {
  int compared = 0;
  for (const auto& dims : shapes(128))
    for (auto kind : {SwingTorus::Kind::latency, SwingTorus::Kind::bandwidth})
      for (auto peers : {SwingTorusPeers::signed_rho, SwingTorusPeers::unsigned_delta})
        for (SwingTorusLayout layout : {SwingTorusLayout{}, SwingTorusLayout{false, true, false},
                                        SwingTorusLayout{true, false, false}}) {
          const auto wrapped = swing_torus_equivariant(make_swing_torus(dims, kind, peers, layout),
                                                       kind == SwingTorus::Kind::bandwidth ? BlockAction::as_ranks
                                                                                           : BlockAction::fixed,
                                                       dims);
          const auto* eq = dynamic_cast<const SwingEquivariant*>(wrapped.get());
          ASSERT_NE(eq, nullptr) << label(dims);
          const Schedule& direct = eq->direct();
          RankStep a, b;
          for (Rank r = 0; r < direct.p(); ++r)
            for (int s = 0; s < direct.num_steps(); ++s) {
              wrapped->rank_step(r, s, a);
              direct.rank_step(r, s, b);
              ASSERT_EQ(a, b) << label(dims) << " rank " << r << " step " << s;
              ++compared;
            }
        }
  EXPECT_GT(compared, 100000);
}

TEST(SwingTorusEquivariant, TheGroupActsRegularlyAndInverts) {
  for (const auto& dims : shapes(128)) {
    uint64_t p = 1;
    for (uint32_t d : dims) p *= d;
    CollectiveSpec spec;
    spec.p = p;
    spec.nblocks = static_cast<uint32_t>(3 * p);
    const GroupAction g(SymmetryGroup::torus_swing_dihedral, BlockAction::as_ranks, spec, 0, dims);
    for (Rank r = 0; r < p; ++r) test::expect_regular_element(g, r, label(dims));
  }
}

TEST(SwingTorusEquivariant, RoutesAreImagesOfRankZerosRoutes) {
  for (const auto& dims : shapes(256)) {
    const auto wrapped = swing_torus_equivariant(
        make_swing_torus(dims, SwingTorus::Kind::latency, SwingTorusPeers::signed_rho), BlockAction::fixed, dims);
    const auto* eq = dynamic_cast<const EquivariantSchedule*>(wrapped.get());
    ASSERT_TRUE(eq && eq->route_ties_equivariant());
    const TorusTopology t(dims);
    const GroupAction& g = eq->action();
    RankStep zero, mine;
    std::vector<uint64_t> r0, rr;
    for (int s = 0; s < wrapped->num_steps(); ++s) {
      wrapped->rank_step(0, s, zero);
      for (Rank r = 0; r < wrapped->p(); ++r) {
        wrapped->rank_step(r, s, mine);
        for (size_t i = 0; i < zero.sends.size(); ++i) {
          r0.clear();
          rr.clear();
          t.route(0, zero.sends[i].peer, wrapped->route_tie(0, s, i), r0);
          t.route(r, mine.sends[i].peer, wrapped->route_tie(r, s, i), rr);
          // g_r of a directed link (y, d, dir): (g_r y, d, dir, or -dir where g_r reflects d).
          std::multiset<uint64_t> image(rr.begin(), rr.end()), want;
          for (uint64_t l : r0) {
            const size_t D = dims.size();
            const Rank y = static_cast<Rank>(l / (2 * D));
            const size_t d = (l / 2) % D;
            const int dir = l % 2 ? 1 : -1;
            bool refl = false;
            (void)g.coordinate(r, d, 0, refl);
            // y -> y + dir maps to g_r(y) -> g_r(y + dir) = g_r(y) -+ dir
            want.insert(t.link(g.rank(r, y), d, refl ? -dir : dir));
          }
          ASSERT_EQ(image, want) << label(dims) << " rank " << r << " step " << s << " send " << i;
        }
      }
    }
  }
}

using test::by_quotient;

InstanceCheck check(const Schedule& s, const Claim* claim, bool symmetry) { return test::check_exact(s, claim, {}, symmetry); }

TEST(SwingTorusEquivariant, QuotientVerdictsAndLinkCostsEqualEnumeration) {
  const AlgorithmInfo& a = *find_algorithm("swing");
  int quotient = 0, violated = 0;
  for (const VariantInfo& v : a.variants) {
    if (v.symmetry != SymmetryGroup::torus_swing_dihedral) continue;
    for (const auto& dims : shapes(128)) {
      InstanceParams ip;
      ip.dims = dims;
      ip.p = 1;
      for (uint32_t d : dims) ip.p *= d;
      if (v.violates(ip)) continue;
      const auto s = v.make(ip);
      const auto* eq = dynamic_cast<const SwingEquivariant*>(s.get());
      ASSERT_NE(eq, nullptr) << v.name << " " << label(dims);
      const Claim claim = v.claim(ip);
      const std::string what = v.name + " " + label(dims);
      const InstanceCheck q = check(*s, &claim, true), e = check(eq->direct(), &claim, false);
      ASSERT_TRUE(by_quotient(q)) << what;
      EXPECT_EQ(q.stats.count("quotient_disagreed"), 0u) << what;
      test::expect_same_verdicts(q, e, what);
      ++quotient;
      violated += combined_status(q.verdicts) == Status::violated;
      // The family properties through the quotient: ports and link costs.
      const Verdict pq = swing_torus_ports(*s), pe = swing_torus_ports(eq->direct());
      EXPECT_EQ(pq.stats.at("method"), "rank 0, every other rank its image under the torus-swing-dihedral group");
      EXPECT_EQ(pq.status, pe.status) << what;
      EXPECT_EQ(pq.checks, pe.checks) << what;
      EXPECT_EQ(pq.violations, pe.violations) << what;
      EXPECT_EQ(pq.stats.at("shared_port_rank_steps"), pe.stats.at("shared_port_rank_steps")) << what;
      const TorusTopology t(dims);
      test::expect_same_link_cost(measure_link_cost(*s, t), measure_link_cost(eq->direct(), t), what);
    }
  }
  EXPECT_GT(quotient, 150);
  EXPECT_GT(violated, 40);  // the paper-delta readings, refuted through the quotient
}

// Defects in the layout of an equivariant schedule (still equivariant: the
// wrapper is g_r of a broken rank 0) are found through the quotient, and
// the quotient agrees with enumeration on them.
TEST(SwingTorusEquivariant, LayoutDefectsAreFoundThroughTheQuotient) {
  for (SwingTorusLayout broken : {SwingTorusLayout{false, true, false}, SwingTorusLayout{true, false, false}}) {
    const std::vector<uint32_t> dims = {8, 8};
    const auto s = swing_torus_equivariant(
        make_swing_torus(dims, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho, broken), BlockAction::as_ranks,
        dims);
    const auto* eq = dynamic_cast<const SwingEquivariant*>(s.get());
    ASSERT_NE(eq, nullptr);
    const Verdict pq = swing_torus_ports(*s), pe = swing_torus_ports(eq->direct());
    EXPECT_EQ(pq.status, Status::violated);
    EXPECT_EQ(pq.violations, pe.violations);
    ASSERT_TRUE(pq.counterexample && pe.counterexample);
    EXPECT_EQ(pq.counterexample->location(), pe.counterexample->location());
    EXPECT_EQ(pq.counterexample->actual, pe.counterexample->actual);
    const TorusTopology t(dims);
    EXPECT_GT(measure_link_cost(*s, t).xi, 1.5);  // two collectives on one link
    EXPECT_NEAR(measure_link_cost(*s, t).xi, measure_link_cost(eq->direct(), t).xi, 1e-12);
  }
}

}  // namespace
}  // namespace collcheck
