#pragma once
// Trivance bandwidth-optimal allreduce on a bidirectional ring of n nodes.
//
// Algorithm  : Trivance ("Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks"), Sec. 4.1 and 4.3:
//              reduce-scatter over n blocks (block b ends reduced at node b),
//              then the allgather "in reverse order": every reduce-scatter
//              transfer reversed, as a copy, steps in reverse. Peers
//              pi(r, k, n) = (r - d_k, r + d_k) mod n, d_k = 3^k. ports() = 2.
// Reference  : Sec. 4.1 (peers, Lemma 4.1), Sec. 4.3 (Algorithm 1
//              BlockPropagation and the closed form Pi(n, r, p, k)), Sec. 4.4.
// Names      : n nodes (p), blocks b_0..b_{n-1}, step k, s = ceil(log3 n),
//              Pi(n, r, p, k) = { p + sum_{i>k} eps_i d_i mod n, eps_i in {-1,0,1} }
//              (the printed "sum_{i=t}^{t}" read as i = k+1..s-1, and the
//              printed 3^i as the distance d_i step i really uses: Sec. 4.4
//              changes the last one for n not a power of three).
// Steps      : 2s.
// Volume     : Lemma 4.1: sum_k 2 m / 3^(k+1) = m (1 - 1/n) per phase, i.e.
//              n - 1 blocks of m/n per phase, 2(n-1) blocks per node.
// Routing    : in step k node r sends to p = r +- d_k the blocks of Pi(n, r, p, k)
//              (Algorithm 1: the nodes p reaches in steps k+1..s-1). For n a
//              power of three balanced ternary makes every (block, source) path
//              unique and Pi never contains r. For other n, distinct digit
//              vectors reach the same node, and the paper says neither which
//              path to keep nor whether r sends its own block b = r (in Pi
//              when p reaches r later). TrivanceRouting builds each reading
//              (registry variants; tests/unit/schedules/trivance/trivance_readings_test.cpp):
//              * every path (Algorithm 1 per peer as Sec. 4.3's prose applies
//                it, no de-duplication; the call is not printed; `paper-bandwidth`, with
//                Sec. 4.4's printed last distance; `-own-stays` without the own
//                block): sends a block along several paths and counts
//                contributions twice, refuted at n = 2 either way;
//              * one path per contribution, the first move of a preference
//                order that keeps the remainder c = (b - r) mod n reachable
//                with digits k+1.., with the last distance of the text and
//                Fig. 4, ceil((n - 3^t) / 2) (t = floor(log3 n)), which makes
//                every remainder reachable:
//                - "stay" (eps = 0) first (`bandwidth`: stay, right, left;
//                  `dedup-stay-left-right`, its mirror image) holds: a block is
//                  forwarded only when it cannot stay, incoming blocks land
//                  only on remainders that can, and those sets shrink with k,
//                  so no rank ever receives a block it forwarded; the own block
//                  (c = 0, reachable with all digits 0) never moves. Each node
//                  sends exactly n - 1 blocks per phase for every n.
//                - a move first (Sec. 4.1's "r must send ... the data blocks
//                  designated for the nodes that p will reach"; `dedup-right-*`,
//                  `dedup-left-*`, own block sent or, `-own-stays`, kept) is
//                  refuted at n = 4: a block that could stay is forwarded and
//                  refilled in the same step by the neighbour's same choice;
//                  the sender still holds what it sent, so the refilled value
//                  counts it twice. The own-block rule changes no verdict.
//              * every listing of Pi, then each block only at its last
//                listing in Algorithm 1's order (keep_last_listing, Swing's
//                App. A.2 rule carried over; `paper-keep-last`, own block sent
//                where Pi lists it, and `paper-keep-last-own-stays`). Here Pi
//                lists the own block, so an own-block rule is a reading of its
//                own: the "own block never moves" of the stay-first orders
//                does not carry over.
// Example    : n = 9, step 0: node 0 sends to 1 blocks {1, 4, 7} (1 + {0, 3, -3})
//              and to 8 blocks {8, 2, 5}; step 1: to 3 block 3, to 6 block 6.
#include <array>
#include <cstdint>
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
    friend bool operator==(const Move&, const Move&) = default;
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

// Which reading of Algorithm 1 / Pi(n, r, p, k) the generator builds. The
// paper prints neither a de-duplication nor a rule about a rank's own block:
// for n = 3^s every (block, source) has one path (balanced ternary) and the
// own block b = r is never in Pi, so every reading below generates the same
// schedule there; they differ only for other n. The registry names each
// reading (trivance variants `bandwidth`, `paper-*`, `dedup-*`).
struct TrivanceRouting {
  // eps_k of the paper: forwarded right (+1), left (-1) or not (0, stay).
  enum class Move : uint8_t { stay, right, left };
  // Sec. 4.4's printed last distance ceil((3^ceil(log3 n) - n)/2) instead of
  // the text's and Fig. 4's ceil((n - 3^t)/2).
  bool printed_last_distance = false;
  // Algorithm 1 per peer, no de-duplication: to each peer p every block of Pi(n, r, p, k),
  // however many paths reach it (no de-duplication; `preference` unused).
  bool every_path = false;
  // De-duplication: in step k every held contribution, remainder
  // c = (b - r) mod n, takes the first move of `preference` after which its
  // remainder is still reachable with the digits k+1..s-1 (one path each).
  std::array<Move, 3> preference{Move::stay, Move::right, Move::left};
  // Added by collcheck in some readings: a rank never sends its own block
  // (c = 0), whatever `preference` or Pi says. With `stay` first it changes
  // nothing (c = 0 is always reachable with all digits 0).
  bool own_block_stays = false;
  // With every_path: the Swing paper's de-duplication (Sec. 3.2, App. A.2:
  // a repeated block sent only at its last listing) carried over to
  // Algorithm 1's listings (collcheck's reading; the Trivance paper prints no
  // de-duplication): a block that several (step, peer) listings name is sent
  // only at the last of them, in the order Algorithm 1 visits them (steps
  // ascending; in a step peer_left, then peer_right). One path per block.
  // (Keeping both peers of the last step instead fails at n = 2 already, as
  // paper-bandwidth does: both ports carry block 0 to rank 0.) The own block
  // is sent where Pi lists it unless own_block_stays.
  bool keep_last_listing = false;
};

// Distances d_0..d_{s-1} (s = ceil(log3 n)): 3^k, the last one for n not a
// power of three ceil((n - 3^t)/2), or the printed formula.
std::vector<uint64_t> trivance_distances(uint64_t n, bool printed_last_distance = false);
// The reduce-scatter moves of the reading, offsets ascending (exposed for tests,
// the torus and the coverage property).
std::vector<std::vector<OffsetRoutingRing::Move>> trivance_moves(uint64_t n, const TrivanceRouting& how = {});

std::unique_ptr<Schedule> make_trivance_bandwidth(uint64_t n, const TrivanceRouting& how = {});

// `ring`, an OffsetRoutingRing, as a TranslationEquivariant
// (translation_equivariant.hpp, shift h = 1) for the certified quotients.
// The faithfulness argument is the engine's rule itself: rank r's peers are
// r + sigma and r - sigma, its blocks r + c and r - sigma + c (mod n), so r
// enters only as r + (a constant): rank r's transfers are rank 0's
// translated by r, blocks shifted by r. The registry's Trivance bandwidth
// readings and Bruck's bandwidth allreduce are wrapped here; every rank is
// compared with the direct generator in translation_equivariant_test.cpp.
// Throws std::logic_error if `ring` is not an OffsetRoutingRing.
std::unique_ptr<Schedule> offset_routing_certified(std::unique_ptr<Schedule> ring);

}  // namespace collcheck
