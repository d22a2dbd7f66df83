#pragma once
// Träff's n-block all-broadcast (allgather) over circulant graphs (Algorithm 7).
//
// Algorithm  : J. L. Träff, "Optimal Broadcast Schedules in Logarithmic Time
//              with Applications to Broadcast, All-Broadcast, Reduction and
//              All-Reduction", Appendix A, Algorithm 7 (ALLBROADCAST): the p
//              broadcasts of Algorithm 1, one per root j, run simultaneously;
//              in each round a rank combines the blocks of all roots into ONE
//              message to t and receives ONE message from f.
// Reference  : Träff, "Optimal Broadcast Schedules in Logarithmic Time ...",
//              Appendix A (Algorithm 7); receive schedules from Algorithms 2-5
//              (traff_circulant.hpp).
// Names      : p, q = ceil(log2 p), skip[], recvblocks[j][k] (the receive
//              schedule of r' = (r - j + p) mod p, the rank relative to root
//              j), sendblocks[j][k] = recvblocks[(j - skip[k]) mod p][k] (the
//              to-processor's receive block for root j), x (the virtual-round
//              offset of Algorithm 1). Global block of root j's block blk:
//              j * n + blk (Collective::allgather, nblocks = n * p, owner j).
// Rounds     : n - 1 + q (as Algorithm 1); round i = x .. n+q-2+x uses
//              k = i mod q, t = r + skip[k], f = r - skip[k] (mod p). For root
//              j the block is recvblocks[.][k] - x + q * floor((i - k) / q).
// Rules      : negative blocks are neither packed nor unpacked; blocks above
//              n-1 are taken as n-1; root j's block is not packed when j = t
//              (t is that root and already has it) and not unpacked when
//              j = r. Transfers are copies; a message is empty (and then not
//              sent) only if every root's block is skipped.
// Volume     : every rank sends (and receives) exactly n(p-1) blocks in total:
//              as j runs over 0..p-1, r' = (r - j) mod p runs over all ranks,
//              so rank r's sends over all roots are the sends of one whole
//              Algorithm 1 broadcast, n per non-root rank (each non-root rank
//              receives blocks 0..n-1 exactly once; see the registry claim).
//              At most p-1 blocks per round.
// Cost       : the constructor computes the p receive schedules (Algorithms
//              4-5) once: O(p log p) time and p*q 16-bit entries (nothing
//              O(p^2) is kept). rank_step is O(p) (one table lookup per root);
//              computing the p schedules per rank-step, as printed, would be
//              O(p log p) per rank-step.
// Restrictions: p >= 1, n >= 1, n * p < 2^32 - 1. No root (root must be 0).
// Example    : p = 3, n = 1: skip = 1, 2, 3, q = 2, x = 0, two rounds, blocks
//              0, 1, 2 owned by ranks 0, 1, 2. Round 0 (k = 0): r sends its
//              own block r to r+1 and receives block r-1 from r-1. Round 1
//              (k = 1): r sends to t = r+2 only its own block (the block of
//              root r-1 = t is not packed: t is its root) and receives block
//              r+1 from r+1. Each rank sends n(p-1) = 2 blocks
//              (`collcheck dump --algo traff-allgather --p 3 --n 1`).
#include <cstdint>
#include <memory>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

class TraffAllgather final : public Schedule {
 public:
  TraffAllgather(uint64_t p, uint32_t n);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return steps_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int q() const { return q_; }
  uint32_t n() const { return n_; }

 private:
  CollectiveSpec spec_;
  uint32_t n_;
  std::vector<int64_t> skip_;
  int q_;
  int64_t x_;
  int steps_;
  std::vector<int16_t> recv_;  // recv_[r' * q + k] = recvblock[k] of relative rank r'
};

// Algorithm 7 and its reversals (TraffReduceScatter: Observation 1.4;
// TraffAllreduce: the two in sequence), certified equivariant under the
// translations with blocks shifted by n per rank
// (schedules/translation_equivariant.hpp), checked by their quotient. Why
// the image is the algorithm's rank r: rank r reads r only through the
// relative rank r' = r - j of root j, t = r + skip[k] and f = r - skip[k]
// (mod p); root j's blocks are j*n .. j*n + n-1. So rank r's transfers for
// root j + r are rank 0's for root j, with peers + r and blocks + r*n. The
// reduce-scatter's first-receipt filter (kept) reads u - j alone, and the
// allreduce concatenates the two. `direct` is one of the three (any other
// schedule is a caller's error and not certified by this).
std::unique_ptr<Schedule> traff_circulant_certified(std::unique_ptr<Schedule> direct, uint32_t n);

}  // namespace collcheck
