// Vector clocks over chains (see msccl_clocks.hpp).
#include "schedules/formats/msccl_clocks.hpp"

#include <algorithm>

namespace collcheck::msccl {

ChainClocks::ChainClocks(const std::vector<std::vector<size_t>>& succ, const std::vector<size_t>& topo,
                         const std::vector<uint32_t>& chain, const std::vector<int32_t>& pos, uint32_t lo,
                         uint32_t hi)
    : chain_(chain), pos_(pos), lo_(lo), width_(hi - lo), clock_(succ.size() * (hi - lo), -1) {
  // In topological order a node's clock is final when it is reached: the
  // maximum of its predecessors' clocks, already pushed into it, and itself.
  std::vector<bool> reached(succ.size(), false);  // some node of [lo, hi) happens before it or is it
  for (size_t v : topo) {
    int32_t* cv = &clock_[v * width_];
    if (chain[v] >= lo && chain[v] < hi) {
      cv[chain[v] - lo] = std::max(cv[chain[v] - lo], pos[v]);
      reached[v] = true;
    }
    if (!reached[v]) continue;  // all -1: nothing to pass on
    for (size_t w : succ[v]) {
      int32_t* cw = &clock_[w * width_];
      for (uint32_t c = 0; c < width_; ++c) cw[c] = std::max(cw[c], cv[c]);
      reached[w] = true;
    }
  }
}

}  // namespace collcheck::msccl
