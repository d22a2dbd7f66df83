#pragma once
// `collcheck dump`: the schedule itself, per step and rank, as text or JSON.
#include <string>

#include "schedules/schedule.hpp"

namespace collcheck {

std::string dump_text(const Schedule& s, const std::string& title);

}  // namespace collcheck
