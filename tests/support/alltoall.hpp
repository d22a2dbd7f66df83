#pragma once
// Shared by the all-to-all generator tests: block ids of (source, destination)
// pairs (Collective::alltoall numbers block src * P + dst) and registry lookup.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schedules/block_set.hpp"
#include "schedules/registry.hpp"

namespace collcheck::test {

// Block id of (src, dst) for P processes.
inline Block blk(uint64_t P, uint64_t src, uint64_t dst) { return static_cast<Block>(src * P + dst); }

inline BlockSet blocks(uint64_t P, std::vector<std::pair<uint64_t, uint64_t>> pairs) {
  std::vector<Block> b;
  for (auto [s, d] : pairs) b.push_back(blk(P, s, d));
  return BlockSet::from_blocks(b);
}

inline const VariantInfo& registered_variant(const std::string& algorithm, const std::string& name) {
  const AlgorithmInfo* a = find_algorithm(algorithm);
  if (!a || !a->find_variant(name)) throw std::logic_error("no " + algorithm + " variant " + name);
  return *a->find_variant(name);
}

}  // namespace collcheck::test
