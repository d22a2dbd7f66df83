#include "runtime/blackbox/crash_report.hpp"

#include <cxxabi.h>

#include "runtime/smpi/smpi_job.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace collcheck::runtime::blackbox {

namespace {

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// The line a crash writes: two buffers, the one in use named by an atomic
// index, so a crash while the next line is being prepared still finds a
// whole line.
constexpr size_t kLineBytes = 768;
char g_lines[2][kLineBytes];
size_t g_lengths[2] = {0, 0};
std::atomic<int> g_current{0};
int g_world_rank = -1;

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV; collcheck-mpi's buffers end at a guard page, so a write past one lands here";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT: abort(), a failed assert or glibc's heap check";
  }
  return "";
}

extern "C" void on_crash(int sig) {
  // async-signal-safe: the prepared line, the signal's number and name and
  // the newline in one write(), so the lines of ranks crashing together do
  // not interleave; then exit 3.
  const int cur = g_current.load();
  char line[kLineBytes + 160];
  size_t n = 0;
  // glibc's heap check writes its message without a newline before it
  // aborts: the crash line starts a line of its own.
  if (sig == SIGABRT) line[n++] = '\n';
  std::memcpy(line + n, g_lines[cur], g_lengths[cur]);
  n += g_lengths[cur];
  auto put = [&](const char* s) {
    for (; *s && n + 2 < sizeof line; ++s) line[n++] = *s;
  };
  char digits[12];
  int d = 0;
  for (int v = sig; d == 0 || v > 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  put(" (signal ");
  while (d > 0 && n + 2 < sizeof line) line[n++] = digits[--d];
  put(", ");
  put(signal_name(sig));
  put(")");
  line[n++] = '\n';
  (void)!write(2, line, n);
  _exit(3);
}

// How much longer than its deadline a rank whose call returned waits for
// the others (at most the phase's own seconds) before it ends the job.
constexpr double kReturnedGraceSeconds = 5.0;

// One thread for the whole process, with one phase per rank: one rank under
// Open MPI or MPICH, every simulated rank under SMPI (the object is made
// before the simulation starts, so SMPI's privatization does not copy it:
// runtime/smpi/smpi_job.hpp). Never destroyed (the detached thread may still
// wait on it while the process exits).
class Watchdog {
 public:
  void arm(int rank, const std::string& what, double seconds, PhaseKind kind) {
    std::lock_guard<std::mutex> lock(mu_);
    start();
    Phase& ph = phases_[rank];
    ph.what = what;
    ph.seconds = seconds;
    ph.kind = kind;
    ph.returned = false;
    ph.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    ph.armed = true;
    if (!waking_ || fires_at(ph) < *waking_) changed();
  }
  // A phase's end or its grace only moves its deadline later: the thread
  // finds out when it next wakes (a wake-up per change would cost O(p)
  // each under SMPI, O(p^2) a call).
  void disarm(int rank) {
    std::lock_guard<std::mutex> lock(mu_);
    phases_[rank].armed = false;
  }
  void returned(int rank) {
    std::lock_guard<std::mutex> lock(mu_);
    phases_[rank].returned = true;
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Phase {
    std::string what;
    double seconds = 0;
    PhaseKind kind = PhaseKind::call;
    bool returned = false;
    bool armed = false;
    Clock::time_point deadline{};
  };

  void changed() {
    ++generation_;
    cv_.notify_all();
  }
  static bool graced(const Phase& ph) { return ph.kind == PhaseKind::call && ph.returned; }
  static double grace(const Phase& ph) { return graced(ph) ? std::min(ph.seconds, kReturnedGraceSeconds) : 0.0; }
  static Clock::time_point fires_at(const Phase& ph) {
    return ph.deadline + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace(ph)));
  }

  void start() {
    if (started_) return;
    started_ = true;
    std::thread([this] { loop(); }).detach();
    // Under SMPI a deadline counts from the simulation's last progress.
    smpi::on_progress([this] { progress_.fetch_add(1, std::memory_order_relaxed); });
  }

 public:
  // Under SMPI a hang is mostly a deadlock, which SimGrid sees at once:
  // every rank in a phase says what it waits in, or (no phase armed: not a
  // black-box call) one line for the job. SimGrid itself would end the
  // process with exit 0.
  void report_deadlocks() {
    std::lock_guard<std::mutex> lock(mu_);
    if (deadlock_report_) return;
    deadlock_report_ = true;
    smpi::on_deadlock([this] {
      std::lock_guard<std::mutex> held(mu_);
      if (std::any_of(phases_.begin(), phases_.end(), [](const auto& e) { return e.second.armed; })) fire_all(false);
      static const char line[] =
          "collcheck-mpi: the simulation deadlocked: SimGrid found every simulated rank blocked in MPI (its list "
          "above): nothing was decided\n";
      (void)!write(2, line, sizeof line - 1);
      _exit(3);
    });
  }

 private:
  // The simulation moved since the watchdog last looked (never under a real
  // MPI): every armed deadline starts again from now.
  bool progressed() {
    const uint64_t now = progress_.load(std::memory_order_relaxed);
    if (now == seen_progress_) return false;
    seen_progress_ = now;
    const Clock::time_point t = Clock::now();
    for (auto& [rank, ph] : phases_)
      if (ph.armed)
        ph.deadline = std::max(ph.deadline, t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(ph.seconds)));
    return true;
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      waking_.reset();
      for (const auto& [rank, ph] : phases_)
        if (ph.armed && (!waking_ || fires_at(ph) < *waking_)) waking_ = fires_at(ph);
      const uint64_t seen = generation_;
      if (!waking_) {
        cv_.wait(lock, [&] { return generation_ != seen; });
        continue;
      }
      if (cv_.wait_until(lock, *waking_, [&] { return generation_ != seen; })) continue;
      if (progressed()) continue;
      const Clock::time_point now = Clock::now();
      if (std::any_of(phases_.begin(), phases_.end(), [&](const auto& e) { return e.second.armed && fires_at(e.second) <= now; }))
        fire_all(true);
    }
  }

  // Every armed rank's line (those still inside the call first, so the rank
  // that hangs is named before those that wait for it), then exit 3. With
  // `overdue_only`, only the ranks past their deadline speak. No stdio, no
  // allocation: the heap may be corrupted and another thread may hold the
  // allocator's or stdout's lock forever.
  [[noreturn]] void fire_all(bool overdue_only) {
    const Clock::time_point now = Clock::now();
    for (const bool graced_pass : {false, true})
      for (const auto& [rank, ph] : phases_)
        if (ph.armed && graced(ph) == graced_pass && (!overdue_only || fires_at(ph) <= now)) write_line(rank, ph, overdue_only);
    _exit(3);
  }

  static void write_line(int rank, const Phase& ph, bool timed_out) {
    char line[kLineBytes + 200];
    const char* how = ph.kind == PhaseKind::own_work ? "did not end"
                      : ph.returned                  ? "returned, but the other ranks did not finish"
                                                     : "did not return";
    const char* format = smpi::kUnderSmpi
                             ? "collcheck-mpi: rank %d: %s %s: the simulation made no progress for %g s (no "
                               "message moved: a rank computes without end)\n"
                             : "collcheck-mpi: rank %d: %s %s within %g s\n";
    const int n = timed_out ? std::snprintf(line, sizeof line, format, rank, ph.what.c_str(), how, ph.seconds + grace(ph))
                            : std::snprintf(line, sizeof line,
                                            "collcheck-mpi: rank %d: %s %s: SimGrid found every simulated rank "
                                            "blocked (a deadlock)\n",
                                            rank, ph.what.c_str(), how);
    if (n > 0) (void)!write(2, line, std::min(static_cast<size_t>(n), sizeof line - 1));
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  uint64_t generation_ = 0;  // changes with an arm that fires before the thread wakes
  std::optional<Clock::time_point> waking_;  // when the thread wakes next (none: not until an arm)
  bool deadlock_report_ = false;
  std::atomic<uint64_t> progress_{0};  // SMPI: the simulated clock's advances
  uint64_t seen_progress_ = 0;
  std::map<int, Phase> phases_;  // by world rank
};

// Made at static initialisation, before an SMPI simulation starts: one for
// every simulated rank (see the class).
Watchdog* const g_watchdog = new Watchdog();
bool g_installed = false;  // this rank's (privatized under SMPI)
constexpr size_t kAltStackBytes = 1 << 16;
char* const g_alt_stack = new char[kAltStackBytes];  // on the heap: not copied per simulated rank

}  // namespace

void set_crash_line(const std::string& words) {
  const int next = 1 - g_current.load();
  std::string text = "collcheck-mpi: rank " + std::to_string(g_world_rank) + words;
  const size_t n = std::min(text.size(), kLineBytes - 1);
  std::memcpy(g_lines[next], text.data(), n);
  g_lengths[next] = n;
  g_current.store(next);
}

void end_job_after_exception(const std::string& type, const std::string& what) {
  const int cur = g_current.load();
  std::string line(g_lines[cur], g_lengths[cur]);
  int status = 0;
  char* readable = abi::__cxa_demangle(type.c_str(), nullptr, nullptr, &status);
  line += " (it threw " + std::string(status == 0 && readable ? readable : type.c_str()) + ": " + what +
          ", out of the call: no result)\n";
  std::free(readable);
  (void)!write(2, line.data(), line.size());
  _exit(3);
}

void install_crash_report(int world_rank) {
  if (g_installed) return;
  g_installed = true;
  g_world_rank = world_rank;
  set_crash_line(" crashed in collcheck-mpi's own code");
  // An alternate stack for the handler: a function that overflows its
  // stack gets SIGSEGV with no stack left to run a handler on. The call
  // runs on the main thread, which installs this (under SMPI every rank
  // runs on it, one at a time, and shares the one stack).
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = kAltStackBytes;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : kCrashSignals) sigaction(sig, &sa, nullptr);
}

void report_deadlocks() { g_watchdog->report_deadlocks(); }

void arm_watchdog(const std::string& what, double seconds, PhaseKind kind) {
  if (g_installed) g_watchdog->arm(g_world_rank, what, seconds, kind);
}

void disarm_watchdog() {
  if (g_installed) g_watchdog->disarm(g_world_rank);
}

void call_returned() {
  if (g_installed) g_watchdog->returned(g_world_rank);
}

}  // namespace collcheck::runtime::blackbox
