#include "runtime/blackbox/crash_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
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

// One thread for the whole job. Never destroyed (a detached thread may
// still wait on it while the process exits).
class Watchdog {
 public:
  Watchdog() { std::thread([this] { loop(); }).detach(); }

  void arm(const std::string& what, double seconds, PhaseKind kind) {
    std::lock_guard<std::mutex> lock(mu_);
    what_ = what;
    seconds_ = seconds;
    kind_ = kind;
    returned_ = false;
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    armed_ = true;
    ++generation_;
    cv_.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
    ++generation_;
    cv_.notify_all();
  }
  void returned() {
    std::lock_guard<std::mutex> lock(mu_);
    returned_ = true;
  }

 private:
  using Clock = std::chrono::steady_clock;

  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      const uint64_t armed = generation_;
      if (cv_.wait_until(lock, deadline_, [&] { return generation_ != armed; })) continue;
      double waited = seconds_;
      const bool returned = kind_ == PhaseKind::call && returned_;  // read once: grace and words agree
      if (returned) {
        const double grace = std::min(seconds_, kReturnedGraceSeconds);
        const auto until = deadline_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace));
        if (cv_.wait_until(lock, until, [&] { return generation_ != armed; })) continue;
        waited += grace;
      }
      fire(returned, waited);
    }
  }

  // No stdio, no allocation: the heap may be corrupted and another thread
  // may hold the allocator's or stdout's lock forever.
  [[noreturn]] void fire(bool returned, double waited) {
    char line[kLineBytes + 200];
    const char* how = kind_ == PhaseKind::own_work ? "did not end"
                      : returned                   ? "returned, but the other ranks did not finish"
                                                   : "did not return";
    int n = std::snprintf(line, sizeof line, "collcheck-mpi: rank %d: %s %s within %g s\n", g_world_rank,
                          what_.c_str(), how, waited);
    if (n > 0) (void)!write(2, line, std::min(static_cast<size_t>(n), sizeof line - 1));
    _exit(3);
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  uint64_t generation_ = 0;  // changes with every arm and disarm
  Clock::time_point deadline_{};
  std::string what_;
  double seconds_ = 0;
  PhaseKind kind_ = PhaseKind::call;
  bool returned_ = false;
};

Watchdog* g_watchdog = nullptr;

}  // namespace

void set_crash_line(const std::string& words) {
  const int next = 1 - g_current.load();
  std::string text = "collcheck-mpi: rank " + std::to_string(g_world_rank) + words;
  const size_t n = std::min(text.size(), kLineBytes - 1);
  std::memcpy(g_lines[next], text.data(), n);
  g_lengths[next] = n;
  g_current.store(next);
}

void install_crash_report(int world_rank) {
  if (g_watchdog) return;
  g_world_rank = world_rank;
  set_crash_line(" crashed in collcheck-mpi's own code");
  // An alternate stack for the handler: a function that overflows its
  // stack gets SIGSEGV with no stack left to run a handler on. The call
  // runs on the main thread, which installs this.
  static char alt_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : kCrashSignals) sigaction(sig, &sa, nullptr);
  g_watchdog = new Watchdog();
}

void arm_watchdog(const std::string& what, double seconds, PhaseKind kind) {
  if (g_watchdog) g_watchdog->arm(what, seconds, kind);
}

void disarm_watchdog() {
  if (g_watchdog) g_watchdog->disarm();
}

void call_returned() {
  if (g_watchdog) g_watchdog->returned();
}

}  // namespace collcheck::runtime::blackbox
