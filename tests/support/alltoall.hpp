#pragma once
// Shared by the all-to-all generator tests: block ids of (source, destination)
// pairs (Collective::alltoall numbers block src * P + dst); registry lookup
// is in schedule_lookup.hpp.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schedules/block_set.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck::test {

// Block id of (src, dst) for P processes.
inline Block blk(uint64_t P, uint64_t src, uint64_t dst) { return static_cast<Block>(src * P + dst); }

// Every TRA2 shape (P, Q, r1, r2) with min_p <= P <= max_p: Q dividing P,
// 2 <= r1 <= Q and 2 <= r2 <= N = P/Q (r1 = 0 / r2 = 0: the phase is empty).
template <class F>
void for_each_tra2_shape(uint64_t min_p, uint64_t max_p, F&& f) {
  for (uint64_t p = min_p; p <= max_p; ++p)
    for (uint64_t q = 1; q <= p; ++q) {
      if (p % q) continue;
      const uint64_t n = p / q;
      for (uint64_t r1 = q >= 2 ? 2 : 0; r1 <= (q >= 2 ? q : 0); ++r1)
        for (uint64_t r2 = n >= 2 ? 2 : 0; r2 <= (n >= 2 ? n : 0); ++r2) f(p, q, r1, r2);
    }
}

inline BlockSet blocks(uint64_t P, std::vector<std::pair<uint64_t, uint64_t>> pairs) {
  std::vector<Block> b;
  for (auto [s, d] : pairs) b.push_back(blk(P, s, d));
  return BlockSet::from_blocks(b);
}


}  // namespace collcheck::test
