#pragma once
// Brings every rank's trace (runtime/trace/pmpi_recorder.hpp) and result to
// rank 0 and analyzes it there (runtime/trace/message_trace.hpp).
#include <mpi.h>

#include <vector>

#include "runtime/trace/message_trace.hpp"

namespace collcheck::runtime::trace {

// Collective over `comm`; the report at rank 0, an empty one elsewhere.
TraceReport collect_and_analyze(const TraceSpec& spec, const std::vector<Event>& mine, const Result& my_result,
                                MPI_Comm comm);

}  // namespace collcheck::runtime::trace
