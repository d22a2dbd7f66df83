#include "checker/fuzz/fuzz.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <tbb/task_arena.h>

#include "checker/sweep/cost_model.hpp"
#include "checker/sweep/file_claims.hpp"
#include "reports/report.hpp"
#include "reports/summary.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck::fuzz {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

bool is_prime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

uint64_t max_p(const Request& r) { return r.max_p ? r.max_p : (r.target ? uint64_t{1} << 21 : 1024); }

// A program takes what its command line asks for ({root}, {n}).
bool takes(const Request& r, const char* option) {
  if (!r.target)
    return (std::string(option) == "root" && r.schedule_cmd.find("{root}") != std::string::npos) ||
           (std::string(option) == "n" && r.schedule_cmd.find("{n}") != std::string::npos);
  return r.target->variant->takes(option);
}

// p from a stratum, in [1, top].
uint64_t draw_p(std::mt19937_64& g, uint64_t top, std::string& stratum) {
  static const char* strata[] = {"small", "pow2", "pow2+-1", "pow3", "pow3+-1", "prime", "large"};
  stratum = strata[g() % 7];
  const int lg2 = static_cast<int>(std::floor(std::log2(static_cast<double>(top))));
  auto clamp = [&](uint64_t x) { return std::clamp<uint64_t>(x, 1, top); };
  if (stratum == "small") return clamp(1 + g() % std::min<uint64_t>(64, top));
  if (stratum == "pow2") return clamp(uint64_t{1} << (g() % (lg2 + 1)));
  if (stratum == "pow2+-1") {
    const uint64_t b = uint64_t{1} << (1 + g() % std::max(1, lg2));
    return clamp(g() % 2 ? b + 1 : b - 1);
  }
  if (stratum == "pow3" || stratum == "pow3+-1") {
    std::vector<uint64_t> pw{1};
    while (pw.back() * 3 <= top) pw.push_back(pw.back() * 3);
    const uint64_t b = pw[g() % pw.size()];
    return stratum == "pow3" ? b : clamp(g() % 2 ? b + 1 : (b > 1 ? b - 1 : b + 1));
  }
  if (stratum == "prime") {
    for (uint64_t x = 2 + g() % std::max<uint64_t>(1, top - 1); x >= 2; --x)
      if (is_prime(x)) return x;
    return clamp(2);
  }
  const double lo = std::log(65.0), hi = std::log(static_cast<double>(std::max<uint64_t>(top, 66)));
  const double u = static_cast<double>(g() >> 11) / 9007199254740992.0;
  return clamp(static_cast<uint64_t>(std::exp(lo + u * (hi - lo))));
}

// A torus shape with product at most `top`, from a stratum named as
// draw_p's: every side a power of two, or of three (any that fits an even
// share of what is left of `top`), next to one (+-1), small (2..9), or
// "large": the largest power of one kind that fits that share, so that tori
// near `top` (2^21 nodes by default) are drawn as often as small ones. 1 to
// 3 dimensions; a side that would still overflow `top` is halved.
std::vector<uint32_t> draw_shape(std::mt19937_64& g, uint64_t top, std::string& stratum) {
  static const char* strata[] = {"small", "pow2", "pow2+-1", "pow3", "pow3+-1", "large"};
  stratum = strata[g() % 6];
  const std::string kind = stratum == "large" ? strata[1 + g() % 4] : stratum;  // large: of any power kind
  std::vector<uint32_t> dims(1 + g() % 3);
  const size_t D = dims.size();
  uint64_t prod = 1;
  for (size_t i = 0; i < D; ++i) {
    // The side that would fill the rest of `top` evenly over the sides left.
    const double left = static_cast<double>(top / prod);
    const uint64_t cap = std::max<uint64_t>(1, static_cast<uint64_t>(std::pow(left, 1.0 / static_cast<double>(D - i)) + 1e-9));
    uint64_t d = 2 + g() % 8;
    if (kind != "small") {
      const uint64_t base = kind.rfind("pow2", 0) == 0 ? 2 : 3;
      std::vector<uint64_t> pw{1};
      while (pw.back() * base <= cap) pw.push_back(pw.back() * base);
      d = stratum == "large" ? pw.back() : pw[g() % pw.size()];
      if (kind.size() > 4) d = d > 1 && g() % 2 ? d - 1 : d + 1;  // next to the power
    }
    while (prod * d > top && d > 1) d /= 2;
    dims[i] = static_cast<uint32_t>(d);
    prod *= d;
  }
  return dims;
}

Rank mapped_root(Rank root, uint64_t p_old, uint64_t p) {
  if (root == 0 || p <= 1) return 0;
  if (root == p_old - 1) return static_cast<Rank>(p - 1);
  if (root == p_old / 2) return static_cast<Rank>(p / 2);
  return static_cast<Rank>(std::min<uint64_t>(root, p - 1));
}

std::string substitute(std::string cmd, const Instance& i, uint64_t seed) {
  const std::vector<std::pair<std::string, std::string>> subs = {
      {"{p}", std::to_string(i.p)}, {"{root}", std::to_string(i.root)},
      {"{n}", std::to_string(i.n ? i.n : 1)}, {"{seed}", std::to_string(seed)}};
  for (const auto& [k, v] : subs)
    for (size_t at = cmd.find(k); at != std::string::npos; at = cmd.find(k, at + v.size())) cmd.replace(at, k.size(), v);
  return cmd;
}

struct CmdError {
  ErrorKind kind;
  std::string message;
};

// "1 GiB", or the bytes of a lowered limit.
std::string bytes_text(uint64_t b) {
  return b == (uint64_t{1} << 30) ? "1 GiB" : std::to_string(b) + " bytes";
}

// Runs `cmd` under sh with stdout into the file open as `out_fd` (emptied
// first); throws CmdError when it fails, outlives `timeout` seconds or prints
// more than `max_bytes` (its process group is killed then).
void run_command(const std::string& cmd, int out_fd, double timeout, uint64_t max_bytes) {
  if (::ftruncate(out_fd, 0) != 0 || ::lseek(out_fd, 0, SEEK_SET) != 0)
    throw CmdError{ErrorKind::runtime, "cannot empty the schedule command's output file: " + std::string(std::strerror(errno))};
  const pid_t pid = fork();
  if (pid < 0) throw CmdError{ErrorKind::runtime, "cannot start the schedule command"};
  if (pid == 0) {
    setpgid(0, 0);
    if (dup2(out_fd, 1) < 0) _exit(126);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  auto stop = [&] {  // the group is killed before its leader is reaped (its id cannot be reused yet)
    kill(-pid, SIGKILL);
    int ignored = 0;
    waitpid(pid, &ignored, 0);
  };
  // Polled, so the file may pass the limit by what the program writes in one
  // period (a few MiB, more while this process waits for a core); it is
  // never read then.
  auto over_limit = [&] {
    struct stat st = {};
    return ::fstat(out_fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > max_bytes;
  };
  const CmdError too_much{ErrorKind::input, "the schedule command printed more than " + bytes_text(max_bytes) +
                                                ", the schedule-file limit; stopped (its process group killed): " + cmd};
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
  for (;;) {
    // Ended? (Not reaped yet: while it is a zombie its group id cannot be
    // reused, so the group can still be killed below.)
    siginfo_t info = {};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
    if (over_limit()) {
      stop();
      throw too_much;
    }
    if (Clock::now() > deadline) {
      stop();
      throw CmdError{ErrorKind::runtime,
                     "the schedule command did not finish within " + std::to_string(static_cast<int>(timeout)) +
                         " s: " + cmd};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // It ended past the limit (e.g. killed by a file-size limit between two
  // polls): what it left running in its group, a writer in the background,
  // is killed too.
  if (over_limit()) {
    stop();
    throw too_much;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  throw CmdError{ErrorKind::runtime,
                 "the schedule command failed (" +
                     (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status))) +
                     "): " + cmd};
}

class Fuzzer {
 public:
  explicit Fuzzer(const Request& r) : r_(r), start_(Clock::now()) {
    s_.seed = r.seed;
    if (r.schedule_cmd.empty()) return;
    // The program's output file: created by mkstemp (O_EXCL, mode 0600), so
    // no name anyone could plant a link at beforehand is ever opened.
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) throw InputError("fuzz --schedule-cmd: no temporary directory: " + ec.message());
    std::string name = (dir / "collcheck-fuzz-XXXXXX").string();
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0)
      throw InputError("fuzz --schedule-cmd: cannot create a temporary file in '" + dir.string() +
                       "': " + std::strerror(errno));
    tmp_ = name;
  }
  ~Fuzzer() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_.c_str());
    }
  }
  Fuzzer(const Fuzzer&) = delete;
  Fuzzer& operator=(const Fuzzer&) = delete;

  Summary run() {
    if (r_.started) r_.started();
    try {
      for (uint64_t k = 0; elapsed() < r_.seconds && s_.unfinished.empty(); ++k) {
        const Instance i = draw(r_.seed, k, r_);
        const auto res = check(i, true);
        if (res && res->status == Status::violated) {
          shrink(i, *res);
          break;
        }
      }
    } catch (const CmdError& e) {
      s_.error = e.kind;
      s_.error_message = e.message;
    } catch (const InputError& e) {
      s_.error = ErrorKind::input;
      s_.error_message = e.what();
    }
    s_.seconds = elapsed();
    return s_;
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  SweepTarget target_for(const Instance& i) const {
    SweepTarget t = *r_.target;
    t.root = i.root;
    t.blocks = i.n;
    t.radix = i.radix;
    t.ppn = i.ppn;
    if (!i.dims.empty()) t.shapes = {i.dims};
    return t;
  }

  // The instance's result, or nullopt when it was not checked (restricted,
  // refused, over the budget). `count`: an instance of the fuzzing itself
  // (not of shrinking), counted in the summary.
  std::optional<InstanceResult> check(const Instance& i, bool count) {
    if (!r_.target) return check_program(i, count);
    const SweepTarget t = target_for(i);
    if (t.variant->violates && t.variant->violates(t.params(i.p))) {
      s_.restricted += count;
      return std::nullopt;
    }
    try {
      const InstanceWork w = instance_work(t, i.p, 0, r_.check);
      if (auto why = projected_refusal(t, i.p, w.nblocks, r_.check)) {
        refuse(i, count, *why);
        return std::nullopt;
      }
      Rate& rate = rates_[w.quotient ? 1 : 0];
      const double predicted = w.units() * rate.seconds_per_unit;
      if (count && predicted > std::max(0.5, (r_.seconds - elapsed()) / 2)) {
        ++s_.over_budget;
        return std::nullopt;
      }
      const auto t0 = Clock::now();
      std::optional<InstanceResult> done;
      if (count) {
        done = within_budget([t, p = i.p, o = r_.check] { return check_instance(t, p, o); });
        if (!done) {
          s_.unfinished = i.label();
          return std::nullopt;
        }
      } else {
        done = check_instance(t, i.p, r_.check);  // shrinking runs to the end
      }
      InstanceResult& res = *done;
      const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
      // The measured rate of the largest instance so far (small ones are
      // dominated by fixed costs and would overstate large ones).
      if (sec > 0.05 && w.units() >= rate.units) rate = {sec / w.units(), w.units()};
      if (res.status == Status::skipped) {
        refuse(i, count, res.skip_reason.empty() ? "skipped by the checker" : res.skip_reason);
        return std::nullopt;
      }
      if (count) record(i);
      return res;
    } catch (const InputError& e) {  // refused by the checker (e.g. over the dense limit)
      refuse(i, count, e.what());
      return std::nullopt;
    }
  }

  void refuse(const Instance& i, bool count, const std::string& why) {
    if (!count) return;
    ++s_.refused;
    if (s_.first_refused.empty()) s_.first_refused = i.label() + ": " + why;
  }

  // Runs `f` on a worker thread (in an arena of this one's concurrency, so
  // --threads holds) and waits until the budget's end: its result, or
  // nullopt if it is still running then (the worker is detached and left
  // running: TBB cannot stop a check from outside, and the budget is the
  // user's CI slot; the caller ends the process). The cost model's
  // prediction already keeps most instances that would outrun the budget
  // from starting, but it is a model (TRA at p = 8192 was predicted at
  // 0.9 s and took 49 s), so this is the bound.
  template <class F>
  std::optional<InstanceResult> within_budget(F f) {
    auto task = std::make_shared<std::packaged_task<InstanceResult()>>(std::move(f));
    std::future<InstanceResult> result = task->get_future();
    const int threads = tbb::this_task_arena::max_concurrency();
    std::thread([task, threads] {
      tbb::task_arena arena(threads);
      arena.execute([&] { (*task)(); });
    }).detach();
    const auto end = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(r_.seconds));
    if (result.wait_until(end) != std::future_status::ready) return std::nullopt;
    return result.get();  // rethrows what the check threw
  }

  std::optional<InstanceResult> check_program(const Instance& i, bool count) {
    const std::string cmd = substitute(r_.schedule_cmd, i, r_.seed);
    run_command(cmd, fd_, r_.cmd_timeout, r_.max_output);
    ScheduleDocument doc;
    try {
      doc = load_schedule_file(tmp_, "auto", default_max_memory());
    } catch (const InputError& e) {
      // The reader names the file: the program's output, not a temporary name.
      std::string why = e.what();
      for (size_t at = why.find(tmp_); at != std::string::npos; at = why.find(tmp_, at))
        why.replace(at, tmp_.size(), "its output");
      throw InputError("the schedule command printed a malformed schedule (" + cmd + "): " + why);
    }
    const CollectiveSpec& spec = doc.schedule.spec;
    if (spec.p != i.p)
      throw InputError("the schedule command printed a schedule for p = " + std::to_string(spec.p) + ", asked for p = " +
                       std::to_string(i.p) + ": " + cmd);
    const bool rooted = spec.kind == Collective::broadcast || spec.kind == Collective::reduce;
    if (rooted && spec.root != i.root)
      throw InputError("the schedule command printed a schedule for root " + std::to_string(spec.root) +
                       ", asked for root " + std::to_string(i.root) + ": " + cmd);
    const MaterializedView view(std::move(doc.schedule));
    InstanceCheck ic = check_schedule(view, nullptr, {}, r_.check);
    InstanceResult res;
    res.algorithm = "program";
    res.variant = r_.schedule_cmd;
    res.collective = to_string(spec.kind);
    res.p = i.p;
    res.verdicts = std::move(ic.verdicts);
    res.stats = std::move(ic.stats);
    res.status = combined_status(res.verdicts);
    if (ic.refused) {
      refuse(i, count, ic.refused->reason);
      return std::nullopt;
    }
    if (count) record(i);
    return res;
  }

  void record(const Instance& i) {
    ++s_.checked;
    ++s_.per_stratum[i.stratum];
    if (i.p > s_.largest_p) {
      s_.largest_p = i.p;
      s_.largest = i.label();
    }
  }

  // Smaller instances, smallest first: every p below (options mapped), or for
  // a torus every shape with sides at most the found ones', its sides of 1
  // dropped (a side of 1 has no steps: 1x4 is the torus 4), by p and then by
  // fewer dimensions, so that the minimal shape is the simplest one.
  std::vector<Instance> smaller(const Instance& f) const {
    std::vector<Instance> out;
    if (!f.dims.empty()) {
      std::vector<std::vector<uint32_t>> per(f.dims.size());
      for (size_t d = 0; d < f.dims.size(); ++d) {
        std::set<uint32_t> c{1, f.dims[d]};
        for (uint32_t x = 2; x < f.dims[d]; x *= 2) c.insert(x);
        for (uint32_t x = 3; x < f.dims[d]; x *= 3) c.insert(x);
        for (uint32_t x = 2; x < std::min<uint32_t>(f.dims[d], 10); ++x) c.insert(x);
        per[d].assign(c.begin(), c.end());
      }
      std::set<std::vector<uint32_t>> seen;
      std::vector<size_t> idx(f.dims.size(), 0);
      for (;;) {
        Instance c = f;
        c.p = 1;
        c.dims.clear();
        for (size_t d = 0; d < f.dims.size(); ++d) {
          const uint32_t side = per[d][idx[d]];
          if (side > 1) c.dims.push_back(side);
          c.p *= side;
        }
        if (c.dims.empty()) c.dims = {1};
        if (c.dims != f.dims && seen.insert(c.dims).second) out.push_back(c);
        size_t d = 0;
        while (d < idx.size() && ++idx[d] == per[d].size()) idx[d++] = 0;
        if (d == idx.size()) break;
      }
      std::stable_sort(out.begin(), out.end(), [](const Instance& a, const Instance& b) {
        return a.p != b.p ? a.p < b.p : a.dims.size() < b.dims.size();
      });
      return out;
    }
    std::set<uint64_t> ps;
    for (uint64_t p = 1; p < f.p && p <= 2048; ++p) ps.insert(p);
    for (uint64_t b = 1; b < f.p; b *= 2) ps.insert({b, b + 1, b > 1 ? b - 1 : 1});
    for (uint64_t b = 1; b < f.p; b *= 3) ps.insert({b, b + 1, b > 1 ? b - 1 : 1});
    for (uint64_t p : ps) {
      if (p >= f.p) continue;
      Instance c = f;
      c.p = p;
      c.root = mapped_root(f.root, f.p, p);
      if (f.radix == f.p) c.radix = static_cast<uint32_t>(p);
      else if (f.radix > p) c.radix = 0;
      out.push_back(c);
    }
    return out;
  }

  void shrink(const Instance& found, const InstanceResult& res) {
    Finding fd;
    fd.found = found;
    fd.minimal = found;
    fd.result = res;
    const double limit = r_.seconds * 1.5 + 30;  // shrinking may outlast the budget, boundedly
    // A candidate the program cannot produce (it fails, hangs or prints
    // something else for it) is no smaller counterexample: skipped.
    auto failing = [&](const Instance& c) -> std::optional<InstanceResult> {
      ++fd.shrink_checks;
      try {
        if (auto rr = check(c, false); rr && rr->status == Status::violated) return rr;
      } catch (const CmdError&) {
      } catch (const InputError&) {
      }
      return std::nullopt;
    };
    for (const Instance& c : smaller(found)) {
      if (elapsed() > limit) break;
      if (auto rr = failing(c)) {
        fd.minimal = c;
        fd.result = *rr;
        break;
      }
    }
    // Then each option back to its default while it still fails.
    for (int opt = 0; opt < 4 && elapsed() <= limit; ++opt) {
      Instance c = fd.minimal;
      if (opt == 0) c.root = 0;
      if (opt == 1) c.n = 0;
      if (opt == 2) c.radix = 0;
      if (opt == 3) c.ppn = 0;
      if (c.root == fd.minimal.root && c.n == fd.minimal.n && c.radix == fd.minimal.radix && c.ppn == fd.minimal.ppn)
        continue;
      if (auto rr = failing(c)) {
        c.stratum = fd.minimal.stratum;
        fd.minimal = c;
        fd.result = *rr;
      }
    }
    fd.command = reproduce(fd.minimal);
    s_.finding = std::move(fd);
  }

  std::string reproduce(const Instance& i) const {
    if (!r_.target) {
      return substitute(r_.schedule_cmd, i, r_.seed) + " > schedule.json && collcheck check-file schedule.json";
    }
    std::string c = "collcheck verify --algo " + r_.target->algorithm->name + " --variant " + r_.target->variant->name;
    if (!i.dims.empty()) c += " --dims " + dims_label(i.dims);
    else c += " --p " + std::to_string(i.p);
    if (i.root) c += " --root " + std::to_string(i.root);
    if (i.n) c += " --n " + std::to_string(i.n);
    if (i.radix) c += " --radix " + std::to_string(i.radix);
    if (i.ppn) c += " --ppn " + std::to_string(i.ppn);
    return c;
  }

  const Request& r_;
  Clock::time_point start_;
  Summary s_;
  std::string tmp_;  // the program's output file (--schedule-cmd), open as fd_
  int fd_ = -1;
  // Seconds per work unit (cost_model.hpp), then as measured on the largest
  // instance so far, kept apart for the instances the certified quotient
  // takes (rank 0's work: a unit costs differently) and the others.
  struct Rate {
    double seconds_per_unit = 1.0 / 2e7;
    double units = 0;
  };
  std::array<Rate, 2> rates_;
};

}  // namespace

std::string Instance::label() const {
  std::string s = dims.empty() ? "p=" + std::to_string(p) : "dims=" + dims_label(dims) + " (p=" + std::to_string(p) + ")";
  if (root) s += " root=" + std::to_string(root);
  if (n) s += " n=" + std::to_string(n);
  if (radix) s += " radix=" + std::to_string(radix);
  if (ppn) s += " ppn=" + std::to_string(ppn);
  return s;
}

uint64_t size_cap(uint64_t k, uint64_t top) {
  // 2^3 doubling every 4 draws up to 2^10 (draw 28), then every draw.
  const uint64_t lg = k < 28 ? 3 + k / 4 : 10 + (k - 28);
  return lg >= 63 ? top : std::min(top, uint64_t{1} << lg);
}

Instance draw(uint64_t seed, uint64_t k, const Request& r) {
  std::mt19937_64 g(mix(seed ^ mix(k + 1)));
  Instance i;
  const uint64_t top = size_cap(k, max_p(r));
  if (takes(r, "dims")) {
    std::string kind;
    i.dims = draw_shape(g, top, kind);
    i.p = 1;
    for (uint32_t d : i.dims) i.p *= d;
    i.stratum = "torus " + std::to_string(i.dims.size()) + "D " + kind;
    return i;
  }
  i.p = draw_p(g, top, i.stratum);
  if (takes(r, "root")) {
    const uint64_t c = g() % 4;
    i.root = static_cast<Rank>(c == 0 ? 0 : c == 1 ? i.p - 1 : c == 2 ? i.p / 2 : g() % i.p);
  }
  if (takes(r, "n")) {
    const uint64_t c = g() % 5;
    i.n = static_cast<uint32_t>(c == 0 ? 0 : c == 1 ? 1 : c == 2 ? 2 : c == 3 ? 3 : 1 + g() % 16);
  }
  if (takes(r, "radix") && i.p >= 2) {
    const uint64_t c = g() % 5;
    i.radix = static_cast<uint32_t>(c == 0 ? 0 : c == 1 ? 2 : c == 2 ? 3 : c == 3 ? i.p : 2 + g() % (i.p - 1));
  }
  if (takes(r, "ppn")) i.ppn = static_cast<uint32_t>(g() % 5);
  return i;
}

Summary run(const Request& r) {
  if (r.target.has_value() == !r.schedule_cmd.empty())
    throw InputError("fuzz takes exactly one of --algo and --schedule-cmd");
  if (r.seconds <= 0) throw InputError("fuzz needs a time budget above 0 (--seconds)");
  return Fuzzer(r).run();
}

namespace {

// The --db file's content, validated (absent: an empty database for `what`).
nlohmann::json read_db(const std::string& path, const std::string& what) {
  nlohmann::json db = {{"format", "collcheck-fuzz-db/1"}, {"target", what}, {"runs", nlohmann::json::array()},
                       {"per_stratum", nlohmann::json::object()}, {"checked", 0}, {"largest_p", 0}, {"seconds", 0.0}};
  if (!std::filesystem::exists(path)) return db;
  std::ifstream in(path);
  try {
    db = nlohmann::json::parse(in);
    if (db.at("format") != "collcheck-fuzz-db/1") throw std::runtime_error("format is not collcheck-fuzz-db/1");
    if (db.at("target") != what)
      throw InputError("--db " + path + " holds the fuzzing of " + db.at("target").get<std::string>() + ", not " + what);
    (void)db.at("runs").size(), (void)db.at("per_stratum").size();
    (void)db.at("checked").get<uint64_t>(), (void)db.at("largest_p").get<uint64_t>(), (void)db.at("seconds").get<double>();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError("--db " + path + " is not a collcheck fuzz database: " + e.what());
  }
  return db;
}

}  // namespace

void check_db(const std::string& path, const std::string& what) { (void)read_db(path, what); }

Coverage accumulate(const std::string& path, const std::string& what, const Summary& s) {
  nlohmann::json db = read_db(path, what);
  db["runs"].push_back({{"seed", s.seed},
                        {"seconds", s.seconds},
                        {"checked", s.checked},
                        {"largest_p", s.largest_p},
                        {"status", result(s)},
                        {"minimal", s.finding ? nlohmann::json(s.finding->minimal.label()) : nlohmann::json(nullptr)}});
  for (const auto& [k, v] : s.per_stratum) db["per_stratum"][k] = db["per_stratum"].value(k, uint64_t{0}) + v;
  db["checked"] = db["checked"].get<uint64_t>() + s.checked;
  db["largest_p"] = std::max(db["largest_p"].get<uint64_t>(), s.largest_p);
  db["seconds"] = db["seconds"].get<double>() + s.seconds;
  write_output(path, db.dump(1) + "\n");
  Coverage c;
  c.runs = db["runs"].size();
  c.checked = db["checked"];
  c.largest_p = db["largest_p"];
  c.seconds = db["seconds"];
  for (const auto& [k, v] : db["per_stratum"].items()) c.per_stratum[k] = v.get<uint64_t>();
  return c;
}

std::string result(const Summary& s) {
  if (s.error != ErrorKind::none) return "error";
  if (s.finding) return "violated";
  return s.checked == 0 ? "unknown" : "holds";
}

namespace {

// Why nothing was checked, from the counts (one line).
std::string nothing_checked(const Summary& s) {
  std::string why;
  auto add = [&](uint64_t n, const std::string& what) {
    if (n) why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(s.restricted, "outside the variant's restriction");
  add(s.refused, "refused by the checker");
  add(s.over_budget, "predicted over the remaining budget");
  if (!s.unfinished.empty()) why += (why.empty() ? "" : ", ") + s.unfinished + " still running at the budget (abandoned)";
  return "no instance was checked within the budget" + (why.empty() ? std::string() : " (" + why + ")") +
         "; not a result";
}

}  // namespace

std::string render(const Summary& s, const std::string& what, Format f, const Coverage* total) {
  if (f == Format::json) {
    nlohmann::json j{{"tool", "collcheck fuzz"}, {"target", what},         {"seed", s.seed},
                     {"seconds", s.seconds},     {"checked", s.checked},   {"restricted", s.restricted},
                     {"refused", s.refused},     {"over_budget", s.over_budget}, {"largest_p", s.largest_p},
                     {"largest", s.largest}};
    j["unfinished"] = s.unfinished.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.unfinished);
    j["first_refused"] = s.first_refused.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.first_refused);
    j["per_stratum"] = s.per_stratum;
    if (total)
      j["accumulated"] = {{"runs", total->runs}, {"checked", total->checked}, {"largest_p", total->largest_p},
                          {"seconds", total->seconds}, {"per_stratum", total->per_stratum}};
    j["status"] = result(s);
    j["error"] = s.error == ErrorKind::none ? nlohmann::json(nullptr) : nlohmann::json(s.error_message);
    j["finding"] = nullptr;
    if (s.finding) {
      nlohmann::json v = nlohmann::json::array();
      for (const Verdict& x : s.finding->result.verdicts)
        if (x.status == Status::violated)
          v.push_back({{"property", x.property},
                       {"location", x.counterexample ? x.counterexample->location() : ""},
                       {"expected", x.counterexample ? x.counterexample->expected : ""},
                       {"actual", x.counterexample ? x.counterexample->actual : ""}});
      j["finding"] = {{"found", s.finding->found.label()}, {"minimal", s.finding->minimal.label()},
                      {"shrink_checks", s.finding->shrink_checks}, {"command", s.finding->command},
                      {"violated", v}};
    }
    return j.dump(1) + "\n";
  }
  std::ostringstream os;
  // The target names the user's --schedule-cmd, and the messages quote it:
  // control characters are escaped visibly (visible()) in the text and JUnit
  // reports, so no value can print a line of its own ("RESULT: holds").
  if (f == Format::junit) {
    auto esc = [](const std::string& x) { return reports_detail::xml_escape(visible(x)); };
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"collcheck fuzz\" tests=\"1\" failures=\""
       << (s.finding ? 1 : 0) << "\" errors=\"" << (s.error != ErrorKind::none || result(s) == "unknown" ? 1 : 0) << "\" time=\"" << s.seconds
       << "\">\n  <testsuite name=\"fuzz " << esc(what) << "\" tests=\"1\">\n    <testcase classname=\"fuzz\" name=\""
       << esc(what) << " seed " << s.seed << "\">";
    if (s.finding)
      os << "<failure message=\"minimal " << esc(s.finding->minimal.label()) << "\">" << esc(s.finding->command)
         << "</failure>";
    else if (s.error != ErrorKind::none)
      os << "<error message=\"" << esc(s.error_message) << "\"/>";
    else if (result(s) == "unknown")
      os << "<error type=\"nothing-checked\" message=\"nothing was checked: " << esc(nothing_checked(s)) << "\"/>";
    os << "<system-out>" << s.checked << " instances checked, largest " << esc(s.largest)
       << (s.unfinished.empty() ? "" : "; " + esc(s.unfinished) + " still running at the budget, abandoned")
       << "</system-out></testcase>\n"
       << "  </testsuite>\n</testsuites>\n";
    return os.str();
  }
  os << "collcheck fuzz: " << visible(what) << " seed=" << s.seed << " " << s.seconds << " s\n";
  os << "checked " << s.checked << " instances (largest " << (s.largest.empty() ? "none" : visible(s.largest))
     << "); per stratum:";
  for (const auto& [k, v] : s.per_stratum) os << " " << visible(k) << " " << v;
  os << "\nnot checked: " << s.restricted << " outside the variant's restriction, " << s.refused
     << " refused by the checker, " << s.over_budget << " predicted over the remaining budget\n";
  if (!s.first_refused.empty()) os << "first refused: " << visible(s.first_refused) << "\n";
  if (!s.unfinished.empty())
    os << "unfinished: " << visible(s.unfinished) << " was still running at the budget; abandoned, not counted\n";
  if (s.finding) {
    os << "VIOLATED at " << visible(s.finding->found.label()) << "; shrunk (" << s.finding->shrink_checks
       << " checks) to " << visible(s.finding->minimal.label()) << ":\n";
    for (const Verdict& x : s.finding->result.verdicts)
      if (x.status == Status::violated && x.counterexample)
        os << "  " << visible(x.property) << " at " << visible(x.counterexample->location()) << ": expected "
           << visible(x.counterexample->expected) << ", got " << visible(x.counterexample->actual) << "\n";
    os << "reproduce: " << visible(s.finding->command) << "\n";
  }
  if (total) {
    os << "accumulated (--db) over " << total->runs << " runs, " << total->seconds << " s: " << total->checked
       << " instances, largest p=" << total->largest_p << "; per stratum:";
    for (const auto& [k, v] : total->per_stratum) os << " " << visible(k) << " " << v;
    os << "\n";
  }
  if (s.error != ErrorKind::none) os << "ERROR: " << visible(s.error_message) << "\n";
  else if (result(s) == "unknown") os << "nothing was checked: " << nothing_checked(s) << "\n";
  os << "RESULT: " << result(s) << "\n";
  return os.str();
}

}  // namespace collcheck::fuzz
