#pragma once
// check-file's judgement of what a schedule file claims about itself
// (schedules/formats/schedule_file.hpp, "claims"):
//
//  * "steps" and "volume_blocks" are judged by the `cost` property exactly as
//    verify judges the registry's claims (measured steps = last step with a
//    transfer + 1, volume = max over ranks of blocks sent); a claim that
//    gives only one of them leaves the other unjudged;
//  * "properties" (names the author asserts to hold) give one more verdict,
//    `claims`: violated iff an asserted property is violated, with that
//    property's minimal counterexample (step, rank, block, peer).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/formats/schedule_file.hpp"

namespace collcheck {

inline constexpr const char* kClaimsProperty = "claims";

// The largest schedule file collcheck reads (check-file refuses a larger one;
// fuzz --schedule-cmd stops a program whose output grows beyond it).
inline constexpr uint64_t kMaxScheduleFileBytes = uint64_t{1} << 30;  // 1 GiB

// A schedule file as every command reads it (check-file, run --schedule,
// collcheck-mpi --schedule): collcheck's format, JSON or JSON lines by content
// unless `format` ("auto", "json" or "jsonl") forces one, streamed under the
// memory guard (`max_memory`, schedules/formats/schedule_file.hpp), with its claims
// validated. InputError for an unknown format name or a malformed file.
ScheduleDocument load_schedule_file(const std::string& path, const std::string& format, uint64_t max_memory);
// The encoding `format` forces (nullopt: "auto", by content); InputError for
// an unknown name. load_schedule_file reads it so; commands check it before
// they look at the file (their --dry-run too).
std::optional<ScheduleEncoding> schedule_encoding(const std::string& format);

// The properties a file may assert: those check-file computes on any file.
const std::vector<std::string>& assertable_properties();

// InputError ("FILE: /claims/properties/i: ...") for a name check-file cannot judge.
void validate_file_claims(const FileClaims& c);

// The Claim to pass to check_schedule (nullopt: nothing claimed about cost).
// An unclaimed half is filled with the measurement so that it agrees; judge
// afterwards with judge_file_claims, which removes it from the report again.
std::optional<Claim> file_cost_claim(const FileClaims& c, const MaterializedSchedule& m);

// Drops the unclaimed half of the cost verdict and appends the `claims`
// verdict when properties are asserted.
void judge_file_claims(const FileClaims& c, InstanceCheck& ic);

// Report notes: what the file claims and who produced it.
std::vector<std::string> file_claim_notes(const ScheduleDocument& doc);

}  // namespace collcheck
