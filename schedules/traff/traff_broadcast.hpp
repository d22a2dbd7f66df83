#pragma once
// Träff's n-block broadcast over circulant graphs (Algorithm 1).
//
// Algorithm  : J. L. Träff, "Round-optimal n-block broadcast schedules in
//              logarithmic time", Algorithm 1; schedules from Algorithms 2-6
//              (traff_circulant.hpp).
// Names      : p, q = ceil(log2 p), skip[], recvblock[], sendblock[], x (the
//              first round with real communication), root-relative rank r.
// Rounds     : n - 1 + q (round-optimal); round i = x .. n+q-2+x uses
//              k = i mod q, to-processor t = r + skip[k], from-processor
//              f = r - skip[k] (mod p). Block sent in round i:
//              sendblock[k] - x + q * floor((i - k) / q), likewise received.
// Rules      : negative blocks are neither sent nor received; blocks above
//              n-1 are sent/received as block n-1; nothing is sent to the root
//              (so the root receives nothing). Transfers are copies.
// Volume     : one block per round at most; the root sends in every round.
// Restrictions: p >= 1, n >= 1, 0 <= root < p. Any root: ranks are relabelled
//              r' = (r - root) mod p.
// Example    : p = 4, n = 1: q = 2 rounds; the root sends block 0 to 1, then
//              0 and 1 send it to 2 and 3.
#include <cstdint>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

class TraffBroadcast final : public Schedule {
 public:
  TraffBroadcast(uint64_t p, uint32_t n, Rank root);
  // Algorithm 1 driven by explicit tables instead of Algorithms 2-6:
  // recvblock[r][k], sendblock[r][k] for the root-relative rank r = 0..p-1
  // (r = 0 is the root) and k = 0..q-1, q = ceil(log2 p); e.g. read from a
  // `dump --format traff-table` file. The tables are used as given (no check of
  // Träff's conditions; see properties/traff/traff_conditions.hpp). InputError if p,
  // the number of rows, or a row's length does not fit.
  TraffBroadcast(uint64_t p, uint32_t n, Rank root, std::vector<std::vector<int64_t>> recvblock,
                 std::vector<std::vector<int64_t>> sendblock);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return steps_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int q() const { return q_; }

 private:
  CollectiveSpec spec_;
  std::vector<int64_t> skip_;
  int q_;
  int64_t x_;
  int steps_;
  bool explicit_tables_ = false;
  std::vector<std::vector<int64_t>> recv_, send_;  // only with explicit tables
};

}  // namespace collcheck
