#pragma once
// Träff's n-block reduction (reduce to a root) over circulant graphs:
// Algorithm 1's broadcast run backwards (Observation 1.3).
//
// Algorithm  : J. L. Träff, "Optimal Broadcast Schedules in Logarithmic Time
//              with Applications to Broadcast, All-Broadcast, Reduction and
//              All-Reduction", Observation 1, item 3: "By reversing the
//              direction of all communication operations, working downwards
//              from round (n-1+q+x)-1 to round x and applying some given
//              binary, associative and commutative reduction operator on each
//              received block, the schedule gives a round-optimal solution to
//              the reduction problem". Built on TraffBroadcast (Algorithm 1
//              with the schedules of Algorithms 2-6, traff_broadcast.hpp).
// Reference  : Träff, "Optimal Broadcast Schedules in Logarithmic Time ...",
//              Sec. 1 Observation 1.3, Algorithm 1, Theorem 1.
// Names      : p, q = ceil(log2 p), skip[], recvblock[], sendblock[], x (the
//              first round of Algorithm 1 with real communication), S = n-1+q,
//              root-relative rank r' = (r - root) mod p; "uncapped block": the
//              block index recvblock[k] - x + q floor(i/q) of round i before
//              Algorithm 1 caps it to n-1.
// Rounds     : S = n-1+q (p > 1), round-optimal. Reduce step s' mirrors
//              broadcast step s = S-1-s' (round i = s + x, k = i mod q): where
//              the broadcast has r send block c to t = r + skip[k], the reduce
//              has t send its partial block c to r = t - skip[k], and r
//              combines it (Combine::reduce). Both ends are listed: the send
//              at t, the receive at r.
// Rules      : exactly the transfers of Algorithm 1 (negative blocks skipped,
//              blocks above n-1 capped to n-1, nothing sent to the root), with
//              directions and order reversed. Variant `first_receipt` (the
//              registry's default `reduce`) keeps, for each non-root rank and
//              block, only the rank's FIRST broadcast receipt of that block: a
//              receipt of the capped block n-1 in a round other than the first
//              round whose uncapped block is >= n-1 is dropped at both ends.
//              Variant `none` (`paper-reversed`) reverses every transfer.
// Why the first-receipt reversal is a correct reduce: for each block c the
//              kept transfers form a tree rooted at the root (every non-root
//              rank has exactly one kept receipt of c, from its parent; the
//              broadcast is correct, so every rank receives c). A rank u sends
//              c in the broadcast only after it holds c (Algorithm 1's
//              condition 4, causality), i.e. strictly after its first receipt.
//              So u's children in the first-receipt tree receive c strictly
//              later than u does; in reverse they send strictly earlier than u
//              sends to its parent, and u's partial result is complete (its
//              own input plus its whole subtree, each exactly once) when it is
//              sent. The root sends nothing and ends with every contribution.
//              Keeping a second receipt as well would send u's partial block
//              twice and add u's contribution to the root twice (exactly-once).
// Measured   : by Theorem 1 (correctness condition 3) the uncapped blocks a
//              rank receives are all distinct and exactly one of them, b_r +
//              n - 1, is >= n-1; so a rank receives block n-1 once and the
//              de-duplication never drops anything. Both variants hold under
//              `collcheck verify --algo traff-reduce --variant all --p 1..1024`
//              (n = 1, 2, 3, 8) and are the same schedule
//              (tests/unit/schedules/traff/traff_reduce_test.cpp, which also counts the capped
//              receipts with capped_receipts below). The filter stays as a
//              guard for schedules that break condition 3.
// Volume     : every non-root rank sends each of its n partial blocks exactly
//              once (n blocks); the root sends nothing and receives one block
//              in every step. At most one send and one receive per rank and step.
// Cost       : rank_step is O(q): Algorithms 5-6 for r (inside TraffBroadcast)
//              and, only when block n-1 is moved, Algorithm 5 for r or t to
//              find their first capped round (first_capped_round). No tables.
// Restrictions: p >= 1, n >= 1, 0 <= root < p.
// Example    : p = 4, n = 1, root 0: skip = 1, 2, 4, q = 2, x = 0. Broadcast:
//              round 0: 0 -> 1; round 1: 0 -> 2, 1 -> 3. Reduce: step 0: 2 -> 0
//              and 3 -> 1; step 1: 1 -> 0 (block 0, reduce). Each non-root rank
//              sends n = 1 block (`collcheck dump --algo traff-reduce --p 4 --n 1`).
#include <cstdint>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/traff/traff_broadcast.hpp"

namespace collcheck {

namespace traff {

// The first round i (x <= i < n-1+q+x, Algorithm 1's numbering) in which a
// rank with receive schedule `recvblock` (Algorithm 5, q entries) receives an
// uncapped block recvblock[i mod q] - x + q floor(i/q) >= n-1, i.e. its first
// receipt of block n-1. Returns n-1+q+x if there is none (e.g. the root's
// all-negative schedule). O(q).
int64_t first_capped_round(const std::vector<int64_t>& recvblock, int64_t n, int64_t x);

// Same for a schedule stored as q consecutive entries.
template <class T>
int64_t first_capped_round(const T* recvblock, int q, int64_t n, int64_t x) {
  const int64_t end = n - 1 + q + x;
  int64_t best = end;
  for (int k = 0; k < q; ++k) {
    const int64_t need = n - 1 + x - static_cast<int64_t>(recvblock[k]);  // q * floor(i/q) >= need
    const int64_t m = need <= 0 ? 0 : (need + q - 1) / q;
    int64_t i = m * q + k;
    if (i < x) i += q;  // rounds before x are virtual (x < q)
    if (i < best) best = i;
  }
  return best;
}

// How many rounds i (x <= i < n-1+q+x) deliver block n-1 (an uncapped block
// >= n-1) to that rank: 1 for every non-root rank of Algorithms 2-5 (Theorem 1),
// 0 for the root; more would be capped repeats. O(q).
template <class T>
int64_t capped_receipts(const T* recvblock, int q, int64_t n, int64_t x) {
  const int64_t end = n - 1 + q + x;
  int64_t count = 0;
  for (int k = 0; k < q; ++k) {
    const int64_t need = n - 1 + x - static_cast<int64_t>(recvblock[k]);
    const int64_t m = need <= 0 ? 0 : (need + q - 1) / q;
    int64_t i = m * q + k;
    if (i < x) i += q;
    if (i < end) count += (end - 1 - i) / q + 1;
  }
  return count;
}

}  // namespace traff

class TraffReduce final : public Schedule {
 public:
  enum class Dedup { first_receipt, none };
  TraffReduce(uint64_t p, uint32_t n, Rank root, Dedup dedup = Dedup::first_receipt);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return bcast_.num_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int q() const { return bcast_.q(); }
  // The broadcast this schedule reverses.
  const TraffBroadcast& broadcast() const { return bcast_; }

 private:
  // Whether the broadcast receipt of block c by rank u in round i is dropped.
  bool dropped(Rank u, int64_t i, Block c) const;

  CollectiveSpec spec_;
  TraffBroadcast bcast_;
  Dedup dedup_;
  std::vector<int64_t> skip_;
  int64_t x_;
};

}  // namespace collcheck
