#include "schedules/swing_bandwidth.hpp"

#include <algorithm>

#include "schedules/check.hpp"
#include "schedules/swing_math.hpp"

namespace collcheck {

using swing::pi;

SwingBandwidthRing::SwingBandwidthRing(CollectiveSpec spec, uint64_t m, SwingDedupRule rule)
    : spec_(spec), m_(m), L_(swing::ceil_log2(m)), rule_(rule) {
  COLLCHECK_CHECK(m >= 1 && m <= spec.p, "ring size out of range");
  if (m_ <= kCacheMaxRanks) cache_ = std::make_unique<RankCache[]>(m_);
}

const BlockSet& SwingBandwidthRing::cached_rs_send(Rank r, int s) const {
  RankCache& c = cache_[r];
  std::call_once(c.once, [&] {
    c.sets.resize(static_cast<size_t>(L_));
    for (int t = 0; t < L_; ++t) c.sets[static_cast<size_t>(t)] = compute_rs_send(r, t);
  });
  return c.sets[static_cast<size_t>(s)];
}

BlockSet SwingBandwidthRing::rs_send(Rank r, int s) const {
  if (r >= m_ || s < 0 || s >= L_) return {};
  if (cache_) return cached_rs_send(r, s);
  return compute_rs_send(r, s);
}

BlockSet SwingBandwidthRing::compute_rs_send(Rank r, int s) const {
  if (r >= m_ || s < 0 || s >= L_) return {};
  auto lit = [&](int t) { return swing::reach_multiset(pi(r, t, m_), t + 1, L_, m_); };
  std::vector<Rank> mine = lit(s);
  if (rule_ == SwingDedupRule::none || swing::is_pow2(m_)) {
    // For m a power of two the Lit sets of one rank are pairwise disjoint and
    // never contain r (Theorem A.5), so every rule reduces to Listing 1. This
    // is only a shortcut for the generator: the checker re-verifies it.
    return BlockSet::from_blocks(std::move(mine));
  }
  // Per-thread scratch: stamp[b] == epoch marks b as "listed by a later step".
  thread_local std::vector<uint32_t> stamp;
  thread_local uint32_t epoch = 0;
  if (stamp.size() < m_) stamp.assign(m_, 0);
  if (++epoch == 0) {
    std::fill(stamp.begin(), stamp.end(), 0);
    epoch = 1;
  }
  std::vector<Rank> keep;
  if (rule_ == SwingDedupRule::later) {
    // Send b at step s only if no later step of r lists it, and never r itself.
    for (int t = s + 1; t < L_; ++t)
      for (Rank b : lit(t)) stamp[b] = epoch;
    stamp[r] = epoch;
    for (Rank b : mine)
      if (stamp[b] != epoch) keep.push_back(b);
    return BlockSet::from_blocks(std::move(keep));
  }
  // last_step: a block that two or more of r's steps list is sent only at
  // step L-1 (to pi(r, L-1)). Count, per block, the steps that list it.
  std::vector<std::vector<Rank>> all(static_cast<size_t>(L_));
  std::vector<uint8_t> listing(m_, 0);
  for (int t = 0; t < L_; ++t) {
    auto& v = all[static_cast<size_t>(t)];
    v = (t == s) ? mine : lit(t);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (Rank b : v) listing[b]++;
  }
  for (Rank b : all[static_cast<size_t>(s)])
    if (listing[b] == 1 || s == L_ - 1) keep.push_back(b);
  if (s == L_ - 1)
    for (Rank b = 0; b < m_; ++b)
      if (listing[b] > 1) keep.push_back(b);
  return BlockSet::from_blocks(std::move(keep));
}

void SwingBandwidthRing::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (r >= m_ || s < 0 || s >= 2 * L_) return;
  if (s < L_) {  // reduce-scatter
    Rank q = pi(r, s, m_);
    BlockSet give = rs_send(r, s), take = rs_send(q, s);
    if (!give.empty()) out.sends.push_back({q, std::move(give), Combine::reduce});
    if (!take.empty()) out.recvs.push_back({q, std::move(take), Combine::reduce});
  } else {  // allgather, peers in reverse order
    int t = 2 * L_ - 1 - s;
    Rank q = pi(r, t, m_);
    BlockSet give = rs_send(q, t), take = rs_send(r, t);
    if (!give.empty()) out.sends.push_back({q, std::move(give), Combine::copy});
    if (!take.empty()) out.recvs.push_back({q, std::move(take), Combine::copy});
  }
}

std::unique_ptr<Schedule> make_swing_bandwidth(uint64_t p, SwingDedupRule rule) {
  CollectiveSpec spec{Collective::allreduce, p, static_cast<uint32_t>(p), 0};
  return std::make_unique<SwingBandwidthRing>(spec, p, rule);
}

}  // namespace collcheck
