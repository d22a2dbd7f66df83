#pragma once
// Trivance allreduce on a D-dimensional torus (latency- and bandwidth-optimal).
//
// Algorithm  : Trivance ("Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks"), Sec. 5: "one collective
//              for each of the D dimensions with 1/D of the initial data
//              vector"; Fig. 5 (9x9): in step 0 the original collective (c = 0)
//              talks along the horizontal dimension at distance 1, the mirrored
//              one (c = 1) along the vertical one; "in step 1, both collectives
//              switch dimensions while maintaining the communication distance";
//              "in step 2 ... proceed in their dimension from step 0 but with
//              communication distance three". So collective c in step j uses
//              dimension (c + j) mod D at the ring distance of its
//              floor(j / D)-th step in that dimension, and "each collective is
//              mapped to a distinct dimension in every step". ports() = 2D.
// Each step  : of collective c in dimension d is ring step k of the corrected
//              ring Trivance of side n_d (schedules/trivance/trivance_latency.hpp,
//              trivance_bandwidth.hpp) run on every line of the torus along d,
//              restricted to collective c's share:
//               * latency: nblocks = D, block c is collective c's share (m/D);
//                 a step is the ring's whole-vector step on block c (the ring's
//                 fold onto 3^floor(log3 n_d) where n_d is not a power of three).
//               * bandwidth: nblocks = D * p, block c*p + rank(b) is the part of
//                 collective c's share reduced at node b (b a torus node, rank
//                 row-major). Reduce-scatter: in a dimension-d step the ring's
//                 move (shift sigma, offsets C) of the default TrivanceRouting sends
//                 to v + sigma e_d the blocks b with b_d - v_d in C and, in
//                 every other dimension e, b_e - v_e in H_e (the remainders the
//                 ring still holds after the dimension-e steps done so far).
//                 Then the allgather: every transfer reversed as a copy, steps
//                 reversed (Sec. 4.1 "in reverse order").
//              Steps of different dimensions act on different coordinates, so
//              any interleaving that keeps each dimension's order computes the
//              product of the per-dimension ring results: the full allreduce,
//              each contribution along one path (exactly once).
// Unequal    : sides whose ring step counts S_d differ (e.g. 3x9): the paper is
//              silent. collcheck's choice: every collective still takes
//              T = sum_d S_d steps (no idle steps), visiting the dimensions round
//              robin from its own first dimension c and skipping a dimension
//              whose S_d steps are done. Then two collectives can use one
//              dimension in the same step (both ports of that dimension carry two
//              messages, another dimension idles): unavoidable in T steps,
//              because each collective needs S_max steps in the longest
//              dimension and D collectives cannot share a dimension-step, so a
//              collision-free schedule needs D * S_max > T steps. The k-port
//              model's count (ports = 2D sends per node) still holds;
//              trivance-coverage reports the collisions (port_collision_rank_steps).
// Names      : dims n_0..n_{D-1} (InstanceParams::dims), p = prod n_d, node
//              v = (v_0..v_{D-1}), rank(v) = (..(v_0 n_1 + v_1) n_2 + ..) (row-
//              major, as MPI_Cart_create), collective c, step j, S_d.
// Steps      : latency T = sum_d S_d (S_d = ceil(log3 n_d) for n_d = 3^k, else
//              floor(log3 n_d) + 2 (fold)); bandwidth 2 T, S_d = ceil(log3 n_d).
//              All n_d = 3^k: T = log3 p (Sec. 5: "no effect on the latency").
// Volume     : latency: sum_d V_d whole vectors (V_d the ring's, 2 S_d for 3^k);
//              bandwidth: 2 D (p - 1) blocks of m/(D p) = 2 m (p-1)/p (Lemma 4.1
//              per dimension; the per-step volumes telescope over dimensions).
// Example    : 9x9 (Fig. 5), node (4,4) = rank 40: step 0 collective 0 talks to
//              (3,4), (5,4), collective 1 to (4,3), (4,5); step 1 they swap;
//              step 2 collective 0 talks to (1,4), (7,4).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/torus_shape.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"

namespace collcheck {

class TrivanceTorus final : public Schedule {
 public:
  enum class Kind { latency, bandwidth };
  TrivanceTorus(std::vector<uint32_t> dims, Kind kind);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return kind_ == Kind::bandwidth ? 2 * T_ : T_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return 2 * static_cast<int>(dims_.size()); }

  // Collective c's transfers only, appended to `out` (not cleared). With
  // blocks == false the block sets stay empty (peers and combine only: the
  // trivance-coverage property needs no more).
  void collective_step(Rank r, int s, int c, RankStep& out, bool blocks = true) const;

  Kind kind() const { return kind_; }
  const std::vector<uint32_t>& dims() const { return dims_; }
  int collectives() const { return static_cast<int>(dims_.size()); }
  int plan_steps() const { return T_; }  // T (the reduce-scatter half for bandwidth)
  const std::vector<std::vector<TorusStep>>& plan() const { return plan_; }
  const std::vector<int>& ring_steps() const { return S_; }
  // The plan step behind schedule step s (s itself, or 2T-1-s in the allgather).
  int plan_index(int s) const { return s < T_ ? s : 2 * T_ - 1 - s; }
  std::vector<uint32_t> coords(Rank r) const;
  Rank rank_of(const std::vector<uint32_t>& x) const;

 private:
  void latency_step(Rank r, int c, const TorusStep& ts, RankStep& out, bool blocks) const;
  void bandwidth_step(Rank r, int j, bool allgather, int c, RankStep& out, bool blocks) const;
  BlockSet product_blocks(int c, const std::vector<uint32_t>& base, int d, uint64_t base_d,
                          const std::vector<uint64_t>& offsets_d, const std::vector<int>& progress) const;

  std::vector<uint32_t> dims_;
  Kind kind_;
  CollectiveSpec spec_;
  std::vector<uint64_t> stride_;                   // rank stride per dimension
  std::vector<int> S_;                             // ring steps per dimension
  int T_ = 0;                                      // plan steps
  std::vector<std::vector<TorusStep>> plan_;       // [c][j]
  std::vector<std::vector<std::vector<int>>> progress_;  // [c][j][e]: dimension-e steps done before j
  std::vector<std::unique_ptr<Schedule>> latency_rings_;  // latency: the corrected ring per dimension
  std::vector<std::vector<std::vector<OffsetRoutingRing::Move>>> moves_;  // bandwidth: [d][k]
  std::vector<std::vector<std::vector<uint64_t>>> held_;  // bandwidth: [d][k] sorted remainders after k steps
};

std::unique_ptr<Schedule> make_trivance_torus(const std::vector<uint32_t>& dims, TrivanceTorus::Kind kind);

// The same schedule, certified equivariant under the torus translations
// (schedules/translation_equivariant.hpp) where the rule is circulant on
// every line, and then checked by its quotient:
//   bandwidth, any sides: a step moves along dimension d by the ring move's
//     shift (v_d -+ sigma mod n_d), and its blocks are the product of
//     coordinates b_e = v_e + o (mod n_e) over the offsets o of the move and
//     of the remainders H_e: every coordinate is read relative to v, so the
//     image of rank 0's step by r is rank r's (blocks as ranks, one part per
//     collective);
//   latency, every side a power of three (or 1): a step is the ring's
//     whole-vector step, peers v_d -+ 3^k (Sec. 4.2), block c fixed. On
//     other sides the ring folds onto 3^floor(log3 n_d) (Sec. 4.4 corrected):
//     the extra nodes break the translations, so that schedule is returned
//     unwrapped and enumerated.
std::unique_ptr<Schedule> make_trivance_torus_certified(const std::vector<uint32_t>& dims, TrivanceTorus::Kind kind);

}  // namespace collcheck
