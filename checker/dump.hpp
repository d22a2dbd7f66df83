#pragma once
// `collcheck dump`: the schedule itself, per step and rank, as text or JSON.
#include <string>

#include "schedules/schedule.hpp"

namespace collcheck {

std::string dump_text(const Schedule& s, const std::string& title);

// Träff's Tables 1-3, transposed: one line per rank,
// "r baseblock recvblock[0..q-1] sendblock[0..q-1]" after a '#' header.
std::string traff_table(uint64_t p);

}  // namespace collcheck
