#pragma once
// Trivance latency-optimal allreduce on a bidirectional ring of n nodes.
//
// Algorithm  : Trivance ("Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks"), Sec. 4.2: "running one
//              phase", every node forwards its entire vector to both peers
//              pi(r, k, n) = (r - 3^k, r + 3^k) mod n and reduces both receipts
//              (the "joint reduction"). ports() = 2.
// Reference  : Sec. 4.1 (peers, rho(k) = 3^k), Sec. 4.2, Lemma 4.2 / App. A
//              (coverage radius R_k = (3^(k+1) - 1) / 2), Sec. 4.4 (other n).
// Names      : n nodes (the registry's p), step k, peers pi_left / pi_right,
//              s = ceil(log3 n).
// Steps      : s for n a power of three (Theorem 4.3).
// Volume     : 2 whole vectors per step and node (one per port): 2s vectors.
//              Sec. 4.2 says "m log3 n transmitted bytes per node", which counts
//              one port; collcheck claims what the schedule sends, 2s.
// Other n    : Sec. 4.4 prints: "In the final step, each node r communicates
//              in both directions with a distance of
//              ceil((3^ceil(log3 n) - n) / 2)". With whole vectors the two
//              peers' windows (3^t nodes each, t = floor(log3 n)) always overlap
//              r's own window when n is not a power of three, so no last-step
//              distance can deliver exactly once: make_trivance_latency_paper()
//              (registry variant `paper-last-step`) is the printed rule, refuted
//              at n = 2 (exactly-once: both peers are node 1). The corrected
//              default folds onto m = 3^t (fold3_onto): t + 2 steps.
// Example    : n = 9, node 0: step 0 receives 8 and 1, step 1 receives 6 (which
//              holds 5, 6, 7) and 3 (2, 3, 4): all 9 after 2 steps (Fig. 3).
#include <memory>

#include "schedules/int_math.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {
namespace trivance {
using collcheck::ceil_log3;  // schedules/int_math.hpp
using collcheck::floor_log3;
using collcheck::is_pow3;
using collcheck::pow3;
// Sec. 4.4's printed last-step distance ceil((3^ceil(log3 n) - n) / 2).
uint64_t paper_last_distance(uint64_t n);
// The distance the text and Fig. 4 describe ("increases by one for each two
// nodes of n exceeding 3^floor(log3 n)"; n = 7: 2): ceil((n - 3^t) / 2).
uint64_t corrected_last_distance(uint64_t n);
}  // namespace trivance

// Whole-vector exchange with r -+ d_k, d_k = 3^k; for n not a power of three
// the last step uses `last_distance` (the printed rule). Both receipts reduce.
class TrivanceLatencyRing final : public Schedule {
 public:
  TrivanceLatencyRing(uint64_t n, uint64_t last_distance);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return s_; }
  void rank_step(Rank r, int k, RankStep& out) const override;
  int ports() const override { return 2; }
  uint64_t distance(int k) const;

 private:
  CollectiveSpec spec_;
  int s_;
  uint64_t last_;
};

// Folding onto m ranks with up to two extra ranks per core rank (n <= 3m):
// step 0 extra x sends its vector to x mod m (reduce), then the inner
// schedule, then the last step copies the result back: a FoldedSchedule
// with two extra ranks per core rank (fold.hpp). Returns inner if n == m.
std::unique_ptr<Schedule> fold3_onto(uint64_t n, std::unique_ptr<Schedule> inner);

std::unique_ptr<Schedule> make_trivance_latency(uint64_t n);        // corrected: fold onto 3^t
std::unique_ptr<Schedule> make_trivance_latency_paper(uint64_t n);  // Sec. 4.4 printed last step

}  // namespace collcheck
