// The topology layer: torus routes are minimal and
// dimension-ordered with the d/2 tie taken from the schedule; HyperX takes one
// hop per coordinate; bad names and shapes are one-line input errors; the link
// loads of a schedule are measured per step (a plain ring on a 1D torus loads
// every + link with one block per step: Xi = 1, Theta = D sum_s L_s).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "schedules/input_error.hpp"
#include "schedules/recursive_doubling/recursive_doubling.hpp"
#include "schedules/ring/ring_allreduce.hpp"
#include "topology/link_load.hpp"
#include "topology/topology.hpp"

namespace collcheck {
namespace {

std::vector<uint64_t> route(const Topology& t, Rank a, Rank b, int64_t tie = 0) {
  std::vector<uint64_t> out;
  t.route(a, b, tie, out);
  return out;
}

TEST(TorusTopology, MinimalDimensionOrderedRoutesAndTheTie) {
  const TorusTopology t({4, 4});  // rank = 4 row + col; dimension 0 is the row
  EXPECT_EQ(t.links(), 64u);
  EXPECT_TRUE(route(t, 5, 5).empty());
  // One hop each way round.
  EXPECT_EQ(route(t, 0, 1), (std::vector<uint64_t>{t.link(0, 1, +1)}));
  EXPECT_EQ(route(t, 0, 3), (std::vector<uint64_t>{t.link(0, 1, -1)}));
  EXPECT_EQ(route(t, 0, 12), (std::vector<uint64_t>{t.link(0, 0, -1)}));
  // Distance d/2: two minimal ways, the schedule's sign picks; none: +.
  EXPECT_EQ(route(t, 0, 2, +3), (std::vector<uint64_t>{t.link(0, 1, +1), t.link(1, 1, +1)}));
  EXPECT_EQ(route(t, 0, 2, -1), (std::vector<uint64_t>{t.link(0, 1, -1), t.link(3, 1, -1)}));
  EXPECT_EQ(route(t, 0, 2), route(t, 0, 2, +1));
  // Two coordinates: dimension 0 first, then dimension 1 from the new row.
  EXPECT_EQ(route(t, 0, 5), (std::vector<uint64_t>{t.link(0, 0, +1), t.link(4, 1, +1)}));
  EXPECT_EQ(t.link_name(t.link(4, 1, +1)), "node 4 dim 1 +");
}

TEST(HyperXTopology, OneHopPerCoordinate) {
  const HyperXTopology h({4, 4});
  EXPECT_EQ(route(h, 0, 3).size(), 1u);  // three hops on the torus, one here
  EXPECT_EQ(route(h, 0, 2).size(), 1u);
  EXPECT_EQ(route(h, 0, 5).size(), 2u);
  EXPECT_NE(route(h, 0, 2), route(h, 0, 3));
  EXPECT_EQ(h.link_name(route(h, 0, 3)[0]), "node 0 dim 1 to coordinate 3");
}

TEST(Topology, BadNamesAndShapesAreInputErrors) {
  EXPECT_THROW(make_topology("mesh", {4, 4}), InputError);
  EXPECT_THROW(make_topology("torus", {4, 0}), InputError);
  EXPECT_THROW(make_topology("torus", {}), InputError);
  EXPECT_EQ(make_topology("hyperx", {2, 8})->name(), "hyperx 2x8");
  EXPECT_EQ(make_topology("torus", {2, 8})->name(), "torus 2x8");
}

TEST(LinkCost, ARingOnAOneDimensionalTorus) {
  const auto ring = make_ring_allreduce(8);
  const LinkCost c = measure_link_cost(*ring, TorusTopology({8}));
  ASSERT_EQ(c.steps, 14);
  for (int s = 0; s < c.steps; ++s) {
    EXPECT_DOUBLE_EQ(c.link[s], 1.0 / 8) << s;
    EXPECT_DOUBLE_EQ(c.port[s], 1.0 / 8) << s;
  }
  EXPECT_DOUBLE_EQ(c.xi, 1.0);
  EXPECT_DOUBLE_EQ(c.psi, 14.0 / 8);  // one port: 2(p-1)/p of the vector
  EXPECT_DOUBLE_EQ(c.theta, 14.0 / 8);
  EXPECT_DOUBLE_EQ(c.lambda, 14.0 / 3);
  // Recursive doubling r XOR 2^s on the same ring: distance 2^s forwards
  // through 2^s - 1 nodes (at distance 4 = d/2 every rank takes the + way,
  // its schedule giving no tie): the busiest link carries 1, 2, 4 vectors.
  const auto rd = make_recursive_doubling_latency(8);
  const LinkCost d = measure_link_cost(*rd, TorusTopology({8}));
  EXPECT_EQ(d.link, (std::vector<double>{1, 2, 4}));
  EXPECT_DOUBLE_EQ(d.xi, 7.0 / 3);
  EXPECT_THROW(measure_link_cost(*ring, TorusTopology({4, 4})), std::invalid_argument);
}

// Link loads on a torus are summed along lines from straight runs
// (difference arrays, topology/link_load.cpp); a reference adds every hop
// of every route link by link. Random sends (long routes, wrap-arounds, the
// d/2 tie both ways, odd and even sides, sides of 1 and 2) must load every
// step's hottest link and every port the same.
TEST(LinkCost, RunsOnATorusLoadLinksAsHopByHopRoutes) {
  std::mt19937_64 rng(5);
  for (const std::vector<uint32_t>& dims :
       {std::vector<uint32_t>{7}, {12}, {5, 4}, {2, 9}, {3, 1, 6}, {4, 4, 4}, {16, 3}}) {
    const TorusTopology t(dims);
    const uint64_t p = t.nodes();
    MaterializedSchedule m;
    m.spec = {Collective::allreduce, p, 64, 0};
    m.ports = 4;
    m.steps.assign(5, std::vector<RankStep>(p));
    for (auto& step : m.steps)
      for (Rank r = 0; r < p; ++r)
        for (int k = 0; k < 3; ++k) {
          Transfer& x = step[r].add_send(static_cast<Rank>(rng() % p), Combine::copy);
          x.blocks.insert_range(0, static_cast<Block>(1 + rng() % 64));
        }
    const MaterializedView s(m);
    const LinkCost got = measure_link_cost(s, t);
    for (int st = 0; st < 5; ++st) {
      std::vector<double> load(t.links(), 0.0);
      double worst_port = 0;
      for (Rank r = 0; r < p; ++r) {
        double mine = 0;
        for (const Transfer& x : m.steps[st][r].sends) {
          if (x.peer == r) continue;
          mine += static_cast<double>(x.blocks.size()) / 64;
          std::vector<uint64_t> links;
          t.route(r, x.peer, 0, links);
          for (uint64_t l : links) load[l] += static_cast<double>(x.blocks.size()) / 64;
        }
        worst_port = std::max(worst_port, mine / 4);
      }
      EXPECT_NEAR(got.link[st], *std::max_element(load.begin(), load.end()), 1e-12) << t.name() << " step " << st;
      EXPECT_NEAR(got.port[st], worst_port, 1e-12) << t.name() << " step " << st;
    }
  }
}

}  // namespace
}  // namespace collcheck
