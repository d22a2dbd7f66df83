#pragma once
// The MPI point-to-point calls collcheck-mpi --trace records
// (runtime/trace/pmpi_recorder.cpp), as one list: name, parameters,
// arguments. Under Open MPI and MPICH collcheck-mpi defines them itself;
// under SMPI a preloaded shim defines them (runtime/smpi/trace_shim.cpp) and
// forwards each to the recorder through a table of TraceHooks, because a
// program that SMPI loads comes after libsimgrid in symbol lookup and could
// not interpose on its MPI calls.
#include <mpi.h>

#define COLLCHECK_TRACED_CALLS(X)                                                                                      \
  X(MPI_Send, (const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm),                        \
    (buf, count, dt, dest, tag, comm))                                                                                 \
  X(MPI_Ssend, (const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm),                       \
    (buf, count, dt, dest, tag, comm))                                                                                 \
  X(MPI_Bsend, (const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm),                       \
    (buf, count, dt, dest, tag, comm))                                                                                 \
  X(MPI_Rsend, (const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm),                       \
    (buf, count, dt, dest, tag, comm))                                                                                 \
  X(MPI_Isend, (const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req),     \
    (buf, count, dt, dest, tag, comm, req))                                                                            \
  X(MPI_Issend, (const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req),    \
    (buf, count, dt, dest, tag, comm, req))                                                                            \
  X(MPI_Recv, (void* buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status* status),           \
    (buf, count, dt, src, tag, comm, status))                                                                          \
  X(MPI_Irecv, (void* buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request* req),            \
    (buf, count, dt, src, tag, comm, req))                                                                             \
  X(MPI_Sendrecv,                                                                                                      \
    (const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount, MPI_Datatype rtype, \
     int src, int rtag, MPI_Comm comm, MPI_Status* status),                                                            \
    (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status))                                   \
  X(MPI_Sendrecv_replace,                                                                                              \
    (void* buf, int count, MPI_Datatype dt, int dest, int stag, int src, int rtag, MPI_Comm comm, MPI_Status* status), \
    (buf, count, dt, dest, stag, src, rtag, comm, status))                                                             \
  X(MPI_Wait, (MPI_Request * req, MPI_Status * status), (req, status))                                                 \
  X(MPI_Waitall, (int n, MPI_Request reqs[], MPI_Status statuses[]), (n, reqs, statuses))                              \
  X(MPI_Waitany, (int n, MPI_Request reqs[], int* index, MPI_Status* status), (n, reqs, index, status))                \
  X(MPI_Test, (MPI_Request * req, int* flag, MPI_Status* status), (req, flag, status))

namespace collcheck::runtime::trace {

// One pointer per traced call: the recorder's definition of it.
struct TraceHooks {
#define COLLCHECK_TRACE_HOOK_FIELD(name, params, args) int(*name) params;
  COLLCHECK_TRACED_CALLS(COLLCHECK_TRACE_HOOK_FIELD)
#undef COLLCHECK_TRACE_HOOK_FIELD
};

// The shim's exported setter (extern "C"), looked up with dlsym.
inline constexpr const char* kSetTraceHooks = "collcheck_smpi_set_trace_hooks";
using SetTraceHooks = void (*)(const TraceHooks*);

}  // namespace collcheck::runtime::trace
