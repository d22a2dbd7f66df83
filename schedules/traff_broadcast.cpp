#include "schedules/traff_broadcast.hpp"

#include "schedules/traff_circulant.hpp"

namespace collcheck {

TraffBroadcast::TraffBroadcast(uint64_t p, uint32_t n, Rank root)
    : spec_{Collective::broadcast, p, n, root}, skip_(traff::skips(p)) {
  q_ = static_cast<int>(skip_.size()) - 1;
  x_ = q_ > 0 ? (q_ - (static_cast<int64_t>(n) - 1) % q_) % q_ : 0;
  steps_ = p > 1 ? static_cast<int>(n) - 1 + q_ : 0;
}

void TraffBroadcast::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= steps_) return;
  const int64_t p = static_cast<int64_t>(spec_.p);
  const int64_t n = spec_.nblocks;
  const int64_t rel = (static_cast<int64_t>(r) - spec_.root + p) % p;  // root-relative rank
  const traff::RankSchedule sched = traff::rank_schedule(static_cast<uint64_t>(rel), skip_);
  const int64_t i = s + x_;
  const int k = static_cast<int>(i % q_);
  const int64_t shift = -x_ + q_ * ((i - k) / q_);
  auto clamp = [n](int64_t b) { return b > n - 1 ? n - 1 : b; };
  const Rank t = static_cast<Rank>((rel + skip_[k]) % p + spec_.root) % static_cast<Rank>(p);
  const Rank f = static_cast<Rank>((rel - skip_[k] + p) % p + spec_.root) % static_cast<Rank>(p);
  const int64_t sb = sched.sendblock[k] + shift, rb = sched.recvblock[k] + shift;
  if (sb >= 0 && t != spec_.root)
    out.sends.push_back({t, BlockSet::single(static_cast<Block>(clamp(sb))), Combine::copy});
  if (rb >= 0 && r != spec_.root)
    out.recvs.push_back({f, BlockSet::single(static_cast<Block>(clamp(rb))), Combine::copy});
}

}  // namespace collcheck
