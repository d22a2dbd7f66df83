#pragma once
// Swing allreduce on a D-dimensional torus (latency- and bandwidth-optimal).
//
// Algorithm  : Swing, NSDI'24, Sec. 4.1 (square tori), Sec. 4.2 (non-square),
//              Figs. 4 and 5. "At step s, each node communicates on the
//              dimension omega(s) = s mod D", sigma(s) = floor(s / D) is the
//              step relative to that dimension, and the coordinate a_omega(s)
//              "is replaced with (a + delta(sigma(s))) mod d_omega(s) (if odd,
//              we flip the sign before delta(sigma(s)))". "Swing splits the data
//              into 2D parts and runs one allreduce on each": D plain
//              collectives, "each starting from a different dimension", and D
//              mirrored ones "starting from the opposite direction than that of
//              the corresponding plain collective".
// Collectives: c = 0..D-1 plain, starting on dimension c; c = D..2D-1 the
//              mirror of plain c - D (same dimensions, opposite sign). Its step
//              j runs on dimension plan[c mod D][j] (torus_round_robin_plan: round
//              robin from the start dimension, a dimension whose log2 d_d steps
//              are done skipped: Sec. 4.2 "no data is sent anymore on that
//              dimension, and the algorithm proceeds on the remaining ones").
// Peer       : coordinate x of the step's dimension d (side n) at relative
//              step sigma, sign +1 (plain) or -1 (mirrored):
//                x even: x + sign * off,  x odd: x - sign * off  (mod n),
//              the rest of the coordinates kept.
//   SwingTorusPeers::signed_rho (default): off = rho(sigma), Eq. 2's signed
//     offset (1, -1, 3, -5, ...). This is what Fig. 4 and the 1D algorithm
//     do; the reference 4x4 answers (plain 0: 4, 1, 12, 3) need it.
//   SwingTorusPeers::unsigned_delta (variant torus-paper-delta): off =
//     delta(sigma) = |rho(sigma)|, the text of Sec. 4.1 as printed. Then
//     sigma = 0 and sigma = 1 both move by +1 from an even coordinate: the
//     same peer twice, half of the nodes of a dimension of side >= 4 never
//     reached. collcheck refutes it (exactly-once / postcondition).
// Blocks     : latency: nblocks = 2D, block c is collective c's 1/(2D) of the
//              vector, exchanged whole and reduced at every step.
//              bandwidth: nblocks = 2D p, block c*p + rank(b) is the part of
//              collective c's share that node b holds reduced at the end of
//              the reduce-scatter. At reduce-scatter step j (dimension d,
//              sigma), node x sends to its peer q the blocks of every node q
//              will reach in collective c's remaining steps: per dimension e
//              the coordinates reachable from q_e through e's steps not yet
//              done (d: sigma+1.., others: from their progress), the product
//              over e. That is Sec. 3.1.1's "the block b_q, plus all the blocks
//              that q will transmit to other nodes in the subsequent steps",
//              per dimension; steps of different dimensions act on different
//              coordinates, so the product of the 1D reduce-scatters results.
//              Allgather: steps reversed, every transfer reversed as a copy.
// Sides      : powers of two (a side of 1 has no steps). The paper's analysis
//              (log2 d_min steps per dimension, Sec. 4.2) assumes them and says
//              nothing about other sides; collcheck refuses them (the 1D ring
//              variants cover even and odd p).
// Steps      : latency T = log2 p = sum_d log2 d_d; bandwidth 2T.
// Volume     : latency: 2D blocks of m/(2D) per step, T vectors in all;
//              bandwidth: 2D collectives x 2(p-1) blocks of m/(2Dp).
// Ports      : 2D sends per node and step (ports()). Sec. 4.1 claims that in a
//              square torus the 2D collectives use 2D different ports at every
//              step; Sec. 4.2 says a non-square torus uses fewer once the
//              smallest dimension is exhausted (properties/swing/swing_torus_ports.hpp).
// Example    : 4x4 (rank = 4 row + col), rank 0's peers at steps 0..3:
//              plain 0: 4, 1, 12, 3; plain 1: 1, 4, 3, 12; mirrored 2: 12, 3,
//              4, 1; mirrored 3: 3, 12, 1, 4 (known answers; Fig. 4 shows step 0).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck {

// xor_doubling: recursive doubling's peer on a torus, one dimension per step
// (Swing NSDI'24 Sec. 2.3.2-2.3.3, Fig. 2): x XOR 2^sigma. The mirrored
// collectives (Sec. 4.1 and 5.1, "mirrored recursive doubling") are described
// only as "the same approach" as Swing's, whose mirror negates every offset;
// for recursive doubling two involutions fit, each its own variant:
//   xor_doubling            the plain offset negated at every node:
//                           x - 2^sigma where bit sigma of x is 0, else x + 2^sigma;
//   xor_doubling_reflected  the reflection of the pairing, -((-x) XOR 2^sigma)
//                           (for Swing's rule the two coincide; here they do
//                           not: x = 1, sigma = 1 goes - in the first, + in the
//                           second). The schedule is otherwise
// Swing's (blocks, plan, allgather), so recursive doubling on a torus is built
// here (the torus variants of schedules/recursive_doubling/recursive_doubling_family.cpp).
enum class SwingTorusPeers { signed_rho, unsigned_delta, xor_doubling, xor_doubling_reflected };

// How the 2D collectives are laid out. The paper's layout is the default;
// the others are the defects the swing-torus-ports mutation tests inject
// (both still compute the allreduce: only the link use changes).
struct SwingTorusLayout {
  bool mirrored = true;        // false: collectives D..2D-1 use the plain sign (not mirrored)
  bool distinct_starts = true;  // false: every collective starts on dimension 0 (wrong dimension order)
  // true: one collective (plain, from dimension 0) on the whole vector, one
  // port: the single-port recursive doubling of Sec. 2.3.2-2.3.3.
  bool single_collective = false;
};

// torus_shape_problem, plus: every side a power of two.
std::optional<std::string> swing_torus_shape_problem(const std::vector<uint32_t>& dims, uint64_t p);

class SwingTorus final : public Schedule {
 public:
  enum class Kind { latency, bandwidth };
  SwingTorus(std::vector<uint32_t> dims, Kind kind, SwingTorusPeers peers, SwingTorusLayout layout = {});
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return kind_ == Kind::bandwidth ? 2 * T_ : T_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return collectives(); }
  // Send i of a rank-step is collective i: its signed offset breaks a d/2 tie.
  int64_t route_tie(Rank r, int s, size_t send) const override;

  int collectives() const { return layout_.single_collective ? 1 : 2 * static_cast<int>(dims_.size()); }
  int plan_steps() const { return T_; }
  // The plan step behind schedule step s (s, or 2T-1-s in the allgather).
  int plan_index(int s) const { return s < T_ ? s : 2 * T_ - 1 - s; }
  // Collective c's dimension and sigma at plan step j.
  const TorusStep& plan(int c, int j) const { return plan_[layout_.distinct_starts ? c % dims_.size() : 0][j]; }
  // +1 for plain collectives, -1 for mirrored ones.
  int sign(int c) const { return c < static_cast<int>(dims_.size()) || !layout_.mirrored ? 1 : -1; }
  // Plan steps during which every dimension still has steps left: D log2
  // d_min (Sec. 4.2: "for the first D log2(d_min) steps the algorithm behaves
  // exactly like in a d_min x ... x d_min torus"); T for a square torus.
  int square_phase_steps() const;
  // Collective c's peer of rank r at plan step j.
  Rank peer(Rank r, int c, int j) const;
  // The signed offset the peer's coordinate is reached by from r's along
  // the step's dimension (the routing direction of the ports property).
  int64_t signed_offset(Rank r, int c, int j) const;
  const std::vector<uint32_t>& dims() const { return dims_; }
  Kind kind() const { return kind_; }

 private:
  uint32_t step_coordinate(uint32_t x, int d, int sigma, int sgn) const;
  void reach(int d, uint32_t y, int from_sigma, int sgn, std::vector<uint32_t>& out) const;
  void bandwidth_sets(Rank r, int c, int j, BlockSet& send, BlockSet& recv) const;

  std::vector<uint32_t> dims_;
  Kind kind_;
  SwingTorusPeers peers_;
  SwingTorusLayout layout_;
  CollectiveSpec spec_;
  std::vector<uint64_t> stride_;
  std::vector<int> S_;                                   // log2 of each side
  int T_ = 0;
  std::vector<std::vector<TorusStep>> plan_;             // [c mod D][j]
  std::vector<std::vector<std::vector<int>>> progress_;  // [start dimension][j][e]: e-steps done before j
};

std::unique_ptr<Schedule> make_swing_torus(const std::vector<uint32_t>& dims, SwingTorus::Kind kind,
                                           SwingTorusPeers peers = SwingTorusPeers::signed_rho,
                                           SwingTorusLayout layout = {});

}  // namespace collcheck
