// TRA's goal at full size, with data: P = 16384, r = 128 (Sec.
// III-B): every rank's 16384 tokens moved through the TRA rounds (1 GiB of
// tokens), delivered, K = 254, D = 32512, Prop. 1 and 2. Slow (seconds and
// 1 GiB): label "slow", excluded from scripts/test.
#include <gtest/gtest.h>

#include "properties/tra/alltoall_delivery.hpp"
#include "properties/tra/tra_formulas.hpp"

namespace collcheck {
namespace {

TEST(TraDeliveryLarge, SixteenThousandProcessesRadix128) {
  a2a::Instance in;
  in.p = 16384;
  in.r = 128;
  ASSERT_TRUE(a2a::fits(in));
  const a2a::Simulation s = a2a::simulate(in);
  ASSERT_TRUE(s.moved_data);
  EXPECT_EQ(s.delivery.status, Status::holds);
  EXPECT_EQ(s.delivery.checks, 16384ull * 16384 + 254);
  EXPECT_EQ(s.K(), 254u);
  EXPECT_EQ(s.D(), 32512u);
  const Verdict f = tra_formulas(s);
  EXPECT_EQ(f.status, Status::holds);
  EXPECT_EQ(f.stats.at("claimed_K"), "254");
  EXPECT_EQ(f.stats.at("claimed_D"), "32512");
}

}  // namespace
}  // namespace collcheck
