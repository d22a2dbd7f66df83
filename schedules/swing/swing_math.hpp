#pragma once
// Swing's peer function, with the paper's names (swing-nsdi24.txt, Sec. 3.1, Eq. 2):
//
//   rho(s)   = sum_{i=0..s} (-2)^i = (1 - (-2)^(s+1)) / 3      = 1, -1, 3, -5, 11, ...
//   delta(s) = |rho(s)| = (2^(s+1) - (-1)^(s+1)) / 3            = 1, 1, 3, 5, 11, 21, ...
//   pi(r, s) = (r + rho(s)) mod p  if r is even
//              (r - rho(s)) mod p  if r is odd
//
// Note: Table 1 of the paper prints rho(s) as "sum_{i=0..s} -2^i", which read
// literally is -(2^(s+1)-1); Eq. 2's text and the closed form say (-2)^i.
// We follow Eq. 2 (the known answers agree).
#include <array>
#include <cstdint>
#include <vector>

#include "schedules/block_set.hpp"
#include "schedules/int_math.hpp"

namespace collcheck::swing {

namespace detail {
constexpr std::array<int64_t, 62> make_rho_table() {
  std::array<int64_t, 62> t{};
  int64_t v = 0, pw = 1;
  for (int i = 0; i < 62; ++i, pw *= -2) t[static_cast<size_t>(i)] = (v += pw);
  return t;
}
inline constexpr std::array<int64_t, 62> kRho = make_rho_table();
}  // namespace detail

inline int64_t rho(int s) { return detail::kRho[static_cast<size_t>(s)]; }
inline uint64_t delta(int s) { return static_cast<uint64_t>(rho(s) < 0 ? -rho(s) : rho(s)); }

inline Rank pi(Rank r, int s, uint64_t p) {
  const int64_t m = static_cast<int64_t>(p);
  const int64_t d = rho(s);
  int64_t x = (r % 2 == 0) ? static_cast<int64_t>(r) + d : static_cast<int64_t>(r) - d;
  if (x >= m || x < 0) {  // |rho(s)| < 2^(s+1); only large steps need the division
    x %= m;
    if (x < 0) x += m;
  }
  return static_cast<Rank>(x);
}

using collcheck::ceil_log2;  // schedules/int_math.hpp
using collcheck::is_pow2;

// Distance on a ring of m nodes.
inline uint64_t ring_distance(uint64_t a, uint64_t b, uint64_t m) {
  uint64_t d = a > b ? a - b : b - a;
  return d < m - d ? d : m - d;
}

// Listing 1's get_rs_idx, as a multiset: rank q itself plus every node q
// reaches (directly or indirectly) through steps t..L-1 on a ring of m nodes.
// For m a power of two this is a set of 2^(L-t) distinct nodes (Theorem A.5);
// otherwise some nodes appear more than once.
std::vector<Rank> reach_multiset(Rank q, int t, int L, uint64_t m);

}  // namespace collcheck::swing
