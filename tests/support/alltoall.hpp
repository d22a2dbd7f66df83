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

inline BlockSet blocks(uint64_t P, std::vector<std::pair<uint64_t, uint64_t>> pairs) {
  std::vector<Block> b;
  for (auto [s, d] : pairs) b.push_back(blk(P, s, d));
  return BlockSet::from_blocks(b);
}


}  // namespace collcheck::test
