#pragma once
// Small integer helpers shared by every layer (generators, properties, SMT
// encodings, the CLI): integer square roots, powers, logarithms, floor
// division. One definition each; tests/unit/schedules/int_math_test.cpp pins
// them against the loops they replaced, edge cases included (0, 1, the top of
// the 64-bit range).
//
// Exact over the whole uint64_t range unless a line says otherwise: where the
// replaced loops overflowed (x near 2^64) they looped for ever or answered
// wrongly; these give the mathematical answer there and the same answer
// everywhere else.
#include <bit>
#include <cmath>
#include <cstdint>

namespace collcheck {

// floor(sqrt(x)).
constexpr uint64_t floor_sqrt(uint64_t x) {
  uint64_t s = 0;
  if (std::is_constant_evaluated()) {
    for (uint64_t bit = uint64_t{1} << 31; bit; bit >>= 1)
      if (static_cast<unsigned __int128>(s | bit) * (s | bit) <= x) s |= bit;
    return s;
  }
  s = static_cast<uint64_t>(std::sqrt(static_cast<long double>(x)));
  while (static_cast<unsigned __int128>(s) * s > x) --s;
  while (static_cast<unsigned __int128>(s + 1) * (s + 1) <= x) ++s;
  return s;
}

// ceil(sqrt(x)): the smallest s with s*s >= x.
constexpr uint64_t ceil_sqrt(uint64_t x) {
  const uint64_t s = floor_sqrt(x);
  return s * s == x ? s : s + 1;
}

// r^e, 1 for e <= 0. Wraps modulo 2^64 like the loops it replaced: callers
// keep r^e below 2^64.
constexpr uint64_t ipow(uint64_t r, int e) {
  uint64_t v = 1;
  for (int i = 0; i < e; ++i) v *= r;
  return v;
}

constexpr bool is_pow2(uint64_t p) { return p && !(p & (p - 1)); }

// The largest power of two <= p; 1 for p = 0 (as fold.cpp's loop had it).
constexpr uint64_t pow2_floor(uint64_t p) { return p == 0 ? 1 : std::bit_floor(p); }

// ceil(log2 p), 0 for p <= 1.
constexpr int ceil_log2(uint64_t p) { return p <= 1 ? 0 : std::bit_width(p - 1); }

// floor(log2 p), 0 for p <= 1.
constexpr int floor_log2(uint64_t p) { return p <= 1 ? 0 : std::bit_width(p) - 1; }

// The smallest w with r^w >= m (the number of base-r digits of 0..m-1); 0 for
// m <= 1. Requires r >= 2.
constexpr int ceil_log(uint64_t m, uint64_t r) {
  int w = 0;
  for (uint64_t v = 1; v < m; v *= r) {
    ++w;
    if (v > UINT64_MAX / r) break;  // r^w > 2^64 > m
  }
  return w;
}

// The largest t with r^t <= n; 0 for n <= 1. Requires r >= 2.
constexpr int floor_log(uint64_t n, uint64_t r) {
  int t = 0;
  for (uint64_t v = 1; v <= n / r; v *= r) ++t;
  return t;
}

constexpr uint64_t pow3(int k) { return ipow(3, k); }
constexpr int ceil_log3(uint64_t n) { return ceil_log(n, 3); }    // smallest s with 3^s >= n
constexpr int floor_log3(uint64_t n) { return floor_log(n, 3); }  // largest t with 3^t <= n (0 for n <= 1)
constexpr bool is_pow3(uint64_t n) { return n >= 1 && pow3(floor_log3(n)) == n; }

// a * b, or UINT64_MAX when the product does not fit: sizes and cell counts
// over 64-bit block counts (p * nblocks) compare against limits, never wrap.
constexpr uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t c = 0;
  return __builtin_mul_overflow(a, b, &c) ? UINT64_MAX : c;
}

// floor(a / b) for b > 0 and any sign of a.
constexpr int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace collcheck
