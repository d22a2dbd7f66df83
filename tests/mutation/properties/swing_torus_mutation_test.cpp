// Swing on tori against its defects (issue 17):
//   * swing-torus-ports holds on square tori with no port shared, and on
//     non-square ones (2x4, 4x8) with the sharing Sec. 4.2 describes measured
//     after D log2(d_min) steps;
//   * a mirrored collective that is not mirrored, and collectives that all
//     start on dimension 0 (wrong dimension order), still compute the
//     allreduce (every generic property holds) but share ports: the ports
//     property names the (rank, step, port, collectives);
//   * a transfer redirected (both ends) to a node two coordinates away is not
//     a torus-line transfer (swing-torus-ports) and overloads the receiver
//     (the generic k-port check);
//   * a dropped transfer (both ends) loses contributions: exactly-once and
//     postcondition fail;
//   * a schedule that is not a Swing torus: the property says it does not apply.
#include <gtest/gtest.h>

#include "properties/swing/swing_torus_deficiency.hpp"
#include "properties/swing/swing_torus_ports.hpp"
#include "tests/support/mutations.hpp"

namespace collcheck {
namespace {

using namespace mutation;

TEST(SwingTorusPorts, HoldsOnTheFiguresShapes) {
  for (const std::vector<uint32_t>& dims :
       {std::vector<uint32_t>{2, 2}, {4, 4}, {8, 8}, {4, 4, 4}, {2, 2, 2, 2}, {2, 4}, {4, 8}, {2, 4, 8}}) {
    for (auto kind : {SwingTorus::Kind::latency, SwingTorus::Kind::bandwidth}) {
      SwingTorus t(dims, kind, SwingTorusPeers::signed_rho);
      const Verdict v = swing_torus_ports(t);
      EXPECT_EQ(v.status, Status::holds) << dims.size() << "D " << dims[0] << "x" << dims[1];
      const bool square = std::all_of(dims.begin(), dims.end(), [&](uint32_t d) { return d == dims[0]; });
      EXPECT_EQ(v.stats.at("shared_port_rank_steps") == "0", square) << v.stats.at("shared_port_rank_steps");
    }
  }
  // 2x4 (Fig. 5): in the last step the four collectives share the two
  // horizontal ports; both phases of 8 ranks.
  const Verdict v = swing_torus_ports(SwingTorus({2, 4}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho));
  EXPECT_EQ(v.stats.at("shared_port_rank_steps"), "16");
  EXPECT_EQ(v.stats.at("max_collectives_per_port"), "2");
  EXPECT_EQ(v.stats.at("square_phase_steps"), "2");
}

TEST(SwingTorusPorts, AMirroredCollectiveNotMirroredSharesPorts) {
  SwingTorus t({4, 4}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho, SwingTorusLayout{false, true});
  // The data flow is still a correct allreduce ...
  EXPECT_TRUE(violated(check(t, {})).empty()) << describe(check(t, {}));
  // ... but collective 2 runs on collective 0's port.
  const Verdict v = swing_torus_ports(t);
  ASSERT_EQ(v.status, Status::violated);
  ASSERT_TRUE(v.counterexample);
  EXPECT_EQ(v.counterexample->rank, Rank{0});
  EXPECT_EQ(v.counterexample->step, 0);
  EXPECT_EQ(v.counterexample->actual, "port (dimension 0, +) carries collectives 0 and 2");
}

TEST(SwingTorusPorts, WrongDimensionOrderSharesPorts) {
  SwingTorus t({4, 4}, SwingTorus::Kind::latency, SwingTorusPeers::signed_rho, SwingTorusLayout{true, false});
  EXPECT_TRUE(violated(check(t, {})).empty()) << describe(check(t, {}));
  const Verdict v = swing_torus_ports(t);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(v.counterexample->actual, "port (dimension 0, +) carries collectives 0 and 1");
}

TEST(SwingTorusPorts, ASendOffTheTorusLinesIsNamed) {
  SwingTorus t({4, 4}, SwingTorus::Kind::latency, SwingTorusPeers::signed_rho);
  MaterializedSchedule m = materialize(t);
  redirect_transfer(m, 0, 0, 4, 5);  // rank 5 = (1, 1): two coordinates away
  MaterializedView view(m);
  const Verdict v = swing_torus_ports(view, t);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_NE(v.counterexample->actual.find("2 coordinates away"), std::string::npos) << v.counterexample->actual;
  // Moved at both ends: matched, and (the whole share goes to rank 5 instead)
  // the data still arrives, but rank 5 now receives 5 transfers in one step.
  EXPECT_TRUE(violated(check(m, {})).count(prop::ports)) << describe(check(m, {}));
}

TEST(SwingTorusPorts, ADroppedTransferLosesContributions) {
  for (auto kind : {SwingTorus::Kind::latency, SwingTorus::Kind::bandwidth}) {
    SwingTorus t({4, 4}, kind, SwingTorusPeers::signed_rho);
    MaterializedSchedule m = materialize(t);
    drop_transfer(m, 1, 0, 1);
    const auto bad = violated(check(m, {}));
    EXPECT_TRUE(bad.count(prop::postcondition)) << describe(check(m, {}));
  }
}

TEST(SwingTorusPorts, OtherSchedulesAreNotJudged) {
  MaterializedSchedule m = materialize(SwingTorus({4, 4}, SwingTorus::Kind::latency, SwingTorusPeers::signed_rho));
  MaterializedView view(m);
  const Verdict v = swing_torus_ports(view);
  EXPECT_EQ(v.status, Status::holds);
  EXPECT_EQ(v.stats.at("applies"), "no (not a Swing torus schedule)");
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// swing-torus-deficiency (issue 17): Table 2's SWING (B) row reproduced from
// the routed schedules, converging from below as the paper says; the
// not-mirrored layout loads one port with two collectives (Xi over the row);
// a non-square torus keeps Psi (Sec. 4.2) and pays in Xi.
TEST(SwingTorusDeficiency, Table2SwingBandwidthRowFromTheSchedules) {
  auto xi = [](std::vector<uint32_t> dims) {
    SwingTorus t(std::move(dims), SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho);
    const Verdict v = swing_torus_deficiency(t);
    EXPECT_EQ(v.status, Status::holds) << v.stats.at("xi");
    EXPECT_EQ(v.stats.at("lambda"), "2.0000");
    return std::stod(v.stats.at("xi"));
  };
  // D = 2: 1.19 as p grows, from below.
  const double x8 = xi({8, 8}), x32 = xi({32, 32}), x64 = xi({64, 64});
  EXPECT_LT(x8, x32);
  EXPECT_LT(x32, x64);
  EXPECT_GT(x64, 1.18);
  EXPECT_LE(x64, 1.195);
  // D = 3: 1.03.
  const double y = xi({8, 8, 8});
  EXPECT_GT(y, 1.02);
  EXPECT_LE(y, 1.035);
  // Psi of the bandwidth-optimal schedule: (p - 1) / p.
  const Verdict v = swing_torus_deficiency(SwingTorus({4, 4}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho));
  EXPECT_EQ(v.stats.at("psi"), "0.9375");
}

TEST(SwingTorusDeficiency, LatencyRowAndWhatItDoesNotJudge) {
  const Verdict v = swing_torus_deficiency(SwingTorus({8, 8}, SwingTorus::Kind::latency, SwingTorusPeers::signed_rho));
  EXPECT_EQ(v.status, Status::holds);
  EXPECT_EQ(v.stats.at("lambda"), "1.0000");
  EXPECT_EQ(v.stats.at("psi"), "3.0000");  // log2 p / 2: 2D ports, n / 2D each, every step
  EXPECT_NE(v.stats.at("psi_table").find("not judged"), std::string::npos);
}

TEST(SwingTorusDeficiency, SharedPortsShowInXi) {
  SwingTorus t({8, 8}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho, SwingTorusLayout{false, true});
  const Verdict v = swing_torus_deficiency(t);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(v.counterexample->expected.rfind("Xi <= 1.19", 0), 0u) << v.counterexample->expected;
  EXPECT_GT(std::stod(v.stats.at("xi")), 2.0);
  // Non-square: Psi as for a square torus, Xi higher than 8x8's (Sec. 4.2).
  const Verdict n = swing_torus_deficiency(SwingTorus({4, 16}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho));
  const Verdict q = swing_torus_deficiency(SwingTorus({8, 8}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho));
  EXPECT_EQ(n.status, Status::holds);
  EXPECT_EQ(n.stats.at("psi"), q.stats.at("psi"));
  EXPECT_GT(std::stod(n.stats.at("xi")), std::stod(q.stats.at("xi")));
}

}  // namespace
}  // namespace collcheck
