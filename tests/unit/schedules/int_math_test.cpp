// schedules/int_math.hpp against the loops it replaced (ceil_sqrt
// was written four times, ipow and is_pow3 three times, ...). The old loops
// are kept here, verbatim, as the reference: identical answers for every
// argument 0..2^16 and around every power and perfect square up to the
// largest where the old loop was exact; at the top of the 64-bit range, where
// the old loops overflowed, the mathematical answer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "schedules/int_math.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/trivance/trivance_latency.hpp"

namespace collcheck {
namespace {

// ---- the replaced loops (registry.cpp, smt/tra/tra_proofs.cpp, alltoall_delivery.cpp, analyze_command.cpp, ...)
uint64_t old_ceil_sqrt_loop(uint64_t x) {
  uint64_t s = 0;
  while (s * s < x) ++s;
  return s;
}
uint64_t old_ceil_sqrt_float(uint64_t x) {
  uint64_t s = static_cast<uint64_t>(std::sqrt(static_cast<long double>(x)));
  while (s * s < x) ++s;
  while (s > 0 && (s - 1) * (s - 1) >= x) --s;
  return s;
}
uint64_t old_floor_sqrt(uint64_t x) {
  const uint64_t s = old_ceil_sqrt_float(x);
  return s * s > x ? s - 1 : s;
}
uint64_t old_ipow(uint64_t r, int e) {
  uint64_t v = 1;
  while (e-- > 0) v *= r;
  return v;
}
bool old_is_pow3_loop(uint64_t n) {  // trivance_coverage.cpp, trivance_torus_coverage.cpp
  uint64_t v = 1;
  while (v < n) v *= 3;
  return v == n;
}
int old_floor_log3(uint64_t n) {
  int t = 0;
  for (uint64_t v = 3; v <= n; v *= 3) ++t;
  return t;
}
int old_ceil_log3(uint64_t n) {
  int s = 0;
  for (uint64_t v = 1; v < n; v *= 3) ++s;
  return s;
}
uint64_t old_pow2_floor(uint64_t p) {
  uint64_t v = 1;
  while (v * 2 <= p) v *= 2;
  return v;
}
int old_ceil_log2(uint64_t p) {
  int k = 0;
  while ((uint64_t{1} << k) < p) ++k;
  return k;
}
int old_digits(uint64_t m, uint64_t r) {  // tra::num_digits, a2a::digits
  int w = 0;
  for (uint64_t v = 1; v < m; v *= r) ++w;
  return w;
}

std::vector<uint64_t> probes() {
  std::vector<uint64_t> xs;
  for (uint64_t x = 0; x <= (1u << 16); ++x) xs.push_back(x);
  for (uint64_t s = 1; s < (uint64_t{1} << 32); s = s * 3 + 1)
    for (uint64_t sq : {s * s - 1, s * s, s * s + 1}) xs.push_back(sq);
  for (int k = 0; k < 64; ++k)
    for (int64_t d : {-1, 0, 1}) xs.push_back((uint64_t{1} << k) + static_cast<uint64_t>(d));
  return xs;
}

TEST(IntMath, SquareRootsEqualTheReplacedLoops) {
  for (uint64_t x : probes()) {
    ASSERT_EQ(ceil_sqrt(x), old_ceil_sqrt_float(x)) << x;
    ASSERT_EQ(floor_sqrt(x), old_floor_sqrt(x)) << x;
    if (x <= (uint64_t{1} << 40)) { ASSERT_EQ(ceil_sqrt(x), old_ceil_sqrt_loop(x)) << x; }
  }
  EXPECT_EQ(ceil_sqrt(0), 0u);
  EXPECT_EQ(ceil_sqrt(1), 1u);
  EXPECT_EQ(ceil_sqrt(2), 2u);
  EXPECT_EQ(floor_sqrt(0), 0u);
  EXPECT_EQ(floor_sqrt(3), 1u);
  // The top of the range: (2^32 - 1)^2 is the largest square below 2^64.
  const uint64_t top = UINT64_MAX;
  EXPECT_EQ(floor_sqrt(top), 0xFFFFFFFFu);
  EXPECT_EQ(ceil_sqrt(top), uint64_t{1} << 32);
  EXPECT_EQ(ceil_sqrt(0xFFFFFFFEu * uint64_t{0xFFFFFFFFu} + 0xFFFFFFFFu), 0xFFFFFFFFu);  // (2^32-1)^2
  static_assert(ceil_sqrt(17) == 5 && floor_sqrt(17) == 4 && floor_sqrt(UINT64_MAX) == 0xFFFFFFFFu);
}

TEST(IntMath, PowersAndLogarithmsEqualTheReplacedLoops) {
  for (uint64_t r : {0u, 1u, 2u, 3u, 7u, 10u, 255u, 65536u})
    for (int e = -2; e <= 70; ++e) ASSERT_EQ(ipow(r, e), old_ipow(r, e)) << r << "^" << e;  // wraps alike
  for (uint64_t x : probes()) {
    if (x < 12157665459056928801ull) {  // 3^40: beyond it the old loops' v *= 3 wraps
      ASSERT_EQ(is_pow3(x), old_is_pow3_loop(x)) << x;
      ASSERT_EQ(floor_log3(x), old_floor_log3(x)) << x;
      ASSERT_EQ(ceil_log3(x), old_ceil_log3(x)) << x;
    }
    if (x < (uint64_t{1} << 63)) { ASSERT_EQ(pow2_floor(x), old_pow2_floor(x)) << x; }
    if (x <= (uint64_t{1} << 63)) { ASSERT_EQ(ceil_log2(x), old_ceil_log2(x)) << x; }
    // the old family::log2_floor(p) = ceil_log2(pow2_floor(p)), where that loop ends
    if (x < (uint64_t{1} << 63)) { ASSERT_EQ(floor_log2(x), old_ceil_log2(old_pow2_floor(x))) << x; }
    for (uint64_t r : {2u, 3u, 5u, 16u, 1000u})
      if (x <= (uint64_t{1} << 32)) { ASSERT_EQ(ceil_log(x, r), old_digits(x, r)) << x << " base " << r; }
  }
  // Edges: 0 and 1, and the top of the range (where the old loops wrapped or never ended).
  EXPECT_EQ(pow2_floor(0), 1u);  // as fold.cpp's loop had it
  EXPECT_EQ(ceil_log2(0), 0);
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(floor_log2(0), 0);
  EXPECT_EQ(floor_log2(1), 0);
  EXPECT_FALSE(is_pow3(0));
  EXPECT_TRUE(is_pow3(1));
  EXPECT_TRUE(is_pow3(12157665459056928801ull));   // 3^40, the largest power of 3 below 2^64
  EXPECT_FALSE(is_pow3(12157665459056928802ull));
  // 3^41 mod 2^64: the old coverage loop stopped there and said "a power of three".
  EXPECT_TRUE(old_is_pow3_loop(18026252303461234787ull));
  EXPECT_FALSE(is_pow3(18026252303461234787ull));
  EXPECT_FALSE(is_pow3(UINT64_MAX));
  EXPECT_EQ(floor_log3(UINT64_MAX), 40);
  EXPECT_EQ(ceil_log3(UINT64_MAX), 41);
  EXPECT_EQ(pow2_floor(UINT64_MAX), uint64_t{1} << 63);
  EXPECT_EQ(ceil_log2(UINT64_MAX), 64);
  EXPECT_EQ(floor_log2(UINT64_MAX), 63);
  EXPECT_EQ(ceil_log(UINT64_MAX, 2), 64);
  EXPECT_EQ(ceil_log(UINT64_MAX, uint64_t{1} << 32), 2);
  EXPECT_EQ(ceil_log(0, 7), 0);
  EXPECT_EQ(ceil_log(1, 7), 0);
  EXPECT_EQ(floor_log(UINT64_MAX, 2), 63);
  EXPECT_TRUE(is_pow2(uint64_t{1} << 63));
  EXPECT_FALSE(is_pow2(0));
  // The family namespaces name the same functions.
  EXPECT_EQ(&swing::ceil_log2, &collcheck::ceil_log2);
  EXPECT_EQ(&trivance::is_pow3, &collcheck::is_pow3);
}

TEST(IntMath, FloorDivisionRoundsDown) {
  for (int64_t a = -50; a <= 50; ++a)
    for (int64_t b = 1; b <= 9; ++b)
      ASSERT_EQ(floor_div(a, b), static_cast<int64_t>(std::floor(static_cast<double>(a) / static_cast<double>(b))))
          << a << "/" << b;
  EXPECT_EQ(floor_div(INT64_MIN + 1, 1), INT64_MIN + 1);
  EXPECT_EQ(floor_div(-1, INT64_MAX), -1);
}

}  // namespace
}  // namespace collcheck
