#pragma once
// Trivance bandwidth-optimal allreduce on a bidirectional ring of n nodes.
//
// Algorithm  : Trivance (../shared/papers/trivance.txt), Sec. 4.1 and 4.3:
//              reduce-scatter over n blocks (block b ends reduced at node b),
//              then the allgather "in reverse order": every reduce-scatter
//              transfer reversed, as a copy, steps in reverse. Peers
//              pi(r, k, n) = (r - d_k, r + d_k) mod n, d_k = 3^k. ports() = 2.
// Reference  : Sec. 4.1 (peers, Lemma 4.1), Sec. 4.3 (Algorithm 1
//              BlockPropagation and the closed form Pi(n, r, p, k)), Sec. 4.4.
// Names      : n nodes (p), blocks b_0..b_{n-1}, step k, s = ceil(log3 n),
//              Pi(n, r, p, k) = { p + sum_{i>k} eps_i d_i mod n, eps_i in {-1,0,1} }
//              (the printed "sum_{i=t}^{t}" read as i = k+1..s-1).
// Steps      : 2s.
// Volume     : Lemma 4.1: sum_k 2 m / 3^(k+1) = m (1 - 1/n) per phase, i.e.
//              n - 1 blocks of m/n per phase, 2(n-1) blocks per node.
// Routing    : in step k node r sends to p = r +- d_k the blocks of Pi(n, r, p, k)
//              (Algorithm 1: the nodes p reaches in steps k+1..s-1). For n a
//              power of three balanced ternary makes every (block, source) path
//              unique. For other n, distinct digit vectors reach the same node,
//              so Algorithm 1 read literally (Rule::paper, with Sec. 4.4's printed
//              last distance) sends a block along several paths and counts
//              contributions twice: refuted at n = 2.
//              Rule::corrected routes every contribution along one path: a
//              node forwards block b in step k by eps = 0 if the remainder
//              c = (b - r) mod n is reachable with digits k+1.., else +1, else
//              -1 (the de-duplication of Algorithm 1's reach sets), with the
//              last distance of the text and Fig. 4, ceil((n - 3^t) / 2)
//              (t = floor(log3 n)), which makes every remainder reachable. Each
//              node then sends exactly n - 1 blocks per phase for every n.
// Example    : n = 9, step 0: node 0 sends to 1 blocks {1, 4, 7} (1 + {0, 3, -3})
//              and to 8 blocks {8, 2, 5}; step 1: to 3 block 3, to 6 block 6.
#include <memory>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

// The shared engine: a translation-invariant reduce-scatter on a ring, each
// step a list of moves (shift sigma, offsets C): node r sends to r + sigma the
// blocks { r + c mod n : c in C } (reduce), receives from r - sigma the blocks
// { r - sigma + c : c in C }; then (two_phase) the allgather, every transfer
// reversed as a copy, steps reversed. One transfer per move, never merged.
class OffsetRoutingRing final : public Schedule {
 public:
  struct Move {
    uint64_t shift = 0;  // mod n, != 0
    std::vector<uint64_t> offsets;
  };
  OffsetRoutingRing(uint64_t n, std::vector<std::vector<Move>> steps, bool two_phase, int ports);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return two_phase_ ? 2 * rs_steps() : rs_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return ports_; }
  int rs_steps() const { return static_cast<int>(steps_.size()); }
  const std::vector<Move>& moves(int k) const { return steps_.at(k); }

 private:
  CollectiveSpec spec_;
  std::vector<std::vector<Move>> steps_;
  bool two_phase_;
  int ports_;
};

// corrected: one path per contribution, last distance ceil((n - 3^t)/2);
// paper: Algorithm 1 literally (every reach path), printed last distance;
// paper_distance: one path per contribution, printed last distance (isolates
// the printed formula: it leaves remainders unreachable from n = 7 on).
enum class TrivanceRule { corrected, paper, paper_distance };

// Distances d_0..d_{s-1} of the rule (s = ceil(log3 n)).
std::vector<uint64_t> trivance_distances(uint64_t n, TrivanceRule rule);
// The reduce-scatter moves of the rule (exposed for tests and the coverage property).
std::vector<std::vector<OffsetRoutingRing::Move>> trivance_moves(uint64_t n, TrivanceRule rule);

std::unique_ptr<Schedule> make_trivance_bandwidth(uint64_t n, TrivanceRule rule = TrivanceRule::corrected);

}  // namespace collcheck
