// Swing on tori against its defects:
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
