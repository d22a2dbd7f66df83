#pragma once
// The Träff family's typed interface (schedules/family.hpp). Träff's n is
// the number of BLOCKS per rank (CLI --n, InstanceParams::blocks), not nodes.
#include <cstdint>

#include "schedules/family.hpp"

namespace collcheck::traff {

enum class AlgorithmKind { broadcast, allgather, reduce, reduce_scatter, allreduce };

inline constexpr uint32_t kDefaultBlocks = 8;

// The typed instance: p, the blocks per rank (--n, default kDefaultBlocks)
// and the root (--root; 0 for the unrooted collectives).
struct Params {
  uint64_t p = 1;
  uint32_t blocks = kDefaultBlocks;
  Rank root = 0;
};
Params resolve(const InstanceParams& ip);

}  // namespace collcheck::traff
