#include "runtime/trace/pmpi_recorder.hpp"
#include "runtime/trace/traced_calls.hpp"
#include "runtime/smpi/smpi_job.hpp"

#include <cstring>
#include <unordered_map>

namespace collcheck::runtime::trace {

namespace {

struct PendingRecv {
  void* buf = nullptr;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  uint64_t posted = 0;
};

struct Recorder {
  bool on = false;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  uint64_t width = 1;
  uint64_t posted = 0;
  std::vector<Event> events;
  std::unordered_map<MPI_Request, PendingRecv> pending;
  MPI_Comm same = MPI_COMM_NULL;  // the last communicator found congruent
};

Recorder rec;

bool congruent(MPI_Comm c) {
  if (c == rec.comm || c == rec.same) return true;
  int res = MPI_UNEQUAL;
  PMPI_Comm_compare(c, rec.comm, &res);
  if (res != MPI_IDENT && res != MPI_CONGRUENT) return false;
  rec.same = c;
  return true;
}

void note_send(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  if (!rec.on || dest == MPI_PROC_NULL) return;
  Event e;
  e.kind = Event::Kind::send;
  e.peer = dest, e.tag = tag;
  e.elements = count < 0 ? 0 : static_cast<uint64_t>(count);
  e.payload_type = dt == rec.type;
  e.same_comm = congruent(comm);
  rec.events.push_back(std::move(e));
}

void note_recv(const void* buf, MPI_Datatype dt, MPI_Comm comm, const MPI_Status& st, uint64_t posted) {
  if (st.MPI_SOURCE == MPI_PROC_NULL) return;
  Event e;
  e.kind = Event::Kind::recv;
  e.peer = st.MPI_SOURCE, e.tag = st.MPI_TAG, e.posted = posted;
  int n = 0;
  PMPI_Get_count(&st, dt, &n);
  e.payload_type = dt == rec.type && n != MPI_UNDEFINED;
  e.elements = n == MPI_UNDEFINED || n < 0 ? 0 : static_cast<uint64_t>(n);
  e.same_comm = congruent(comm);
  if (e.payload_type) {
    e.data.resize(e.elements * rec.width);
    if (!e.data.empty()) std::memcpy(e.data.data(), buf, e.data.size() * sizeof(int64_t));
  }
  rec.events.push_back(std::move(e));
}

void complete(MPI_Request before, const MPI_Status& st) {
  auto it = rec.pending.find(before);
  if (it == rec.pending.end()) return;
  const PendingRecv pr = it->second;
  rec.pending.erase(it);
  note_recv(pr.buf, pr.type, pr.comm, st, pr.posted);
}

bool tracking() { return rec.on && !rec.pending.empty(); }

}  // namespace

void start_recording(MPI_Comm comm, MPI_Datatype type, uint64_t width) {
#ifdef COLLCHECK_SMPI
  smpi::install_trace_hooks(recorder_hooks());
#endif
  rec = Recorder{};
  rec.on = true;
  rec.comm = comm, rec.type = type, rec.width = width;
}

std::vector<Event> stop_recording() {
  rec.on = false;
  rec.pending.clear();
  return std::move(rec.events);
}

}  // namespace collcheck::runtime::trace

// ---- the interposed MPI calls (C linkage, exported from collcheck-mpi) ----------

using namespace collcheck::runtime::trace;

// Under Open MPI and MPICH these are MPI_Send & co themselves, exported by
// collcheck-mpi; under SMPI they are reached through the preloaded shim's
// hooks (runtime/smpi/trace_shim.cpp), so they take other names here.
#ifdef COLLCHECK_SMPI
#define TRACED(name) collcheck_traced_##name
#else
#define TRACED(name) name
#endif

extern "C" {

int TRACED(MPI_Send)(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  note_send(count, dt, dest, tag, comm);
  return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int TRACED(MPI_Ssend)(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  note_send(count, dt, dest, tag, comm);
  return PMPI_Ssend(buf, count, dt, dest, tag, comm);
}

int TRACED(MPI_Bsend)(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  note_send(count, dt, dest, tag, comm);
  return PMPI_Bsend(buf, count, dt, dest, tag, comm);
}

int TRACED(MPI_Rsend)(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  note_send(count, dt, dest, tag, comm);
  return PMPI_Rsend(buf, count, dt, dest, tag, comm);
}

int TRACED(MPI_Isend)(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  note_send(count, dt, dest, tag, comm);
  return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
}

int TRACED(MPI_Issend)(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  note_send(count, dt, dest, tag, comm);
  return PMPI_Issend(buf, count, dt, dest, tag, comm, req);
}

int TRACED(MPI_Recv)(void* buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!rec.on) return PMPI_Recv(buf, count, dt, src, tag, comm, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const uint64_t posted = rec.posted++;
  const int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
  if (rc == MPI_SUCCESS) note_recv(buf, dt, comm, *st, posted);
  return rc;
}

int TRACED(MPI_Irecv)(void* buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request* req) {
  const int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
  if (rec.on && rc == MPI_SUCCESS) rec.pending[*req] = {buf, dt, comm, rec.posted++};
  return rc;
}

int TRACED(MPI_Sendrecv)(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                 MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status* status) {
  if (!rec.on) return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status);
  note_send(scount, stype, dest, stag, comm);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const uint64_t posted = rec.posted++;
  const int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st);
  if (rc == MPI_SUCCESS) note_recv(rbuf, rtype, comm, *st, posted);
  return rc;
}

int TRACED(MPI_Sendrecv_replace)(void* buf, int count, MPI_Datatype dt, int dest, int stag, int src, int rtag, MPI_Comm comm,
                         MPI_Status* status) {
  if (!rec.on) return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status);
  note_send(count, dt, dest, stag, comm);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const uint64_t posted = rec.posted++;
  const int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, st);
  if (rc == MPI_SUCCESS) note_recv(buf, dt, comm, *st, posted);
  return rc;
}

int TRACED(MPI_Wait)(MPI_Request* req, MPI_Status* status) {
  if (!tracking()) return PMPI_Wait(req, status);
  const MPI_Request before = *req;
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Wait(req, st);
  if (rc == MPI_SUCCESS) complete(before, *st);
  return rc;
}

int TRACED(MPI_Waitall)(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (!tracking()) return PMPI_Waitall(n, reqs, statuses);
  std::vector<MPI_Request> before(reqs, reqs + n);
  std::vector<MPI_Status> local(static_cast<size_t>(n));
  MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? local.data() : statuses;
  const int rc = PMPI_Waitall(n, reqs, st);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; ++i) complete(before[static_cast<size_t>(i)], st[i]);
  return rc;
}

int TRACED(MPI_Waitany)(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  if (!tracking()) return PMPI_Waitany(n, reqs, index, status);
  std::vector<MPI_Request> before(reqs, reqs + n);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Waitany(n, reqs, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) complete(before[static_cast<size_t>(*index)], *st);
  return rc;
}

int TRACED(MPI_Test)(MPI_Request* req, int* flag, MPI_Status* status) {
  if (!tracking()) return PMPI_Test(req, flag, status);
  const MPI_Request before = *req;
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Test(req, flag, st);
  if (rc == MPI_SUCCESS && *flag) complete(before, *st);
  return rc;
}

}  // extern "C"

#ifdef COLLCHECK_SMPI
namespace collcheck::runtime::trace {
const TraceHooks* recorder_hooks() {
#define COLLCHECK_HOOK(name, params, args) collcheck_traced_##name,
  static const TraceHooks hooks{COLLCHECK_TRACED_CALLS(COLLCHECK_HOOK)};
#undef COLLCHECK_HOOK
  return &hooks;
}
}  // namespace collcheck::runtime::trace
#endif
