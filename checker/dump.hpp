#pragma once
// `collcheck dump`: the schedule itself, per step and rank, as text or JSON.
#include <string>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/traff_circulant.hpp"

namespace collcheck {

std::string dump_text(const Schedule& s, const std::string& title);

// Träff's Tables 1-3, transposed: one line per rank,
// "r baseblock recvblock[0..q-1] sendblock[0..q-1]" after a '#' header.
std::string traff_table(uint64_t p);

// Reads what traff_table writes: '#' lines (the header) and blank lines are
// skipped; every other line is "r baseblock recvblock[0..q-1] sendblock[0..q-1]"
// with r = 0, 1, ... in order. p is the number of rank lines (1 <= p <= 2^20),
// q = ceil(log2 p). InputError (one line, "<source>:<line>: ...") for a wrong
// column count, ranks out of order, a non-integer, recvblock/sendblock outside
// [-q, q-1] or baseblock outside [0, q]. Träff's conditions are not checked here
// (properties/traff_conditions.hpp). RankSchedule's counters stay 0.
std::vector<traff::RankSchedule> parse_traff_table(const std::string& text, const std::string& source);

}  // namespace collcheck
