#pragma once
// How a black-box job that goes wrong ends: always with one line
// "collcheck-mpi: rank W ..." on standard error and exit 3, never silently.
//
// The function under test can crash (a signal, a stack overflow included),
// hang, or corrupt the heap so that glibc aborts later -- in the function's
// own free(), in collcheck-mpi's checks after the call, or in collcheck-mpi's
// own code much later. So both guards live for the whole job, not for one
// call:
//
//   crash report  one handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and
//                 SIGABRT, on an alternate signal stack (a stack overflow
//                 leaves no room on the stack it overflowed), writing the
//                 line prepared for the current phase;
//   watchdog      one thread that ends the job when the current phase
//                 passes its deadline: the call (--timeout), or
//                 collcheck-mpi's own work between calls (a corrupted heap can
//                 make the allocator loop).
//
// Phases are set by the black-box run (blackbox_run.cpp). A verdict is
// printed only after every rank has confirmed that call's checks; a line
// written here voids every verdict not yet printed, so a later crash can
// never leave a "holds" behind for a call it belongs to.
#include <string>

namespace collcheck::runtime::blackbox {

// Installs the crash report and starts the watchdog (idle until a phase is
// armed); idempotent. `world_rank` starts every line.
void install_crash_report(int world_rank);

// Under SMPI: a deadlock SimGrid finds ends the job with the waiting ranks'
// lines (or one line for the job) and exit 3, not SimGrid's exit 0. Once per
// process, from any rank; nothing under another MPI.
void report_deadlocks();

// The words after "collcheck-mpi: rank W" of the line a crash writes from
// now on (e.g. " crashed in ./libx.so:f (one-hot run 0)").
void set_crash_line(const std::string& words);

// The call let a C++ exception out (SMPI's algorithms throw on inputs they
// do not take, e.g. a non-power-of-two p): no result, and the other ranks
// may wait inside the call for ever. Writes the current crash line with
// " threw TYPE: WHAT" in place of a signal, then exit 3.
[[noreturn]] void end_job_after_exception(const std::string& type, const std::string& what);

// The kind of wait a phase is: a call may be left by its rank before the
// others (the grace of `returned()`), collcheck-mpi's own work may not.
enum class PhaseKind { call, own_work };

// Arms the watchdog: after `seconds`, the line "collcheck-mpi: rank W: WHAT
// did not return within S s" (a call) or "... did not end within S s" (own
// work), then exit 3. Re-arming replaces the previous phase.
void arm_watchdog(const std::string& what, double seconds, PhaseKind kind);

// No deadline until the next arm_watchdog: for a rank that only waits for
// others whose own watchdogs guard them (a rank outside this step's
// communicator waiting for the parts' results).
void disarm_watchdog();

// The call of the current phase returned on this rank: it waits a grace
// period (the phase's seconds, at most 5 s) past the deadline before it
// speaks, so the rank still inside the call is named first.
void call_returned();

// How long collcheck-mpi's own work between calls may take before the
// watchdog ends the job.
constexpr double kOwnWorkSeconds = 120;

}  // namespace collcheck::runtime::blackbox
