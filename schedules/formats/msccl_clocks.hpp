#pragma once
// Vector clocks for a happens-before DAG whose nodes are grouped in chains
// (MSCCL's threadblocks: each runs its steps in order, a total order). For
// the chains [lo, hi), clock[v][c] = the largest position of chain c's nodes
// that happen before v or are v (-1: none). Because a chain is totally
// ordered, a happens before b exactly when clock[b][chain(a)] >= pos(a), so
// before() is exact and O(1), in (nodes x chains) memory instead of the
// nodes^2 bits of a transitive closure.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace collcheck::msccl {

class ChainClocks {
 public:
  // succ: the DAG's edges; topo: a topological order of the nodes that run
  // (nodes missing from it never run: no clock, never before anything);
  // chain[v], pos[v]: v's chain and its position in it, positions
  // increasing along the chain's edges. Computes clocks for chains [lo, hi).
  ChainClocks(const std::vector<std::vector<size_t>>& succ, const std::vector<size_t>& topo,
              const std::vector<uint32_t>& chain, const std::vector<int32_t>& pos, uint32_t lo, uint32_t hi);

  // a happens before b (a != b; a in chains [lo, hi), b ran).
  bool before(size_t a, size_t b) const {
    return a != b && clock_[b * width_ + (chain_[a] - lo_)] >= pos_[a];
  }

  // The entries (4 bytes each) the clocks of n nodes over `chains` chains take.
  static uint64_t entries(size_t nodes, uint32_t chains) { return uint64_t{nodes} * chains; }

 private:
  const std::vector<uint32_t>& chain_;
  const std::vector<int32_t>& pos_;
  uint32_t lo_, width_;
  std::vector<int32_t> clock_;  // node-major: clock_[v * width_ + c - lo_]
};

}  // namespace collcheck::msccl
