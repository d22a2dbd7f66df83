// libcollcheck_smpi_trace.so: preloaded into SimGrid's smpimain by
// scripts/smpi for `collcheck-mpi --trace`. It defines the traced MPI calls
// (runtime/trace/traced_calls.hpp) ahead of libsimgrid's, so that a
// --function library's MPI_Send reaches collcheck-mpi's recorder, and
// forwards each call to the hooks collcheck-mpi installs, or straight to
// PMPI_ while none are. It keeps no state of its own besides the table: the
// recorder's state is collcheck-mpi's, which SMPI's mmap privatization keeps
// per simulated rank (the one table's functions are the same code for every
// rank; dlopen privatization, a copy of the code per rank, is refused by
// collcheck-mpi for --trace).
#include <atomic>

#include "runtime/trace/traced_calls.hpp"

using collcheck::runtime::trace::TraceHooks;

namespace {
std::atomic<const TraceHooks*> g_hooks{nullptr};
}

extern "C" {

__attribute__((visibility("default"))) void collcheck_smpi_set_trace_hooks(const TraceHooks* hooks) {
  g_hooks.store(hooks);
}

#define COLLCHECK_FORWARD(name, params, args)                                \
  __attribute__((visibility("default"))) int name params {                  \
    const TraceHooks* h = g_hooks.load(std::memory_order_relaxed);           \
    return h ? h->name args : P##name args;                                  \
  }
COLLCHECK_TRACED_CALLS(COLLCHECK_FORWARD)
#undef COLLCHECK_FORWARD

}  // extern "C"
