#include "schedules/swing/swing_odd_extra_node.hpp"

#include <algorithm>
#include <bit>

#include "schedules/swing/swing_equivariant.hpp"

namespace collcheck {

SwingOddExtraNode::SwingOddExtraNode(uint64_t p, SwingSendRule ring_rule)
    : spec_{Collective::allreduce, p, static_cast<uint32_t>(p), 0},
      ring_(spec_, p - 1, ring_rule),
      ring_steps_(swing_equivariant(make_swing_bandwidth(p - 1, ring_rule), BlockAction::as_ranks)) {}

std::pair<Rank, Rank> SwingOddExtraNode::served(int s) const {
  const uint64_t m = spec_.p - 1;
  uint64_t first = 0;
  for (int t = 0; t <= s; ++t) {
    uint64_t want = (m + (uint64_t{1} << (t + 1)) - 1) >> (t + 1);  // ceil(m / 2^(t+1))
    uint64_t count = std::min(want, m - first);
    if (t == s) return {static_cast<Rank>(first), static_cast<Rank>(first + count)};
    first += count;
  }
  return {0, 0};
}

void SwingOddExtraNode::rank_step(Rank r, int s, RankStep& out) const {
  if (r < ring_.ring_size())
    ring_steps_->rank_step(r, s, out);
  else
    out.clear();  // the extra rank has no ring steps
  const Rank extra = static_cast<Rank>(spec_.p - 1);
  const int L = ring_.swing_steps();
  const bool rs = s < L;
  const int t = rs ? s : 2 * L - 1 - s;
  const Combine c = rs ? Combine::reduce : Combine::copy;
  auto [first, last] = served(t);
  if (r == extra) {
    for (Rank j = first; j < last; ++j) {
      // RS: extra gives j its contribution to b_j, takes j's to b_extra.
      // AG: extra gives j the final b_extra, takes the final b_j.
      out.sends.push_back({j, BlockSet::single(rs ? j : extra), c});
      out.recvs.push_back({j, BlockSet::single(rs ? extra : j), c});
    }
  } else if (r >= first && r < last) {
    out.sends.push_back({extra, BlockSet::single(rs ? extra : r), c});
    out.recvs.push_back({extra, BlockSet::single(rs ? r : extra), c});
  }
}

ScheduleShape SwingOddExtraNode::shape() const {
  return {ScheduleShape::Kind::extra_rank, nullptr, ring_steps_.get(), swing_odd_composition_expected(p(), ring_.rule())};
}

bool swing_odd_composition_expected(uint64_t p, const SwingSendRule& rule) {
  if (p < 3 || p % 2 == 0) return false;
  const uint64_t m = p - 1;
  (void)rule;  // a ring rank listing its own block is followed too (extra_node_composition.cpp)
  return !std::has_single_bit(m);
}

}  // namespace collcheck
