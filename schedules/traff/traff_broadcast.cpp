#include "schedules/traff/traff_broadcast.hpp"

#include "schedules/input_error.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {

TraffBroadcast::TraffBroadcast(uint64_t p, uint32_t n, Rank root)
    : spec_{Collective::broadcast, p, n, root}, skip_(traff::skips(p)) {
  q_ = static_cast<int>(skip_.size()) - 1;
  x_ = q_ > 0 ? (q_ - (static_cast<int64_t>(n) - 1) % q_) % q_ : 0;
  steps_ = p > 1 ? static_cast<int>(n) - 1 + q_ : 0;
}

TraffBroadcast::TraffBroadcast(uint64_t p, uint32_t n, Rank root, std::vector<std::vector<int64_t>> recvblock,
                               std::vector<std::vector<int64_t>> sendblock)
    : TraffBroadcast(p, n, root) {
  if (p < 1 || n < 1 || root >= p) throw InputError("Träff broadcast needs p >= 1, n >= 1 and 0 <= root < p");
  if (recvblock.size() != p || sendblock.size() != p)
    throw InputError("Träff tables need one recvblock and one sendblock row per rank (p = " + std::to_string(p) + ")");
  for (uint64_t r = 0; r < p; ++r)
    if (recvblock[r].size() != static_cast<size_t>(q_) || sendblock[r].size() != static_cast<size_t>(q_))
      throw InputError("Träff tables: rank " + std::to_string(r) + " needs q = " + std::to_string(q_) +
                       " recvblock and sendblock entries");
  explicit_tables_ = true;
  recv_ = std::move(recvblock);
  send_ = std::move(sendblock);
}

void TraffBroadcast::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= steps_) return;
  const int64_t p = static_cast<int64_t>(spec_.p);
  const int64_t n = spec_.nblocks;
  const int64_t rel = (static_cast<int64_t>(r) - spec_.root + p) % p;  // root-relative rank
  traff::RankSchedule computed;
  if (!explicit_tables_) computed = traff::rank_schedule(static_cast<uint64_t>(rel), skip_);
  const std::vector<int64_t>& recvblock = explicit_tables_ ? recv_[static_cast<size_t>(rel)] : computed.recvblock;
  const std::vector<int64_t>& sendblock = explicit_tables_ ? send_[static_cast<size_t>(rel)] : computed.sendblock;
  const int64_t i = s + x_;
  const int k = static_cast<int>(i % q_);
  const int64_t shift = -x_ + q_ * ((i - k) / q_);
  auto clamp = [n](int64_t b) { return b > n - 1 ? n - 1 : b; };
  const Rank t = static_cast<Rank>((rel + skip_[k]) % p + spec_.root) % static_cast<Rank>(p);
  const Rank f = static_cast<Rank>((rel - skip_[k] + p) % p + spec_.root) % static_cast<Rank>(p);
  const int64_t sb = sendblock[k] + shift, rb = recvblock[k] + shift;
  if (sb >= 0 && t != spec_.root)
    out.sends.push_back({t, BlockSet::single(static_cast<Block>(clamp(sb))), Combine::copy});
  if (rb >= 0 && r != spec_.root)
    out.recvs.push_back({f, BlockSet::single(static_cast<Block>(clamp(rb))), Combine::copy});
}

}  // namespace collcheck
