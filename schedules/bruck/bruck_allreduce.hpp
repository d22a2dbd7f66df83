#pragma once
// Bruck's allreduce on a ring of n nodes with two ports, the Trivance paper's
// baseline.
//
// Algorithm  : Trivance paper ("Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks") Sec. 2.4 "Bruck":
//              Bruck's concatenation algorithm (Bruck et al. 1994) extended to
//              allreduce; "each node communicates with two peers per step k of
//              distance 3^k mod n and 2*3^k mod n", all traffic in one
//              direction (Sec. 3.1). Node r receives from r + 3^k and r + 2*3^k
//              and sends to r - 3^k and r - 2*3^k. ports() = 2.
// Reference  : Sec. 2.4 (Bruck (L), Bruck (B)), Table 1, App. B.1.
// Names      : n nodes (p), step k, s = ceil(log3 n).
// Latency    : whole vector ("propagates the entire data vector m"): after step
//              k node r holds r, ..., r + 3^(k+1) - 1; s steps, 2 vectors per
//              step and node for n a power of three. Other n: the paper gives no
//              rule for whole vectors (the windows overlap, as for Trivance);
//              collcheck folds onto 3^floor(log3 n) (fold3_onto): t + 2 steps.
// Bandwidth  : "structured similarly to Recursive Doubling": reduce-scatter,
//              then the allgather reversed, 2s steps. Block b's contribution
//              from node u moves by delta_k 3^k in step k, delta the base-3
//              digits of (b - u) mod n (derived by collcheck: unique digits make
//              every path unique for every n, so no de-duplication is needed):
//              in step k node r sends to r + j 3^k (j = 1, 2) the blocks b with
//              (b - r) mod n = j 3^k + (multiple of 3^(k+1)). n - 1 blocks per phase.
//              A rank never sends its own block (b = r: all digits 0). The
//              paper prints no block rule for Bruck (unlike Trivance's
//              Algorithm 1), so there is no printed reach set whose
//              de-duplication or own block would need reading (contrast
//              trivance_bandwidth.hpp's TrivanceRouting).
// Example    : n = 9, bandwidth, step 0: node 0 sends to 1 blocks {1, 4, 7}, to 2
//              blocks {2, 5, 8}; step 1: to 3 block 3, to 6 block 6.
#include <memory>

#include "schedules/schedule.hpp"

namespace collcheck {

// Whole-vector Bruck on n = 3^s ranks (any n: windows overlap when not a power of three).
class BruckLatencyRing final : public Schedule {
 public:
  explicit BruckLatencyRing(uint64_t n);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return s_; }
  void rank_step(Rank r, int k, RankStep& out) const override;
  int ports() const override { return 2; }

 private:
  CollectiveSpec spec_;
  int s_;
};

std::unique_ptr<Schedule> make_bruck_allreduce_latency(uint64_t n);    // folds for non-powers of three
std::unique_ptr<Schedule> make_bruck_allreduce_bandwidth(uint64_t n);  // every n

}  // namespace collcheck
