#include "properties/plan/rank_zero_masks.hpp"

#include "properties/swing/swing_rank_zero_masks.hpp"

namespace collcheck {

namespace {
using MaskProvider = std::optional<flow::MaskSchedule> (*)(const Schedule&);
// Each entry answers for its own family's schedules and nullopt for any other.
constexpr MaskProvider kMaskProviders[] = {&swing::swing_mask_schedule};
}  // namespace

std::optional<flow::MaskSchedule> rank_zero_masks(const Schedule& s) {
  for (MaskProvider provider : kMaskProviders)
    if (auto m = provider(s)) return m;
  return std::nullopt;
}

}  // namespace collcheck
