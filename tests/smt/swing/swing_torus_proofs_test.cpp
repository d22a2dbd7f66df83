// smt-swing-torus-peers (smt/swing/swing_torus_proofs.hpp): holds on square
// and non-square tori (the 2D collectives' ports judged in the square phase
// only, as Sec. 4.2 says), on sides too large to enumerate quickly, and for
// the text's unsigned-delta reading (an involution with distinct ports: its
// defect is in the data flow, which verify refutes); refuted, with a
// counterexample that names the shared port and agrees with the
// swing-torus-ports property, when the mirrored collectives are not mirrored
// or every collective starts on dimension 0.
#include <gtest/gtest.h>

#include "properties/swing/swing_torus_ports.hpp"
#include "smt/swing/swing_torus_proofs.hpp"

namespace collcheck::smt {
namespace {

SwingTorus torus(std::vector<uint32_t> dims, SwingTorusPeers peers = SwingTorusPeers::signed_rho,
                 SwingTorusLayout layout = {}) {
  return SwingTorus(std::move(dims), SwingTorus::Kind::latency, peers, layout);
}

TEST(SwingTorusPeers, HoldsOnSquareAndNonSquareTori) {
  for (const std::vector<uint32_t>& dims :
       {std::vector<uint32_t>{2, 2}, {4, 4}, {2, 4}, {2, 4, 8}, {8, 8, 8}, {1024, 1024}, {1 << 20}}) {
    const Verdict v = prove_swing_torus_peers(torus(dims), 60000);
    EXPECT_EQ(v.status, Status::holds) << dims.size() << "D, first side " << dims[0] << ": "
                                       << (v.counterexample ? v.counterexample->actual : v.stats.count("error") ? v.stats.at("error") : "");
    EXPECT_GT(v.checks, 0u);
  }
  EXPECT_EQ(prove_swing_torus_peers(torus({4, 4}, SwingTorusPeers::unsigned_delta), 60000).status, Status::holds);
}

TEST(SwingTorusPeers, NotMirroredIsRefutedWhereThePortsPropertyRefutesIt) {
  const SwingTorus t = torus({4, 4}, SwingTorusPeers::signed_rho, SwingTorusLayout{false, true});
  const Verdict v = prove_swing_torus_peers(t, 60000);
  ASSERT_EQ(v.status, Status::violated);
  ASSERT_TRUE(v.counterexample);
  EXPECT_EQ(v.counterexample->expected, "collectives 0 and 2 on different ports (Sec. 4.1)");
  EXPECT_EQ(v.counterexample->actual, "both leave on port (dimension 0, +)");
  const Verdict ports = swing_torus_ports(t);
  ASSERT_EQ(ports.status, Status::violated);
  EXPECT_EQ(ports.counterexample->rank, v.counterexample->rank);
  EXPECT_EQ(ports.counterexample->step, v.counterexample->step);
}

TEST(SwingTorusPeers, WrongDimensionOrderIsRefuted) {
  const Verdict v = prove_swing_torus_peers(torus({8, 8}, SwingTorusPeers::signed_rho, SwingTorusLayout{true, false}), 60000);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(v.counterexample->expected, "collectives 0 and 1 on different ports (Sec. 4.1)");
}

}  // namespace
}  // namespace collcheck::smt
