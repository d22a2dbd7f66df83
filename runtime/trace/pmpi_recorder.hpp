#pragma once
// The PMPI interposition behind `collcheck-mpi --trace`:
// collcheck-mpi defines MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend,
// MPI_Isend, MPI_Issend, MPI_Recv, MPI_Irecv, MPI_Sendrecv,
// MPI_Sendrecv_replace, MPI_Wait, MPI_Waitall, MPI_Waitany and MPI_Test
// itself (exported, so a function loaded with --function binds to them) and
// forwards each to its PMPI_ twin. Between start_recording and
// stop_recording they note every message of this rank
// (runtime/trace/message_trace.hpp: Event): sends when posted, receives when
// they complete, with the received data when it is in the traced datatype.
//
// What cannot be traced: anything that does not pass through these calls.
// An MPI library's own collectives (Open MPI's tuned and base collectives
// call its internal PML, never MPI_Send), one-sided communication, persistent
// requests, matched probes, receives completed by MPI_Waitsome, MPI_Testany,
// MPI_Testall or MPI_Testsome (reported as a send never received), and
// collectives the implementation calls inside (the trace's model then
// disagrees with the messages, which is reported, never trusted).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "runtime/trace/message_trace.hpp"

namespace collcheck::runtime::trace {

// Starts noting this rank's messages on `comm` (or a congruent duplicate);
// messages in `type` are read as `width` int64 values per element.
void start_recording(MPI_Comm comm, MPI_Datatype type, uint64_t width);
// Stops and hands over what was noted (receives still pending are dropped:
// their sends show up as never received).
std::vector<Event> stop_recording();

struct TraceHooks;
// Under SMPI: the recorder's calls as the shim's table (traced_calls.hpp).
const TraceHooks* recorder_hooks();

}  // namespace collcheck::runtime::trace
