#pragma once
// Swing latency-optimal allreduce on a 1D ring.
//
// Algorithm  : Swing, NSDI'24, Sec. 3.1.2: "at each step each node exchanges its
//              entire vector with that of its peer", peer pi(r, s) of Eq. 2.
// Steps      : log2 p for p a power of two.
// Volume     : log2 p vectors per rank (1 block = the whole vector).
// Non-power-of-two p: the paper gives no latency-optimal rule (Sec. 3.2 only
//              treats the bandwidth-optimal reduce-scatter), and whole vectors
//              cannot be de-duplicated. Variant `latency` folds onto the largest
//              power of two p' (fold.hpp): log2 p' + 2 steps.
//              Variant `paper-latency` applies Eq. 2 as printed at every p,
//              with ceil(log2 p) steps (collcheck's extension of "log2 p"
//              steps): the checker refutes it at p = 3 (matching:
//              pi is not an involution on odd rings) and p = 6 (double counting).
// Example    : p = 4, rank 0 talks to 1, then 3; after 2 steps it holds all 4 inputs.
#include <memory>

#include "schedules/schedule.hpp"

namespace collcheck {

class SwingLatencyRing final : public Schedule {
 public:
  explicit SwingLatencyRing(uint64_t p);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return L_; }
  void rank_step(Rank r, int s, RankStep& out) const override;

 private:
  CollectiveSpec spec_;
  int L_;
};

std::unique_ptr<Schedule> make_swing_latency(uint64_t p);        // folded for non-powers of two
std::unique_ptr<Schedule> make_swing_latency_paper(uint64_t p);  // Eq. 2 as printed, at every p

}  // namespace collcheck
