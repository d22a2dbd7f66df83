#include "checker/sweep/mpi_shard.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iterator>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checker/sweep/cost_model.hpp"
#include "checker/sweep/shard_plan.hpp"
#include "schedules/formats/launcher_stdout.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {

bool launched_by_mpi() { return under_mpi_launcher(); }

namespace {

// What a rank reports about its part (setup, or its whole share): nothing
// (all went well), or one tag byte followed by the error message.
constexpr char kInputError = 'I', kOutOfMemory = 'M', kInternalError = 'E', kCancelled = 'C';

// Point-to-point messages of a sweep (MPI_COMM_WORLD):
//   batch  rank k -> 0: encoded (job, result) pairs, sent as the results finish;
//   done   rank k -> 0: k's share is over: empty, or its failure (tag byte + text);
//   abort  0 -> rank k: stop at the next job (another rank failed); k ignores it once done;
//   final  0 -> rank k: the exit code, the last message of the sweep.
enum Tag : int { kTagBatch = 101, kTagDone = 102, kTagAbort = 103, kTagFinal = 104 };

// Thrown by a cancelled share at its next job (after an abort).
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// The balancing cost of a job: the claim-based work units, with the claimed
// volume standing in for the block count (no schedule is built to plan).
double job_cost(const SweepTarget& t, const SweepJob& j, const CheckOptions& o) {
  const InstanceParams ip = t.params(j.p, j.radix);
  if (t.variant->violates(ip)) return 1.0;
  try {
    const Claim c = t.variant->claim(ip);
    const uint64_t nb = std::max<uint64_t>(c.volume_blocks, 1);
    return instance_work(t, j.p, j.radix, nb, o).units();
  } catch (const std::exception&) {
    return 1000.0 + static_cast<double>(j.p) * static_cast<double>(j.p);  // the sweep reports the problem
  }
}

// Sleeps a little longer each time nothing happened (up to 5 ms): the ranks
// wait without spinning a core (Open MPI's blocking calls busy-poll, and the
// ranks share the cores with the checking threads).
void nap(int& us) {
  std::this_thread::sleep_for(std::chrono::microseconds(us));
  us = std::min(us * 2, 5000);
}

// Waits for `req`, calling `between` (if any) while it is pending.
void wait_for(MPI_Request& req, const std::function<void()>& between = {}) {
  int us = 20;
  for (int done = 0;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (between) between();
    nap(us);
  }
}

// Every rank's `mine` on rank 0 (empty elsewhere), in rounds whose total
// stays below INT_MAX bytes (MPI counts and displacements are int).
std::vector<std::string> gather_to_root(const std::string& mine, int rank, int size) {
  uint64_t len = mine.size();
  std::vector<uint64_t> lens(rank == 0 ? size : 0);
  MPI_Gather(&len, 1, MPI_UINT64_T, lens.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  uint64_t longest = 0;
  MPI_Allreduce(&len, &longest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  const uint64_t chunk = std::max<uint64_t>(1, (INT_MAX / 2) / static_cast<uint64_t>(size));
  std::vector<std::string> parts(rank == 0 ? size : 0);
  std::vector<int> counts(size), displs(size);
  std::vector<char> buf;
  for (uint64_t off = 0; off < longest; off += chunk) {
    const int send = static_cast<int>(std::min(chunk, len - std::min(len, off)));
    if (rank == 0) {
      int total = 0;
      for (int k = 0; k < size; ++k) {
        counts[k] = static_cast<int>(std::min(chunk, lens[k] - std::min(lens[k], off)));
        displs[k] = total;
        total += counts[k];
      }
      buf.resize(std::max(total, 1));
    }
    MPI_Gatherv(mine.data() + std::min(len, off), send, MPI_BYTE, buf.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
    if (rank == 0)
      for (int k = 0; k < size; ++k) parts[k].append(buf.data() + displs[k], static_cast<size_t>(counts[k]));
  }
  return parts;
}

// The exit code the command line gives for an exception (MpiCommandLine::exit_code,
// set once by mpi_cli_main before any sweep runs).
std::function<int(const std::exception_ptr&)> g_exit_code;
int exit_code_of(const std::exception_ptr& e) { return g_exit_code(e); }

// An exception as a status text for rank 0.
std::string status_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Cancelled&) {
    return std::string(1, kCancelled);
  } catch (const InputError& x) {
    return kInputError + std::string(x.what());
  } catch (const std::bad_alloc&) {
    return std::string(1, kOutOfMemory);
  } catch (const std::exception& x) {
    return kInternalError + std::string(x.what());
  } catch (...) {
    return kInternalError + std::string("unknown exception");
  }
}

// The exception rank k's non-empty status stands for, as rank 0 reports it:
// bad input as the single process words it (every rank meets the request's
// own error), other failures naming the rank; nullptr for a cancelled share.
std::exception_ptr failure_of(const std::string& status, int k) {
  if (status.empty() || status[0] == kCancelled) return nullptr;
  const std::string text = status.substr(1);
  if (status[0] == kInputError) return std::make_exception_ptr(InputError(text));
  if (status[0] == kOutOfMemory) return std::make_exception_ptr(std::bad_alloc());
  return std::make_exception_ptr(std::runtime_error("MPI rank " + std::to_string(k) + ": " + text));
}

bool cancelled(const std::exception_ptr& e) { return e && status_of(e) == std::string(1, kCancelled); }

// Rank 0 broadcasts `code` (every rank returns it); the others wait without spinning.
int broadcast_code(int code) {
  MPI_Request req;
  MPI_Ibcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  wait_for(req);
  return code;
}

// The results a rank's share finished and its main thread has not sent yet
// (the checking threads push, the main thread, the only one that calls MPI
// under MPI_THREAD_FUNNELED, takes).
class Outbox {
 public:
  void push(size_t job, const InstanceResult& r) {
    std::lock_guard<std::mutex> g(m_);
    items_.push_back({job, r});
    cv_.notify_one();
  }
  void close() {
    std::lock_guard<std::mutex> g(m_);
    closed_ = true;
    cv_.notify_one();
  }
  // Everything pushed so far, after waiting up to `wait` for something;
  // `closed`: nothing more will come.
  std::vector<IndexedResult> take(std::chrono::milliseconds wait, bool& closed) {
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait_for(lk, wait, [&] { return closed_ || !items_.empty(); });
    std::vector<IndexedResult> out;
    out.swap(items_);
    closed = closed_ && out.empty();
    return out;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<IndexedResult> items_;
  bool closed_ = false;
};

// A rank's share of the sweep, run on a thread of its own so that the main
// thread stays free for MPI (sending, or on rank 0 receiving and recording).
class Share {
 public:
  explicit Share(SweepRequest req) : req_(std::move(req)) {
    thread_ = std::thread([this] {
      try {
        report_ = run_sweep(req_);
      } catch (...) {
        error_ = std::current_exception();
      }
      finished_ = true;  // after every on_finished call of the share
    });
  }
  ~Share() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  bool finished() const { return finished_; }
  const std::exception_ptr& error() const { return error_; }  // after finished()
  Report& report() { return report_; }                        // after join()

 private:
  SweepRequest req_;
  std::thread thread_;
  std::atomic<bool> finished_{false};
  Report report_;
  std::exception_ptr error_;
};

// Sends results to rank 0 in messages of at most 1 GiB.
void send_results(std::vector<IndexedResult> batch, const std::function<void()>& between) {
  const std::string bytes = encode_results(batch);
  if (bytes.size() > (size_t{1} << 30) && batch.size() > 1) {
    std::vector<IndexedResult> second(std::make_move_iterator(batch.begin() + batch.size() / 2),
                                      std::make_move_iterator(batch.end()));
    batch.resize(batch.size() / 2);
    send_results(std::move(batch), between);
    send_results(std::move(second), between);
    return;
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    throw std::runtime_error("the result of one instance is " + std::to_string(bytes.size()) +
                             " bytes encoded, too large to send to MPI rank 0");
  MPI_Request req;
  MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kTagBatch, MPI_COMM_WORLD, &req);
  wait_for(req, between);
}

// A rank other than 0: runs its share, sends each result to rank 0 as it
// finishes, stops early when rank 0 says so, reports how its share ended and
// returns the exit code rank 0 decides.
int run_share_and_send(SweepRequest local) {
  std::atomic<bool> cancel{false};
  Outbox outbox;
  // An abort from rank 0: the share stops at its next job.
  auto poll_abort = [&] {
    int flag = 0;
    MPI_Iprobe(0, kTagAbort, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (!flag) return;
    char b;
    MPI_Recv(&b, 1, MPI_BYTE, 0, kTagAbort, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cancel = true;
  };
  local.reuse = [&](size_t, const InstanceResult&) -> std::optional<InstanceResult> {
    if (cancel) throw Cancelled();
    return std::nullopt;
  };
  local.on_finished = [&](size_t job, const InstanceResult& r) { outbox.push(job, r); };
  std::exception_ptr failure;
  {
    Share share(std::move(local));
    try {
      for (bool closed = false; !closed;) {
        std::vector<IndexedResult> batch = outbox.take(std::chrono::milliseconds(5), closed);
        if (!batch.empty()) send_results(std::move(batch), poll_abort);
        poll_abort();
        if (closed) break;
        if (share.finished()) outbox.close();  // what was pushed before is taken first
      }
    } catch (...) {
      failure = std::current_exception();
      cancel = true;
    }
    share.join();
    if (!failure) failure = share.error();
  }
  const std::string status = failure ? status_of(failure) : std::string();
  MPI_Request req;
  MPI_Isend(status.data(), static_cast<int>(status.size()), MPI_BYTE, 0, kTagDone, MPI_COMM_WORLD, &req);
  wait_for(req, poll_abort);
  // The exit code; an abort that crossed our `done` is taken first (MPI keeps
  // the order of one sender's messages).
  for (int us = 50;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      nap(us);
      continue;
    }
    if (st.MPI_TAG == kTagAbort) {
      poll_abort();
      continue;
    }
    int code = 3;
    MPI_Recv(&code, 1, MPI_INT, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == kTagFinal) return code;
  }
}

int run_sharded(const SweepRequest& req, const AttachStore& attach, const FinishReport& finish) {
  const auto start = std::chrono::steady_clock::now();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // Setup. Rank 0 alone opens the store (attach: validation, the sweep row,
  // the hooks) and, with --resume, reads back every instance it holds, so
  // that the plan leaves them out. Every rank learns how setup went before
  // anything else happens: a bad store or request ends every rank at once.
  SweepRequest local = req;
  std::vector<SweepJob> jobs;
  std::vector<uint8_t> reused;         // 1: rank 0 read the job's result from the store
  std::vector<InstanceResult> stored;  // rank 0: those results
  std::exception_ptr failure;
  try {
    jobs = sweep_jobs(req);
    reused.assign(jobs.size(), 0);
    if (rank == 0 && attach) {
      attach(local);
      if (local.reuse) {
        stored.resize(jobs.size());
        for (size_t i = 0; i < jobs.size(); ++i) {
          const SweepJob& j = jobs[i];
          if (auto s = local.reuse(i, instance_header(req.targets[j.target], j.p, j.radix))) {
            stored[i] = std::move(*s);
            reused[i] = 1;
          }
        }
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  {
    const std::vector<std::string> parts = gather_to_root(failure ? status_of(failure) : std::string(), rank, size);
    int code = 0;
    if (rank == 0)
      for (int k = 0; k < size && !code; ++k)
        if (!parts[k].empty()) {
          if (k != 0) failure = failure_of(parts[k], k);
          code = failure ? exit_code_of(failure) : 3;
        }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code != 0) {
      if (rank == 0 && failure) std::rethrow_exception(failure);  // the command line prints it as the single process would
      return code;
    }
  }
  MPI_Bcast(reused.data(), static_cast<int>(reused.size()), MPI_BYTE, 0, MPI_COMM_WORLD);

  // Plan: the jobs not reused, LPT by cost; the same on every rank.
  constexpr uint32_t kReused = UINT32_MAX;
  std::vector<uint32_t> owner(jobs.size(), kReused);
  {
    std::vector<size_t> todo;
    for (size_t i = 0; i < jobs.size(); ++i)
      if (!reused[i]) todo.push_back(i);
    std::vector<double> cost(todo.size());
    for (size_t k = 0; k < todo.size(); ++k)
      cost[k] = job_cost(req.targets[jobs[todo[k]].target], jobs[todo[k]], req.check);
    const std::vector<uint32_t> part = partition_by_cost(cost, static_cast<uint32_t>(size));
    for (size_t k = 0; k < todo.size(); ++k) owner[todo[k]] = part[k];
    if (rank == 0 && req.progress) {  // the plan, on stderr (not with -q)
      std::vector<uint64_t> count(size, 0);
      for (uint32_t o : part) ++count[o];
      const std::vector<double> load = part_loads(cost, part, static_cast<uint32_t>(size));
      double total = 0, most = 0;
      for (double l : load) total += l, most = std::max(most, l);
      std::string counts;
      for (uint64_t c : count) {
        if (!counts.empty()) counts += '/';
        counts += std::to_string(c);
      }
      std::string reused_note;
      if (const size_t from_store = jobs.size() - todo.size())
        reused_note = ", " + std::to_string(from_store) + " reused from the store";
      std::fprintf(stderr, "collcheck: sharded over %d MPI ranks: %s instances, estimated work max/mean %.3f%s\n", size,
                   counts.c_str(), total > 0 ? most / (total / size) : 1.0, reused_note.c_str());
    }
  }
  local.run_here = [&owner, rank](size_t i) { return owner[i] == static_cast<uint32_t>(rank); };
  local.progress = req.progress && rank == 0;  // rank 0's share stands for the whole
  if (rank != 0) return run_share_and_send(std::move(local));

  // Rank 0: checks its own share on a thread (recording each result through
  // the store's on_finished, as a single process does) while this thread
  // receives the other ranks' results, records each batch as it arrives and
  // keeps it for the report. The first failure anywhere stops every share.
  std::atomic<bool> cancel{false};
  const auto record = local.on_finished;  // the store's hook, or empty
  local.reuse = [&cancel](size_t, const InstanceResult&) -> std::optional<InstanceResult> {
    if (cancel) throw Cancelled();
    return std::nullopt;
  };
  std::vector<std::exception_ptr> failures(size);
  std::vector<InstanceResult> remote(jobs.size());
  std::vector<uint8_t> arrived(jobs.size(), 0);
  size_t filled = 0;
  bool record_failed = false;
  {
    Share share(local);
    std::vector<bool> done(size, false);
    int open = size - 1;
    bool share_seen = false, aborted = false;
    static const char abort_byte = 1;
    std::vector<MPI_Request> aborts;
    try {
      for (int us = 20; open > 0 || !share_seen;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
          us = 20;
          const int k = st.MPI_SOURCE;
          int count = 0;
          MPI_Get_count(&st, MPI_BYTE, &count);
          std::string buf(static_cast<size_t>(std::max(count, 0)), '\0');
          MPI_Recv(buf.data(), count, MPI_BYTE, k, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (st.MPI_TAG == kTagDone) {
            done[k] = true;
            --open;
            if (!failures[k]) failures[k] = failure_of(buf, k);
          } else if (st.MPI_TAG == kTagBatch) {
            try {
              for (auto& [index, result] : decode_results(buf)) {
                if (index >= jobs.size() || owner[index] != static_cast<uint32_t>(k) || arrived[index])
                  throw std::runtime_error("sent instance " + std::to_string(index) +
                                           ", which is not its own or came twice");
                if (record && !record_failed) {
                  try {
                    record(index, result);
                  } catch (...) {
                    record_failed = true;
                    if (!failures[0]) failures[0] = std::current_exception();
                  }
                }
                remote[index] = std::move(result);
                arrived[index] = 1;
                ++filled;
              }
            } catch (const std::exception& e) {
              if (!failures[k])
                failures[k] =
                    std::make_exception_ptr(std::runtime_error("MPI rank " + std::to_string(k) + ": " + e.what()));
            }
          }
        }
        if (!share_seen && share.finished()) {
          share_seen = true;
          if (!failures[0] && share.error() && !cancelled(share.error())) failures[0] = share.error();
        }
        if (!aborted && std::any_of(failures.begin(), failures.end(), [](const auto& e) { return bool(e); })) {
          aborted = true;
          cancel = true;
          for (int r = 1; r < size; ++r)
            if (!done[r]) {
              aborts.emplace_back();
              MPI_Isend(&abort_byte, 1, MPI_BYTE, r, kTagAbort, MPI_COMM_WORLD, &aborts.back());
            }
        }
        if (!flag) nap(us);
      }
    } catch (const std::exception& e) {
      // Receiving itself failed (out of memory for a message): the protocol
      // cannot go on, so end every rank rather than leave them waiting.
      cancel = true;
      std::fprintf(stderr, "collcheck: internal error: MPI rank 0, receiving results: %s\n",
                   escape_controls(e.what()).c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    share.join();
    for (MPI_Request& a : aborts) wait_for(a);  // every rank takes its abort before the final code

    int code = 0;
    for (const auto& e : failures)
      if (e && !failure) failure = e;
    if (!failure) {
      try {
        Report all = std::move(share.report());
        size_t expected = 0;
        for (size_t i = 0; i < jobs.size(); ++i) {
          if (owner[i] == kReused)
            all.instances[i] = std::move(stored[i]);
          else if (owner[i] != 0) {
            ++expected;
            all.instances[i] = std::move(remote[i]);
          }
        }
        if (filled != expected)
          throw std::runtime_error("gathered " + std::to_string(filled) + " instance results, expected " +
                                   std::to_string(expected));
        for (size_t i = 0; i < jobs.size(); ++i)  // every slot holds its own job's result
          if (all.instances[i].p != jobs[i].p ||
              all.instances[i].algorithm != req.targets[jobs[i].target].algorithm->name)
            throw std::runtime_error(
                "instance " + std::to_string(i) + " (" +
                (owner[i] == kReused ? std::string("from the store") : "MPI rank " + std::to_string(owner[i])) +
                ") is not the result of its job");
        all.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        code = finish(std::move(all));
      } catch (...) {
        failure = std::current_exception();
      }
    }
    if (failure) code = exit_code_of(failure);
    for (int r = 1; r < size; ++r) MPI_Send(&code, 1, MPI_INT, r, kTagFinal, MPI_COMM_WORLD);
    if (failure) std::rethrow_exception(failure);  // the command line prints it as the single process would
    return code;
  }
}

// `body` on rank 0 only; every rank returns rank 0's exit code, and rank 0
// rethrows what `body` threw (the command line prints it once).
int run_on_root_only(const std::function<int()>& body) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  std::exception_ptr failure;
  if (rank == 0) {
    try {
      code = body();
    } catch (...) {
      failure = std::current_exception();
      code = exit_code_of(failure);
    }
  }
  code = broadcast_code(code);
  if (failure) std::rethrow_exception(failure);
  return code;
}

// Only rank 0 talks: the other ranks' stdout and stderr go to /dev/null.
void silence() {
  std::fflush(stdout);
  std::fflush(stderr);
  const int fd = ::open("/dev/null", O_WRONLY);
  if (fd < 0) return;
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  ::close(fd);
}

}  // namespace

int mpi_cli_main(int argc, char** argv, const MpiCommandLine& cli) {
  g_exit_code = cli.exit_code;
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "collcheck: error: MPI_Init_thread failed (launched by an MPI launcher?)\n");
    return 2;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank 0's reports go straight to mpirun's standard output where they can,
  // so that a failed write there is seen (exit 2) rather than dropped by
  // mpirun (schedules/formats/launcher_stdout.hpp).
  if (rank == 0) write_stdout_past_launcher();
  // Only the main thread calls MPI (the checking runs on TBB and one worker
  // thread): FUNNELED is all it needs, and less is refused.
  if (provided < MPI_THREAD_FUNNELED) {
    if (rank == 0)
      std::fprintf(stderr, "collcheck: error: the MPI library provides thread level %d, collcheck needs "
                           "MPI_THREAD_FUNNELED\n", provided);
    MPI_Finalize();
    return 2;
  }
  int code;
  if (size == 1) {
    code = cli.run(argc, argv, {});
  } else {
    if (rank != 0) silence();
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cli.sharded(cmd)) {
      code = cli.run(argc, argv, ShardedRunner{run_sharded, run_on_root_only});
    } else {
      // Every other subcommand (and --help, --version) runs on rank 0 alone:
      // one output, no racing --out files; the others exit with its code.
      code = run_on_root_only([&] { return cli.run(argc, argv, {}); });
    }
  }
  MPI_Finalize();
  return code;
}

}  // namespace collcheck
