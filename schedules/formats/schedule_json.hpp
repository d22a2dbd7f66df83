#pragma once
// The JSON form of collcheck's schedule format as strings in memory (the
// format itself, both encodings and files: schedules/formats/schedule_file.hpp,
// docs/schedule-format.md). Kept for the callers that hold a schedule as text
// (tests, collcheck-mpi): to_json writes the schedule alone in version 1
// ("collcheck-schedule/1", keys sorted, as it always did: tests compare that
// text); schedule_from_json reads /1 and /2 and drops claims and producer.
// Errors: InputError "malformed schedule: SOURCE: /json/path: ...".
#include <string>

#include "schedules/schedule.hpp"

namespace collcheck {

// nlohmann's dump(indent): indent < 0 is one line.
std::string to_json(const MaterializedSchedule& m, int indent = -1);
MaterializedSchedule schedule_from_json(const std::string& text, const std::string& source = "schedule");

}  // namespace collcheck
