// Trivance on a D-dimensional torus (schedules/trivance/trivance_torus.hpp, registry
// `trivance-torus`) and the torus part of trivance-coverage
// (properties/trivance/trivance_torus_coverage.hpp):
//
//  * known answers derived by hand from the paper (the Trivance paper
//    Sec. 5, Fig. 5, 9x9): step 0 the original collective talks along
//    dimension 0 at distance 1 and the mirrored one along dimension 1; step 1
//    they swap ("switch dimensions while maintaining the communication
//    distance"); step 2 back to the step-0 dimension at distance 3;
//  * step counts: equal sides 3^k give log3 p (Sec. 5: "no effect on the
//    latency"); other sides the sum of the corrected ring's steps (collcheck);
//  * the bandwidth variant's message sizes: Lemma 4.1's m/3^(k+1) of the
//    collective's share in plan step k on 9x9 (27, 9, 3, 1 of 81 blocks);
//  * every generic property and trivance-coverage on small shapes, both
//    variants, exact mode, with the registry's claims;
//  * bad shapes are rejected by violates().
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "properties/instance_checker.hpp"
#include "properties/trivance/trivance_coverage.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/registry.hpp"
#include "schedules/translation_equivariant.hpp"
#include "schedules/trivance/trivance_torus.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

using mutation::describe;
using test::peers;

const VariantInfo& variant(const std::string& name) { return test::registered_variant("trivance-torus", name); }

InstanceParams torus(std::vector<uint32_t> dims) {
  InstanceParams ip;
  ip.p = 1;
  for (uint32_t d : dims) ip.p *= d;
  ip.dims = std::move(dims);
  return ip;
}

// Rank of (x, y) on an a x b torus, row-major (dimension 0 = x).
Rank xy(uint32_t x, uint32_t y, uint32_t b = 9) { return x * b + y; }

// The peers of collective c (block c in the latency variant) in rank r's step s.
std::set<Rank> collective_peers(const Schedule& s, Rank r, int step, int c, bool sends) {
  const auto& t = dynamic_cast<const TrivanceTorus&>(translation_direct(s));
  RankStep rs;
  t.collective_step(r, step, c, rs);
  return peers(sends ? rs.sends : rs.recvs);
}

TEST(TrivanceTorusKnownAnswers, Fig5FirstStepsOn9x9) {
  for (const char* name : {"latency", "bandwidth"}) {
    SCOPED_TRACE(name);
    auto s = variant(name).make(torus({9, 9}));
    EXPECT_EQ(s->ports(), 4);  // 2D ports, two per dimension
    const Rank v = xy(4, 4);
    for (bool sends : {true, false}) {
      // Step 0: original (c = 0) along dimension 0, mirrored (c = 1) along dimension 1, distance 1.
      EXPECT_EQ(collective_peers(*s, v, 0, 0, sends), (std::set<Rank>{xy(3, 4), xy(5, 4)}));
      EXPECT_EQ(collective_peers(*s, v, 0, 1, sends), (std::set<Rank>{xy(4, 3), xy(4, 5)}));
      // Step 1: both switch dimensions, distance stays 1.
      EXPECT_EQ(collective_peers(*s, v, 1, 0, sends), (std::set<Rank>{xy(4, 3), xy(4, 5)}));
      EXPECT_EQ(collective_peers(*s, v, 1, 1, sends), (std::set<Rank>{xy(3, 4), xy(5, 4)}));
      // Step 2: the step-0 dimensions again, distance 3.
      EXPECT_EQ(collective_peers(*s, v, 2, 0, sends), (std::set<Rank>{xy(1, 4), xy(7, 4)}));
      EXPECT_EQ(collective_peers(*s, v, 2, 1, sends), (std::set<Rank>{xy(4, 1), xy(4, 7)}));
    }
    // Wrap-around at the border: node (0, 0) talks to (8, 0) and (1, 0) first.
    EXPECT_EQ(collective_peers(*s, xy(0, 0), 0, 0, true), (std::set<Rank>{xy(8, 0), xy(1, 0)}));
  }
  // Latency: each collective moves its whole share (block c) and reduces it.
  auto s = variant("latency").make(torus({9, 9}));
  RankStep rs;
  s->rank_step(xy(4, 4), 0, rs);
  ASSERT_EQ(rs.sends.size(), 4u);
  for (const Transfer& t : rs.recvs) {
    EXPECT_EQ(t.combine, Combine::reduce);
    EXPECT_EQ(t.blocks.size(), 1u);
  }
}

TEST(TrivanceTorusKnownAnswers, StepCounts) {
  // Equal sides 3^k: log3 p steps (latency), 2 log3 p (bandwidth).
  EXPECT_EQ(variant("latency").make(torus({9, 9}))->num_steps(), 4);
  EXPECT_EQ(variant("latency").make(torus({27, 27}))->num_steps(), 6);
  EXPECT_EQ(variant("latency").make(torus({3, 3, 3}))->num_steps(), 3);
  EXPECT_EQ(variant("bandwidth").make(torus({9, 9}))->num_steps(), 8);
  // Other sides: the corrected ring per dimension (fold for latency: floor(log3 n) + 2;
  // bandwidth: ceil(log3 n)), summed: 4x4x4 -> 3 * 3 and 2 * 3 * 2.
  EXPECT_EQ(variant("latency").make(torus({4, 4, 4}))->num_steps(), 9);
  EXPECT_EQ(variant("bandwidth").make(torus({4, 4, 4}))->num_steps(), 12);
  EXPECT_EQ(variant("latency").make(torus({1, 1}))->num_steps(), 0);
  for (const char* name : {"latency", "bandwidth"})
    for (auto dims : std::vector<std::vector<uint32_t>>{{9, 9}, {27, 27}, {4, 4, 4}, {3, 9}, {2, 5}}) {
      const InstanceParams ip = torus(dims);
      EXPECT_EQ(variant(name).claim(ip).steps, variant(name).make(ip)->num_steps()) << name << " " << ip.label();
    }
}

TEST(TrivanceTorusPlan, DimensionSwitchingAndUnequalSides) {
  // Equal step counts: collective c in step j on dimension (c + j) mod D, ring step floor(j / D).
  const auto plan = torus_round_robin_plan({2, 2, 2});
  for (int c = 0; c < 3; ++c)
    for (int j = 0; j < 6; ++j) {
      EXPECT_EQ(plan[c][j].dim, (c + j) % 3);
      EXPECT_EQ(plan[c][j].ring_step, j / 3);
    }
  // 3x9 (S = 1, 2): T = 3; in step 2 both collectives need dimension 1 (the
  // documented collision: a collision-free plan needs D * S_max = 4 steps).
  const auto u = torus_round_robin_plan({1, 2});
  ASSERT_EQ(u[0].size(), 3u);
  EXPECT_EQ(u[0][0].dim, 0);
  EXPECT_EQ(u[0][1].dim, 1);
  EXPECT_EQ(u[0][2].dim, 1);
  EXPECT_EQ(u[1][0].dim, 1);
  EXPECT_EQ(u[1][1].dim, 0);
  EXPECT_EQ(u[1][2].dim, 1);
}

TEST(TrivanceTorusKnownAnswers, BandwidthMessageSizesOn9x9) {
  // Lemma 4.1: in (plan) step k a node sends m/3^(k+1) of the collective's
  // share per port: 27, 9, 3, 1 of its 81 blocks; allgather the reverse.
  auto s = variant("bandwidth").make(torus({9, 9}));
  const auto& t = dynamic_cast<const TrivanceTorus&>(translation_direct(*s));
  const uint64_t want[] = {27, 9, 3, 1, 1, 3, 9, 27};
  for (int step = 0; step < 8; ++step)
    for (int c = 0; c < 2; ++c) {
      RankStep rs;
      t.collective_step(xy(4, 4), step, c, rs);
      ASSERT_EQ(rs.sends.size(), 2u);
      for (const Transfer& x : rs.sends) {
        EXPECT_EQ(x.blocks.size(), want[step]) << "step " << step << " collective " << c;
        EXPECT_EQ(x.combine, step < 4 ? Combine::reduce : Combine::copy);
        for (Block b : x.blocks.blocks()) EXPECT_EQ(b / 81, static_cast<Block>(c));  // its own share
      }
    }
  // Step 0, collective 0, to (5, 4): blocks b with b_x - 4 in {1, 4, 7} (the
  // ring's Pi for n = 9) and any b_y: rows 5, 8, 2.
  RankStep rs;
  t.collective_step(xy(4, 4), 0, 0, rs);
  const Transfer& right = test::send_to(rs, xy(5, 4));
  std::set<uint32_t> rows;
  for (Block b : right.blocks.blocks()) rows.insert(b / 9);
  EXPECT_EQ(rows, (std::set<uint32_t>{2, 5, 8}));
}

TEST(TrivanceTorusProperties, GenericAndCoverageOnSmallShapes) {
  const std::vector<std::vector<uint32_t>> shapes = {{1},    {2},       {3, 3},    {2, 2},    {9, 9},  {3, 9},
                                                     {2, 5}, {4, 4},    {1, 7},    {2, 3, 4}, {3, 3, 3}, {4, 4, 4},
                                                     {5, 2, 1, 3}};
  for (const char* name : {"latency", "bandwidth"})
    for (const auto& dims : shapes) {
      const InstanceParams ip = torus(dims);
      SCOPED_TRACE(std::string(name) + " " + ip.label());
      ASSERT_FALSE(variant(name).violates(ip));
      auto s = variant(name).make(ip);
      const Claim claim = variant(name).claim(ip);
      mutation::CheckArgs a;
      a.claim = &claim;
      const InstanceCheck ic = mutation::check(*s, a);
      EXPECT_TRUE(mutation::violated(ic).empty()) << describe(ic);
      const Verdict cov = trivance_coverage(*s);
      EXPECT_EQ(cov.status, Status::holds) << (cov.counterexample ? cov.counterexample->message : "");
    }
}

TEST(TrivanceTorusProperties, CoverageIsJudgedOnEqualPowersOfThree) {
  // 9x9: after step j collective 0 holds the product window with radii
  // (R(k_0), R(k_1)): (1,0), (1,1), (4,1), (4,4) -> 3, 9, 27, 81 nodes.
  for (const char* name : {"latency", "bandwidth"}) {
    const Verdict v = trivance_coverage(*variant(name).make(torus({9, 9})));
    EXPECT_EQ(v.status, Status::holds);
    EXPECT_EQ(v.stats.at("lemma_applies").substr(0, 3), "yes");
    EXPECT_EQ(v.stats.at("covered_per_step"), "3,9,27,81");
    EXPECT_EQ(v.stats.at("claimed_covered_per_step"), "3,9,27,81");
    EXPECT_EQ(v.stats.at("port_collision_rank_steps"), "0");
    EXPECT_EQ(v.stats.at("idle_port_rank_steps"), "0");
    EXPECT_GT(v.checks, 0u);
  }
  // 27x27 (Sec. 6's torus): the windows triple every step up to all 729 nodes.
  for (const char* name : {"latency", "bandwidth"}) {
    const Verdict v = trivance_coverage(*variant(name).make(torus({27, 27})));
    EXPECT_EQ(v.status, Status::holds);
    EXPECT_EQ(v.stats.at("covered_per_step"), "3,9,27,81,243,729");
    EXPECT_EQ(v.stats.at("claimed_covered_per_step"), "3,9,27,81,243,729");
  }
  // 3x9 is measured only; its plan collides in step 2 at every node (9 x 3 = 27 nodes).
  const Verdict u = trivance_coverage(*variant("latency").make(torus({3, 9})));
  EXPECT_EQ(u.status, Status::holds);
  EXPECT_EQ(u.stats.at("lemma_applies").substr(0, 2), "no");
  EXPECT_EQ(u.stats.at("port_collision_rank_steps"), "27");
}

TEST(TrivanceTorusRegistry, BadShapesAreRejected) {
  const VariantInfo& v = variant("latency");
  EXPECT_TRUE(v.violates({9, 0}));  // no --dims
  InstanceParams zero = torus({3, 0});
  zero.p = 0;
  EXPECT_TRUE(v.violates(zero));
  InstanceParams mismatch = torus({3, 3});
  mismatch.p = 8;
  ASSERT_TRUE(v.violates(mismatch));
  EXPECT_NE(v.violates(mismatch)->find("not p = 8"), std::string::npos);
  InstanceParams huge = torus({65536, 65536, 65536});
  huge.p = 1;
  ASSERT_TRUE(v.violates(huge));
  EXPECT_NE(v.violates(huge)->find("2^31"), std::string::npos);
  EXPECT_FALSE(v.violates(torus({3, 3})));
  EXPECT_TRUE(v.takes("dims"));
  EXPECT_FALSE(test::registered_variant("trivance", "latency").takes("dims"));
}

TEST(TrivanceTorusExecutor, ThreadsComputeTheAllreduce) {
  for (const char* name : {"latency", "bandwidth"})
    for (auto dims : std::vector<std::vector<uint32_t>>{{3, 3}, {2, 2}, {2, 3, 2}, {4, 5}}) {
      auto s = variant(name).make(torus(dims));
      runtime::ExecOptions eo;
      const runtime::ExecResult r = runtime::execute_threads(*s, eo);
      EXPECT_EQ(r.verdict.status, Status::holds) << name << " " << torus(dims).label();
    }
}

}  // namespace
}  // namespace collcheck
