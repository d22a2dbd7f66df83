// libcollcheck_ucx_yield.so: give the processor away when UCX has nothing to do.
//
// Why: MPICH 4.0's ch4:ucx device (Debian's mpich) waits for a message by
// calling ucp_worker_progress() in a loop and never yields (its
// MPIR_CVAR_POLLS_BEFORE_YIELD belongs to the ch3 device). With more ranks
// than cores, as scripts/backends runs them on a laptop or a 2-core VM, a
// rank that waits then burns its whole time slice while the rank it waits for
// is not scheduled: a 16-rank collcheck-mpi job took 101 s, against 7.9 s
// with this library preloaded (Open MPI yields by itself when oversubscribed).
//
// What: under LD_PRELOAD it interposes ucp_worker_progress (libmpich calls
// it through its PLT), calls UCX's own, and calls sched_yield() when that
// made no progress. Nothing else changes: the same progress calls in the same
// order, the same messages, MPICH's own algorithms; only idle polls give the
// processor to another runnable rank. A process that never calls
// ucp_worker_progress (Open MPI, MPICH over another device) is unaffected.
//
// Used by scripts/backends --mpi mpich; see docs/guide/mpi.md ("MPICH").
#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>

extern "C" {
struct ucp_worker;  // opaque: no UCX header needed
using progress_fn = unsigned (*)(ucp_worker*);

unsigned ucp_worker_progress(ucp_worker* worker) {
  static progress_fn real;
  if (!real) {
    real = reinterpret_cast<progress_fn>(dlsym(RTLD_NEXT, "ucp_worker_progress"));
    if (!real) {  // only reachable if this library is preloaded where UCX is not loaded
      static const char msg[] = "libcollcheck_ucx_yield: no ucp_worker_progress after this library (UCX not loaded)\n";
      (void)!write(2, msg, sizeof msg - 1);
      std::abort();
    }
  }
  unsigned progressed = real(worker);
  if (progressed == 0) sched_yield();
  return progressed;
}
}  // extern "C"
