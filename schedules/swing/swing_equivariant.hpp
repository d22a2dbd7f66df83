#pragma once
// Swing's schedules as EquivariantSchedule (schedules/symmetry.hpp):
// rank 0's transfers from the direct generator, every other rank's as their
// image under the swing-dihedral group (g_r(x) = x + r for even r, r - x for
// odd r, mod p; p even or 1).
//
// Why the image IS the algorithm's rank r (the faithfulness half of the
// certificate), for every reading the registry has:
//   Eq. 2: pi(g(x), s) = g(pi(x, s)) for every g of the group (for even x
//     and even r: (x + r) + rho = (x + rho) + r; for odd r, r - x has the
//     other parity than x, so pi(r - x, s) = r - x -+ rho = r - pi(x, s));
//     smt-swing-peer-equivariance-all-even-p proves it for every even p at
//     once (linear integer arithmetic, every odd rho with |rho| < p, i.e.
//     every step), smt-swing-peer-equivariance per p.
//   Listing 1: get_rs_idx(x, t) is built from pi alone (pi(x, t), then the
//     recursion at pi(x, t) from t+1), so by induction from t = L-1 down,
//     get_rs_idx(g x, t) = g get_rs_idx(x, t); the printed and the peer-index
//     step sets are therefore equivariant.
//   Sec. 3.2 / App. A.2's de-duplication (every, earlier, later, last_step)
//     compares a rank's own step sets with each other, and skip_own removes
//     the rank itself (g_r(0) = r): both commute with g.
//   The allgather mirrors the reduce-scatter's sets of the same pair; the
//     latency-optimal exchange sends the whole vector (block 0, fixed) to
//     pi(r, s).
// The argument is checked, not trusted: tests/unit/schedules/swing/
// swing_equivariant_test.cpp compares every rank's step of every reading of
// Listing 1 with the direct per-rank generator for every even p <= 256 (and
// p = 1000, 1024, 2046, 2048 for the default; latency: even p <= 512).
//
// On a torus (Swing NSDI'24 Sec. 4.1-4.2, schedules/swing/swing_torus.hpp)
// the group is torus-swing-dihedral, one swing-dihedral group per dimension.
// Why the image is the algorithm's rank r:
//   a step of collective c changes one coordinate i by the 1D rule with the
//     odd offset o = +-rho(sigma) (or +-delta(sigma) in the paper-delta
//     reading): x_i + o for even x_i, x_i - o for odd x_i. The proof of Eq. 2
//     above uses nothing of rho but its oddness, and
//     smt-swing-peer-equivariance-all-even-p quantifies over every odd
//     offset of absolute value below the side, so each coordinate's map
//     commutes with g_r's factor on that coordinate; the other coordinates
//     are kept, and g_r acts on each coordinate separately.
//   the blocks of a reduce-scatter step are the product, over dimensions, of
//     the coordinates the peer (or the rank) reaches in its remaining steps;
//     reach is built from the coordinate map alone, so g_r of a reach set is
//     the reach set of g_r's coordinate, and g_r of the product is the
//     product of the images; a block keeps its collective (part c of the
//     2D p blocks). The allgather reverses the same sets; latency-optimal:
//     block c, fixed.
// Checked, not trusted, by swing_torus_equivariant_test.cpp: every rank and
// step against the direct generator on every shape of sides 1, 2, 4, 8 up to
// 128 nodes and up to 4 dimensions, in both readings and both layouts the
// mutation tests use.
#include <memory>
#include <mutex>
#include <vector>

#include "schedules/symmetry.hpp"

namespace collcheck {

class SwingEquivariant final : public EquivariantSchedule {
 public:
  // `direct` must be a Swing generator on p ranks with p even or p = 1;
  // blocks act as ranks (bandwidth-optimal) or are fixed (latency-optimal).
  SwingEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks);
  // On a torus: `direct` a Swing torus generator on `dims` (every side even or 1).
  SwingEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks, std::vector<uint32_t> dims);
  // Blocks renumbered: `direct` the bandwidth-optimal generator whose block
  // pos[x] is rank x's (the contiguous numbering, p a power of two).
  SwingEquivariant(std::unique_ptr<Schedule> direct, std::vector<Block> pos);
  const CollectiveSpec& spec() const override { return direct_->spec(); }
  int num_steps() const override { return direct_->num_steps(); }
  int ports() const override { return direct_->ports(); }
  // Rank 0's steps, computed once by the direct generator and kept.
  void representative_step(int s, RankStep& out) const override;
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override;
  // The direct generator's tie (Swing on a torus: the collective's signed
  // offset). It is equivariant: a reflection of the step's coordinate maps an
  // even coordinate to an odd one, which negates the offset exactly as it
  // reverses the route (tested for every rank in swing_torus_equivariant_test.cpp).
  int64_t route_tie(Rank r, int s, size_t send) const override { return direct_->route_tie(r, s, send); }
  bool route_ties_equivariant() const override { return torus_; }
  // The generator wrapped (the torus properties read its plan and offsets).
  const Schedule& direct() const { return *direct_; }

 private:
  std::unique_ptr<Schedule> direct_;
  GroupAction action_;
  bool torus_ = false;
  mutable std::once_flag once_;
  mutable std::vector<RankStep> rep_;
  bool renumbered_ = false;
};

// `direct` wrapped as SwingEquivariant when the swing-dihedral group acts on
// its p (even p, or p = 1), `direct` itself otherwise.
std::unique_ptr<Schedule> swing_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks);
// Swing's bandwidth-optimal schedule in the contiguous numbering
// (swing_bandwidth_contiguous.hpp) wrapped with its blocks renumbered.
// Why the image is the algorithm's rank r: the contiguous schedule is the
// default one with block x of the paper's numbering renamed position(x), for
// every rank and step (swing_bandwidth_contiguous_test.cpp, p = 2^0..2^12),
// and the default one is equivariant with blocks as ranks (above); renaming
// the blocks conjugates the block action by the renumbering. Checked, not
// trusted: swing_equivariant_test.cpp compares every rank's step with the
// contiguous generator for p = 2^1..2^12.
std::unique_ptr<Schedule> swing_contiguous_equivariant(uint64_t p);
// The same on a torus `dims` (the torus-swing-dihedral group).
std::unique_ptr<Schedule> swing_torus_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                                  const std::vector<uint32_t>& dims);

}  // namespace collcheck
