// The torus generators index blocks with 32 bits (schedules/block_set.hpp):
// a shape whose block count (2D * p for Swing's and the bucket's bandwidth
// collectives, 4p for the Hamiltonian ring, D * p for Trivance's) reaches
// 2^32 - 1 is refused with InputError (one line, exit 2 on the command line),
// before anything is allocated; it used to abort on an internal check (the
// outside audit: `verify --algo swing --dims 32768x32768`, exit 134). The
// command line refuses such shapes earlier (--dims, p <= 2^24:
// checker/cli/dims_option.hpp); this is the generators' own guard.
#include <gtest/gtest.h>

#include <string>

#include "schedules/bucket/bucket_torus.hpp"
#include "schedules/input_error.hpp"
#include "schedules/ring/ring_hamiltonian.hpp"
#include "schedules/swing/swing_torus.hpp"
#include "schedules/trivance/trivance_torus.hpp"

namespace collcheck {
namespace {

template <class F>
void expect_refused(F make, const std::string& needle) {
  try {
    make();
    ADD_FAILURE() << "not refused: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("< 2^32 - 1"), std::string::npos) << e.what();
  }
}

TEST(TorusBlockCount, OverflowingShapesAreRefusedNotAborted) {
  expect_refused([] { SwingTorus({32768, 32768}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho); },
                 "32768x32768");
  expect_refused([] { BucketTorus({1024, 1024, 1024}, true); }, "1024x1024x1024");
  expect_refused([] { BucketTorus({46340, 46340}, false); }, "46340x46340");
  expect_refused([] { HamiltonianRing({32768, 32768}); }, "32768x32768");
  expect_refused([] { TrivanceTorus({65536, 32768}, TrivanceTorus::Kind::bandwidth); }, "65536x32768");
}

TEST(TorusBlockCount, TheLargestCommandLineShapesAreBuilt) {
  // p = 2^24, the largest --dims takes: every block count fits.
  EXPECT_EQ(SwingTorus({4096, 4096}, SwingTorus::Kind::bandwidth, SwingTorusPeers::signed_rho).spec().nblocks,
            4u << 24);
  EXPECT_EQ(BucketTorus({256, 256, 256}, true).spec().nblocks, 6u << 24);
  EXPECT_EQ(TrivanceTorus({4096, 4096}, TrivanceTorus::Kind::bandwidth).spec().nblocks, 2u << 24);
}

}  // namespace
}  // namespace collcheck
