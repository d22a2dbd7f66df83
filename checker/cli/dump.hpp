#pragma once
// `collcheck dump`: the schedule itself, per step and rank, as text, in
// collcheck's schedule format (JSON or JSON lines, schedules/formats/schedule_file.hpp)
// or as Träff's tables.
#include <string>
#include <vector>

#include "schedules/registry.hpp"
#include "schedules/schedule.hpp"
#include "schedules/formats/schedule_file.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {

std::string dump_text(const Schedule& s, const std::string& title);

// What dump writes besides the transfers of a registry instance: the claims
// (the registry's step and volume claims with formulas and source; the
// generic properties asserted to hold unless the variant is a paper rule
// collcheck refutes) and the producer (tool, version, algorithm,
// variant, instance parameters).
FileMeta registry_file_meta(const AlgorithmInfo& a, const VariantInfo& v, const InstanceParams& ip);

// Writes `s` with `meta` in `format` ("json" or "jsonl") to `out` ("-":
// stdout), streaming. InputError if `out` cannot be written.
void dump_schedule_file(const Schedule& s, const FileMeta& meta, const std::string& format, const std::string& out);

// Träff's Tables 1-3, transposed: one line per rank,
// "r baseblock recvblock[0..q-1] sendblock[0..q-1]" after a '#' header. A
// sendblock[k] that is a send-schedule violation (Theorem 3: Algorithm 6 took
// it from RECVSCHEDULE of the to-processor) is marked with a trailing '*',
// e.g. "-3*" (p = 17, rank 8, round 4).
std::string traff_table(uint64_t p);

// Reads what traff_table writes: '#' lines (the header) and blank lines are
// skipped; every other line is "r baseblock recvblock[0..q-1] sendblock[0..q-1]"
// with r = 0, 1, ... in order. p is the number of rank lines (1 <= p <= 2^20),
// q = ceil(log2 p). InputError (one line, "<source>:<line>: ...") for a wrong
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
