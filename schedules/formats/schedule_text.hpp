#pragma once
// The human-readable text of a schedule (`collcheck dump --format text`):
// a '#' header line (title, collective, p, blocks, steps, ports), then per
// step every rank with transfers: "-> peer blocks combine" for a send,
// "<- peer blocks combine" for a receive. Written only; collcheck's
// schedule format (schedules/formats/schedule_file.hpp) is the one read back.
#include <string>

#include "schedules/schedule.hpp"

namespace collcheck {

std::string schedule_text(const Schedule& s, const std::string& title);

}  // namespace collcheck
