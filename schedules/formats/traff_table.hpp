#pragma once
// Träff's receive and send tables (the circulant broadcast schedules of
// "Optimal Broadcast Schedules in Logarithmic Time with Applications to
// Broadcast, All-Broadcast, Reduction and All-Reduction", Tables 1-3) as
// text, writer and reader together: `dump --algo traff --format traff-table`
// writes them, `check-file --schedule-format traff-table` reads them.
#include <cstdint>
#include <string>
#include <vector>

#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {

// Träff's Tables 1-3, transposed: one line per rank,
// "r baseblock recvblock[0..q-1] sendblock[0..q-1]" after a '#' header. A
// sendblock[k] that is a send-schedule violation (Theorem 3: Algorithm 6 took
// it from RECVSCHEDULE of the to-processor) is marked with a trailing '*',
// e.g. "-3*" (p = 17, rank 8, round 4).
std::string traff_table(uint64_t p);
// InputError unless traff_table can print p (p <= 2^20); it checks so first.
void check_traff_table_p(uint64_t p);

// Reads what traff_table writes: '#' lines (comments) and blank lines are
// skipped; every other line is "r baseblock recvblock[0..q-1] sendblock[0..q-1]"
// with r = 0, 1, ... in order. p is the number of rank lines (1 <= p <= 2^20),
// q = ceil(log2 p). The header "# traff-table p=P q=Q: ..." comes before any
// other line but blank ones (a table without it, or one whose first line is
// a mistyped header, is malformed), is given once and states that p and q.
// InputError (one line, "<source>:<line>: ...") for a header that does not, a wrong
// column count, ranks out of order, a non-integer, recvblock/sendblock outside
// [-q, q-1] or baseblock outside [0, q]. Träff's conditions are not checked here
// (properties/traff/traff_conditions.hpp). A sendblock may carry traff_table's '*'
// violation mark: it sets bit k of RankSchedule::violation_rounds and counts
// in `violations` (the marks are read, not checked against Algorithm 6); a '*'
// on any other column is malformed. recursive_calls stays 0. What it builds
// is estimated as it grows: ResourceRefusal above `max_memory` bytes (0: no
// limit; schedules/memory_guard.hpp).
std::vector<traff::RankSchedule> parse_traff_table(const std::string& text, const std::string& source,
                                                   uint64_t max_memory = 0);

}  // namespace collcheck
