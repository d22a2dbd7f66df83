#include "schedules/swing/swing_equivariant.hpp"

#include "schedules/swing/swing_bandwidth_contiguous.hpp"

namespace collcheck {

SwingEquivariant::SwingEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks)
    : direct_(std::move(direct)), action_(SymmetryGroup::swing_dihedral, blocks, direct_->spec()) {}

SwingEquivariant::SwingEquivariant(std::unique_ptr<Schedule> direct, BlockAction blocks, std::vector<uint32_t> dims)
    : direct_(std::move(direct)),
      action_(SymmetryGroup::torus_swing_dihedral, blocks, direct_->spec(), 0, std::move(dims)),
      torus_(true) {}

SwingEquivariant::SwingEquivariant(std::unique_ptr<Schedule> direct, std::vector<Block> pos)
    : direct_(std::move(direct)), action_(SymmetryGroup::swing_dihedral, direct_->spec(), std::move(pos)),
      renumbered_(true) {}

void SwingEquivariant::representative_step(int s, RankStep& out) const {
  std::call_once(once_, [&] {
    rep_.resize(static_cast<size_t>(std::max(0, direct_->num_steps())));
    for (int t = 0; t < direct_->num_steps(); ++t) direct_->rank_step(0, t, rep_[static_cast<size_t>(t)]);
  });
  if (s < 0 || s >= static_cast<int>(rep_.size())) {
    out.clear();
    return;
  }
  out = rep_[static_cast<size_t>(s)];
}

std::string SwingEquivariant::certificate() const {
  if (torus_)
    return "construction (every rank's transfers are g_r of rank 0's, schedules/symmetry.hpp) + Eq. 2's equivariance "
           "per coordinate for every odd offset (smt-swing-peer-equivariance-all-even-p), tested against the direct "
           "per-rank torus generator on every shape of sides 1, 2, 4, 8 up to 128 nodes";
  if (renumbered_)
    return "construction (every rank's transfers are g_r of rank 0's, schedules/symmetry.hpp, blocks through the "
           "contiguous renumbering) + Eq. 2's equivariance for every even p "
           "(smt-swing-peer-equivariance-all-even-p), tested against the direct contiguous generator for p = 2..2^12";
  return "construction (every rank's transfers are g_r of rank 0's, schedules/symmetry.hpp) + Eq. 2's "
         "equivariance for every even p (smt-swing-peer-equivariance-all-even-p), tested against the direct per-rank "
         "generator for even p <= 256";
}

std::unique_ptr<Schedule> swing_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks) {
  if (GroupAction::invalid(SymmetryGroup::swing_dihedral, blocks, direct->spec())) return direct;
  return std::make_unique<SwingEquivariant>(std::move(direct), blocks);
}

std::unique_ptr<Schedule> swing_contiguous_equivariant(uint64_t p) {
  auto direct = std::make_unique<SwingBandwidthContiguous>(p);
  std::vector<Block> pos(p);
  for (Rank x = 0; x < p; ++x) pos[x] = direct->position(x);
  return std::make_unique<SwingEquivariant>(std::move(direct), std::move(pos));
}

std::unique_ptr<Schedule> swing_torus_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                                  const std::vector<uint32_t>& dims) {
  if (GroupAction::invalid(SymmetryGroup::torus_swing_dihedral, blocks, direct->spec(), 0, dims)) return direct;
  return std::make_unique<SwingEquivariant>(std::move(direct), blocks, dims);
}

}  // namespace collcheck
