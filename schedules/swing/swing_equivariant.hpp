#pragma once
// Swing's schedules as EquivariantSchedule (issue 16, schedules/symmetry.hpp):
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
  const CollectiveSpec& spec() const override { return direct_->spec(); }
  int num_steps() const override { return direct_->num_steps(); }
  int ports() const override { return direct_->ports(); }
  // Rank 0's steps, computed once by the direct generator and kept.
  void representative_step(int s, RankStep& out) const override;
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override;

 private:
  std::unique_ptr<Schedule> direct_;
  GroupAction action_;
  mutable std::once_flag once_;
  mutable std::vector<RankStep> rep_;
};

// `direct` wrapped as SwingEquivariant when the swing-dihedral group acts on
// its p (even p, or p = 1), `direct` itself otherwise.
std::unique_ptr<Schedule> swing_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks);

}  // namespace collcheck
