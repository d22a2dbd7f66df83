#include "schedules/swing/swing_bandwidth_contiguous.hpp"

#include <stdexcept>

#include "schedules/swing/swing_math.hpp"

namespace collcheck {

SwingBandwidthContiguous::SwingBandwidthContiguous(uint64_t p)
    : spec_{Collective::allreduce, p, static_cast<uint32_t>(p), 0}, L_(swing::ceil_log2(p)), pos_(p, 0) {
  // Depth-first leaf order of the tree S(0,0) -> {S(0,1), S(pi(0,0),1)} -> ...
  // Iterative: a frame (rank, level); children pushed in reverse order.
  std::vector<std::pair<Rank, int>> stack{{0, 0}};
  std::vector<uint8_t> seen(p, 0);
  Block next = 0;
  while (!stack.empty()) {
    auto [r, t] = stack.back();
    stack.pop_back();
    if (t == L_) {
      if (next >= p || seen[r]) throw std::logic_error("Swing contiguous remap: leaf order is not a permutation");
      seen[r] = 1;
      pos_[r] = next++;
      continue;
    }
    stack.push_back({swing::pi(r, t, p), t + 1});
    stack.push_back({r, t + 1});
  }
}

BlockSet::Range SwingBandwidthContiguous::subtree(Rank q, int t) const {
  Block size = Block{1} << (L_ - t);
  Block lo = pos_[q] & ~(size - 1);
  return {lo, lo + size};
}

void SwingBandwidthContiguous::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= 2 * L_) return;
  const bool rs = s < L_;
  const int t = rs ? s : 2 * L_ - 1 - s;
  const Rank q = swing::pi(r, t, spec_.p);
  BlockSet::Range theirs = subtree(q, t + 1), mine = subtree(r, t + 1);
  if (rs) {
    out.sends.push_back({q, BlockSet::range(theirs.lo, theirs.hi), Combine::reduce});
    out.recvs.push_back({q, BlockSet::range(mine.lo, mine.hi), Combine::reduce});
  } else {
    out.sends.push_back({q, BlockSet::range(mine.lo, mine.hi), Combine::copy});
    out.recvs.push_back({q, BlockSet::range(theirs.lo, theirs.hi), Combine::copy});
  }
}

}  // namespace collcheck
