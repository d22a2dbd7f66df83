#pragma once
// The documented JSON exchange format of a materialized schedule
// (docs/schedule-format.md):
//
// {
//   "format": "collcheck-schedule/1",
//   "collective": "allreduce", "p": 4, "nblocks": 4, "root": 0, "ports": 1,
//   "steps": [                      // one entry per step
//     [                             // one entry per rank, in rank order
//       {"rank": 0,
//        "sends": [{"peer": 1, "blocks": [[1, 3]], "combine": "reduce"}],
//        "recvs": [{"peer": 1, "blocks": [[0, 1]], "combine": "reduce"}]}
//     ]
//   ]
// }
//
// "blocks" is a list of half-open ranges [lo, hi). Parsing validates every
// field and throws InputError with a one-line message on anything malformed.
#include <string>

#include "schedules/schedule.hpp"

namespace collcheck {

std::string to_json(const MaterializedSchedule& m, int indent = -1);
MaterializedSchedule schedule_from_json(const std::string& text);

}  // namespace collcheck
