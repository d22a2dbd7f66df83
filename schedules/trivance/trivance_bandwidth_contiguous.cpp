#include "schedules/trivance/trivance_bandwidth_contiguous.hpp"

#include "schedules/input_error.hpp"
#include "schedules/trivance/trivance_latency.hpp"

namespace collcheck {

TrivanceBandwidthContiguous::TrivanceBandwidthContiguous(uint64_t n)
    : spec_{Collective::allreduce, n, static_cast<uint32_t>(n), 0}, s_(trivance::ceil_log3(n)) {
  if (!trivance::is_pow3(n)) throw InputError("trivance bandwidth-contiguous needs n a power of three, not " + std::to_string(n));
}

Block TrivanceBandwidthContiguous::position(Block b) const {
  uint64_t out = 0;
  for (int i = 0; i < s_; ++i, b /= 3) out = out * 3 + b % 3;
  return static_cast<Block>(out);
}

BlockSet::Range TrivanceBandwidthContiguous::class_range(uint64_t R, int k) const {
  uint64_t rev = 0;  // the k+1 low digits of R, reversed
  for (int i = 0; i <= k; ++i, R /= 3) rev = rev * 3 + R % 3;
  const uint64_t size = trivance::pow3(s_ - k - 1);
  return {static_cast<Block>(rev * size), static_cast<Block>((rev + 1) * size)};
}

void TrivanceBandwidthContiguous::rank_step(Rank r, int step, RankStep& out) const {
  if (step < 0 || step >= num_steps()) {
    out.clear();
    return;
  }
  const uint64_t n = spec_.p;
  const bool rs = step < s_;
  const int k = rs ? step : 2 * s_ - 1 - step;
  const uint64_t d = trivance::pow3(k), mod = 3 * d;
  const Combine c = rs ? Combine::reduce : Combine::copy;
  out.sends.resize(2);
  out.recvs.resize(2);
  // Move 0: shift +d, offsets c = d (mod 3d); move 1: shift -d, offsets 2d.
  for (int i = 0; i < 2; ++i) {
    const Rank fwd = static_cast<Rank>(i == 0 ? (r + d) % n : (r + n - d) % n);
    const Rank back = static_cast<Rank>(i == 0 ? (r + n - d) % n : (r + d) % n);
    const BlockSet::Range mine = class_range((r + (i == 0 ? d : 2 * d)) % mod, k);  // r + offsets
    const BlockSet::Range theirs = class_range(r % mod, k);                          // back + offsets
    Transfer& to_fwd = rs ? out.sends[i] : out.recvs[i];
    Transfer& to_back = rs ? out.recvs[i] : out.sends[i];
    to_fwd = {fwd, BlockSet::range(mine.lo, mine.hi), c};
    to_back = {back, BlockSet::range(theirs.lo, theirs.hi), c};
  }
}

}  // namespace collcheck
