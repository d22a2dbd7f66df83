#include "schedules/traff/traff_reduce_scatter.hpp"

#include <string>

#include "schedules/input_error.hpp"
#include "schedules/traff/traff_circulant.hpp"
#include "schedules/traff/traff_reduce.hpp"

namespace collcheck {

namespace {
TraffAllgather checked_allgather(uint64_t p, uint32_t n) {
  if (p < 1 || n < 1) throw InputError("Träff reduce-scatter needs p >= 1 and n >= 1");
  return TraffAllgather(p, n);  // checks n * p < 2^32 - 1
}
}  // namespace

TraffReduceScatter::TraffReduceScatter(uint64_t p, uint32_t n)
    : spec_{Collective::reduce_scatter, p, 0, 0}, ag_(checked_allgather(p, n)) {
  spec_.nblocks = ag_.num_blocks();
  const std::vector<int64_t> skip = traff::skips(p);
  const int q = static_cast<int>(skip.size()) - 1;
  x_ = q > 0 ? (q - (static_cast<int64_t>(n) - 1) % q) % q : 0;  // as Algorithm 1
  first_capped_.resize(p);
  for (uint64_t rel = 0; rel < p && q > 0; ++rel)
    first_capped_[rel] = static_cast<int32_t>(traff::first_capped_round(traff::recvschedule(rel, skip), n, x_));
}

BlockSet TraffReduceScatter::kept(Rank u, int64_t i, BlockSet&& blocks) const {
  const uint64_t p = spec_.p, n = ag_.n();
  // Only root j's block n-1 (global j*n + n-1) can repeat; look at those alone.
  std::vector<Block> drop;
  for (const BlockSet::Range& rg : blocks.ranges()) {
    for (uint64_t b = rg.lo + (n - 1 + n - rg.lo % n) % n; b < rg.hi; b += n) {  // b % n == n-1
      if (first_capped_[(u + p - b / n) % p] != i) drop.push_back(static_cast<Block>(b));
    }
  }
  for (Block b : drop) blocks.erase(b);
  return std::move(blocks);
}

void TraffReduceScatter::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  const int S = ag_.num_steps();
  if (s < 0 || s >= S) return;
  const int as = S - 1 - s;    // the allgather step this step reverses
  const int64_t i = as + x_;   // its round in Algorithm 7's numbering
  RankStep a;
  ag_.rank_step(r, as, a);
  // Allgather: r receives blocks B from f  ->  r sends its partial blocks B to f.
  for (Transfer& t : a.recvs) {
    BlockSet b = kept(r, i, std::move(t.blocks));
    if (!b.empty()) out.sends.push_back({t.peer, std::move(b), Combine::reduce});
  }
  // Allgather: r sends blocks A to t (t's receipts)  ->  r receives t's partial blocks A.
  for (Transfer& t : a.sends) {
    BlockSet b = kept(t.peer, i, std::move(t.blocks));
    if (!b.empty()) out.recvs.push_back({t.peer, std::move(b), Combine::reduce});
  }
}

}  // namespace collcheck
