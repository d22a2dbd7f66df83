#include "schedules/traff/traff_reduce.hpp"

#include "schedules/input_error.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {

namespace traff {

int64_t first_capped_round(const std::vector<int64_t>& recvblock, int64_t n, int64_t x) {
  return first_capped_round(recvblock.data(), static_cast<int>(recvblock.size()), n, x);
}

}  // namespace traff

namespace {
TraffBroadcast checked_broadcast(uint64_t p, uint32_t n, Rank root) {
  if (p < 1 || n < 1 || root >= p) throw InputError("Träff reduce needs p >= 1, n >= 1 and 0 <= root < p");
  return TraffBroadcast(p, n, root);
}
}  // namespace

TraffReduce::TraffReduce(uint64_t p, uint32_t n, Rank root, Dedup dedup)
    : spec_{Collective::reduce, p, n, root}, bcast_(checked_broadcast(p, n, root)), dedup_(dedup),
      skip_(traff::skips(p)) {
  const int q = bcast_.q();
  x_ = q > 0 ? (q - (static_cast<int64_t>(n) - 1) % q) % q : 0;  // as Algorithm 1
}

bool TraffReduce::dropped(Rank u, int64_t i, Block c) const {
  if (dedup_ == Dedup::none || c + 1 != spec_.nblocks) return false;  // only the capped block n-1 repeats
  const uint64_t p = spec_.p;
  const uint64_t rel = (u + p - spec_.root) % p;
  const std::vector<int64_t> rb = traff::recvschedule(rel, skip_);
  return i != traff::first_capped_round(rb, spec_.nblocks, x_);
}

void TraffReduce::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  const int S = bcast_.num_steps();
  if (s < 0 || s >= S) return;
  const int bs = S - 1 - s;     // the broadcast step this reduce step reverses
  const int64_t i = bs + x_;    // its round in Algorithm 1's numbering
  RankStep b;
  bcast_.rank_step(r, bs, b);
  // Broadcast: r receives block c from f  ->  reduce: r sends its partial c to f.
  for (const Transfer& t : b.recvs) {
    const Block c = t.blocks.ranges().front().lo;  // Algorithm 1 moves one block per message
    if (!dropped(r, i, c)) out.sends.push_back({t.peer, t.blocks, Combine::reduce});
  }
  // Broadcast: r sends block c to t  ->  reduce: r receives t's partial c and combines.
  for (const Transfer& t : b.sends) {
    const Block c = t.blocks.ranges().front().lo;
    if (!dropped(t.peer, i, c)) out.recvs.push_back({t.peer, t.blocks, Combine::reduce});
  }
}

}  // namespace collcheck
