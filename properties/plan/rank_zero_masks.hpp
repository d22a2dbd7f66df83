#pragma once
// Rank 0 of a schedule as masks (flow/group_quotient.hpp: MaskSchedule),
// where a family computes them: the one table of such families. The grouped
// quotient and the compositions over it read it; nothing else names a
// family to get them.
#include <optional>

#include "properties/flow/group_quotient.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {

std::optional<flow::MaskSchedule> rank_zero_masks(const Schedule& s);

}  // namespace collcheck
