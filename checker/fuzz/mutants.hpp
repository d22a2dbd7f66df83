#pragma once
// collcheck fuzz --mutants FILE: the checker's self-test on a
// user's schedule. Every mutation operator is applied to the schedule's
// transfers (all of them, or an evenly spread sample of --max-mutants), each
// mutant is checked with every generic property and the file's claims, and the report says which
// fraction of the mutants each property kills. A mutant that no property
// kills is listed: either the change is harmless for this schedule
// (equivalent), or the properties cannot see it.
//
// Operators, on the transfer src -> dst at step s (both ends edited, so
// matching still holds, unless the name says one end):
//   drop           the transfer removed
//   drop-recv      only the receiver's side removed (one end)
//   flip-combine   reduce <-> copy
//   duplicate      sent twice in the same step
//   lose-block     its lowest block left out (a single-block transfer: dropped)
//   delay          moved to step s + 1 (a step appended after the last)
//   redirect       received by dst + 1 instead (mod p; skipped when that is src)
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "reports/report.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::fuzz {

struct MutantRun {
  uint64_t mutants = 0, killed = 0;
  std::vector<std::string> operators;                  // in order
  std::map<std::string, uint64_t> per_operator;        // mutants made
  std::map<std::string, uint64_t> killed_per_operator;
  std::map<std::string, uint64_t> killed_per_property; // catalog name -> mutants it kills
  std::vector<std::string> survivors;                  // the first few, described
  std::string original_failure;                        // non-empty: the schedule itself fails (nothing mutated)
};

// `claim`: the file's claimed steps and volume (file_cost_claim), judged by
// the cost property on every mutant; nullptr: none claimed.
MutantRun run_mutants(const MaterializedSchedule& m, const Claim* claim, const CheckOptions& o, uint64_t max_mutants,
                      uint64_t seed);

std::string render_mutants(const MutantRun& r, const std::string& path, Format f);

}  // namespace collcheck::fuzz
