#include "schedules/swing/swing_bandwidth.hpp"

#include <algorithm>

#include "schedules/check.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck {

using swing::pi;

SwingBandwidthRing::SwingBandwidthRing(CollectiveSpec spec, uint64_t m, SwingSendRule rule)
    : spec_(spec), m_(m), L_(swing::ceil_log2(m)), rule_(rule) {
  COLLCHECK_CHECK(m >= 1 && m <= spec.p, "ring size out of range");
  if (m_ <= kCacheMaxRanks) cache_ = std::make_unique<RankCache[]>(m_);
}

const BlockSet& SwingBandwidthRing::cached_rs_send(Rank r, int s) const {
  RankCache& c = cache_[r];
  std::call_once(c.once, [&] { c.sets = compute_rs_sends(r); });
  return c.sets[static_cast<size_t>(s)];
}

BlockSet SwingBandwidthRing::rs_send(Rank r, int s) const {
  if (r >= m_ || s < 0 || s >= L_) return {};
  if (cache_) return cached_rs_send(r, s);
  // A de-duplicating rule lists every step of r for any one of them: all
  // steps at once cost what one does.
  if (rule_.keep != SwingKeep::every) return (*memo_rs_sends(r))[static_cast<size_t>(s)];
  return compute_rs_send(r, s);
}

std::shared_ptr<const std::vector<BlockSet>> SwingBandwidthRing::memo_rs_sends(Rank r) const {
  {
    std::lock_guard<std::mutex> lock(memo_mu_);
    for (const auto& [rank, sets] : memo_)
      if (rank == r) return sets;
  }
  auto sets = std::make_shared<const std::vector<BlockSet>>(compute_rs_sends(r));
  std::lock_guard<std::mutex> lock(memo_mu_);
  // At most about kMemoMaxRanks / m ranks' sets (each about m/2 ranges):
  // rank 0's steps touch it and its L peers, twice each.
  const size_t capacity = static_cast<size_t>(std::max<uint64_t>(2, kMemoMaxRanks / std::max<uint64_t>(m_, 1)));
  if (memo_.size() >= capacity) memo_.erase(memo_.begin());
  memo_.emplace_back(r, sets);
  return sets;
}

std::vector<BlockSet> SwingBandwidthRing::compute_rs_sends(Rank r) const {
  const auto L = static_cast<size_t>(L_);
  std::vector<BlockSet> out(L);
  if (r >= m_) return out;
  std::vector<std::vector<Rank>> lists(L);
  for (size_t t = 0; t < L; ++t) lists[t] = listed(r, static_cast<int>(t));
  // A step's set through an m-bit map (no sort: the lists are long and in
  // reach order), left cleared for the next.
  std::vector<uint64_t> bits((m_ + 63) / 64, 0);
  auto to_set = [&bits](const std::vector<Rank>& blocks) {
    for (Rank b : blocks) bits[b / 64] |= uint64_t{1} << (b % 64);
    BlockSet out = BlockSet::from_bitmap(bits);
    for (Rank b : blocks) bits[b / 64] = 0;
    return out;
  };
  const bool plain = rule_.keep == SwingKeep::every && !rule_.skip_own;
  if (plain || (rule_.sets == SwingStepSet::peer && swing::is_pow2(m_))) {
    // As compute_rs_send: Listing 1's sets (Theorem A.5 for m a power of two).
    for (size_t t = 0; t < L; ++t) out[t] = to_set(lists[t]);
    return out;
  }
  // Per block, the first and the last step that list it and how many steps
  // do (a step's multiset may list it more than once: counted once).
  std::vector<int> first(m_, -1), last(m_, -1), steps(m_, 0);
  for (size_t t = 0; t < L; ++t)
    for (Rank b : lists[t])
      if (last[b] != static_cast<int>(t)) {
        if (first[b] < 0) first[b] = static_cast<int>(t);
        last[b] = static_cast<int>(t);
        ++steps[b];
      }
  std::vector<Rank> keep;
  for (size_t t = 0; t < L; ++t) {
    keep.clear();
    const int st = static_cast<int>(t);
    for (Rank b : lists[t]) {
      if (rule_.skip_own && b == r) continue;
      bool sent = true;
      switch (rule_.keep) {
        case SwingKeep::every: break;
        case SwingKeep::earlier: sent = first[b] == st; break;
        case SwingKeep::later: sent = last[b] == st; break;
        case SwingKeep::last_step: sent = steps[b] == 1; break;
      }
      if (sent) keep.push_back(b);
    }
    // last_step: a block two or more steps list goes at step L-1.
    if (rule_.keep == SwingKeep::last_step && st == L_ - 1)
      for (Rank b = 0; b < m_; ++b)
        if (steps[b] > 1 && !(rule_.skip_own && b == r)) keep.push_back(b);
    out[t] = to_set(keep);
  }
  return out;
}

std::vector<Rank> SwingBandwidthRing::listed(Rank r, int t) const {
  if (rule_.sets == SwingStepSet::peer) return swing::reach_multiset(pi(r, t, m_), t + 1, L_, m_);
  // get_rs_idx(r, t): every node r reaches through steps t..L-1. The
  // multiset starts with r itself (the start of the walk), which
  // get_rs_idx does not mark; r is listed only if a walk returns to it.
  std::vector<Rank> v = swing::reach_multiset(r, t, L_, m_);
  v.erase(v.begin());
  return v;
}

BlockSet SwingBandwidthRing::compute_rs_send(Rank r, int s) const {
  if (r >= m_ || s < 0 || s >= L_) return {};
  std::vector<Rank> mine = listed(r, s);
  const bool plain = rule_.keep == SwingKeep::every && !rule_.skip_own;
  if (plain || (rule_.sets == SwingStepSet::peer && swing::is_pow2(m_))) {
    // For m a power of two the peer-index sets of one rank are pairwise
    // disjoint and never contain r (Theorem A.5), so every rule reduces to
    // Listing 1. This is only a shortcut for the generator: the checker
    // re-verifies it.
    return BlockSet::from_rank_blocks(std::move(mine));
  }
  if (rule_.keep == SwingKeep::last_step) return last_step_send(r, s, std::move(mine));
  // Per-thread scratch: stamp[b] == epoch marks b as "not sent at step s".
  thread_local std::vector<uint32_t> stamp;
  thread_local uint32_t epoch = 0;
  if (stamp.size() < m_) stamp.assign(m_, 0);
  if (++epoch == 0) {
    std::fill(stamp.begin(), stamp.end(), 0);
    epoch = 1;
  }
  // The steps whose listing wins over step s: the later ones (keep later),
  // the earlier ones (keep earlier), none (keep every).
  int from = 0, to = 0;
  if (rule_.keep == SwingKeep::later) from = s + 1, to = L_;
  if (rule_.keep == SwingKeep::earlier) from = 0, to = s;
  for (int t = from; t < to; ++t)
    for (Rank b : listed(r, t)) stamp[b] = epoch;
  if (rule_.skip_own) stamp[r] = epoch;
  std::vector<Rank> keep;
  for (Rank b : mine)
    if (stamp[b] != epoch) keep.push_back(b);
  return BlockSet::from_rank_blocks(std::move(keep));
}

BlockSet SwingBandwidthRing::last_step_send(Rank r, int s, std::vector<Rank> mine) const {
  // A block that two or more of r's steps list is sent only at step L-1 (to
  // pi(r, L-1)). Count, per block, the steps that list it.
  std::vector<std::vector<Rank>> all(static_cast<size_t>(L_));
  std::vector<uint8_t> listing(m_, 0);
  for (int t = 0; t < L_; ++t) {
    auto& v = all[static_cast<size_t>(t)];
    v = (t == s) ? std::move(mine) : listed(r, t);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (Rank b : v) listing[b]++;
  }
  if (rule_.skip_own) listing[r] = 0;
  std::vector<Rank> keep;
  for (Rank b : all[static_cast<size_t>(s)])
    if (listing[b] == 1) keep.push_back(b);
  if (s == L_ - 1)
    for (Rank b = 0; b < m_; ++b)
      if (listing[b] > 1) keep.push_back(b);
  return BlockSet::from_rank_blocks(std::move(keep));
}

void SwingBandwidthRing::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (r >= m_ || s < 0 || s >= 2 * L_) return;
  // The reduce-scatter step s, or the allgather with the peers in reverse
  // order (step 2L-1-s's exchange, the blocks going the other way).
  const bool rs = s < L_;
  const int t = rs ? s : 2 * L_ - 1 - s;
  const Rank q = pi(r, t, m_);
  const Combine c = rs ? Combine::reduce : Combine::copy;
  rs_send_into(rs ? r : q, t, out.add_send(q, c).blocks);
  if (out.sends.back().blocks.empty()) out.pop_send();
  rs_send_into(rs ? q : r, t, out.add_recv(q, c).blocks);
  if (out.recvs.back().blocks.empty()) out.pop_recv();
}

void SwingBandwidthRing::rs_send_into(Rank r, int s, BlockSet& into) const {
  // Copy-assigning the cached set reuses `into`'s storage (RankStep keeps
  // it from step to step): no allocation per transfer.
  if (cache_ && r < m_ && s >= 0 && s < L_) into = cached_rs_send(r, s);
  else into = rs_send(r, s);
}

std::unique_ptr<Schedule> make_swing_bandwidth(uint64_t p, SwingSendRule rule) {
  CollectiveSpec spec{Collective::allreduce, p, static_cast<uint32_t>(p), 0};
  return std::make_unique<SwingBandwidthRing>(spec, p, rule);
}

}  // namespace collcheck
