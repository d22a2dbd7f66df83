// The results store under mpirun (checker/sweep/mpi_shard.hpp, docs/results-store.md):
//  * `mpirun -np K collcheck verify ... --db F` (K = 2, 4) leaves F with the
//    same rows as the single-process `verify --db` of the same sweep (every
//    instance, verdict, counterexample, statistic, sweep row and job order;
//    only ids, timestamps and timing fields differ), and `report --db F`
//    renders the same report;
//  * --resume under mpirun: a store holding part of the sweep (a single
//    process's sub-range, a single process SIGKILLed mid-way) completes to the
//    uninterrupted report, re-checking only what is missing;
//  * rank 0 records the other ranks' results as they arrive: while rank 0 is
//    still busy with its one large instance, rank 1's small ones are already
//    committed, and SIGKILLing the ranks then loses only the instance in
//    flight;
//  * bad input with --db under mpirun (a store from another tool version, a
//    bad request, --resume without --db) is exit 2 with one line, the store
//    unchanged, and every rank exits;
//  * the other subcommands under mpirun run on rank 0 only (an --out file is
//    written once), and every rank exits with rank 0's code.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/mpi_env.hpp"
#include "tests/support/run_binary.hpp"
#include "tests/support/report_json.hpp"
#include "tests/support/store_query.hpp"

namespace {

using collcheck::test::Outcome;
using collcheck::test::read_file;
using collcheck::test::run_command;
using collcheck::test::temp_path;
using collcheck::test::comparable;
using collcheck::test::drop_timing;
using collcheck::test::integrity;
using collcheck::test::query;
using collcheck::test::table;

namespace fs = std::filesystem;
using nlohmann::json;

std::string fresh(const std::string& name) {
  const std::string p = temp_path(name + ".sqlite");
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(p + s);
  return p;
}

std::string mpirun(int np) {
  return std::string(COLLCHECK_MPIEXEC) + " -np " + std::to_string(np) + " ";
}

Outcome single(const std::string& args) { return run_command(std::string(COLLCHECK_BINARY) + " " + args); }
Outcome sharded(int np, const std::string& args) { return run_command(mpirun(np) + COLLCHECK_BINARY + " " + args); }

// The first "collcheck: error: ..." line (mpirun adds its own lines on a non-zero exit).
std::string error_line(const std::string& err) {
  const size_t at = err.find("collcheck: error: ");
  return at == std::string::npos ? std::string() : err.substr(at, err.find('\n', at) - at);
}

size_t error_lines(const std::string& err) {
  size_t n = 0;
  for (size_t at = err.find("collcheck: error: "); at != std::string::npos; at = err.find("collcheck: error: ", at + 1))
    ++n;
  return n;
}

// Everything a store says about its sweeps and instances, without ids,
// timestamps, timing fields and command lines.
std::vector<std::vector<std::string>> store_contents(const std::string& db) {
  std::vector<std::vector<std::string>> all;
  auto add = [&](const std::string& what, const std::string& sql) {
    all.push_back({"-- " + what});
    for (auto& r : table(db, sql)) all.push_back(std::move(r));
  };
  add("meta", "SELECT key, value FROM meta WHERE key <> 'created' ORDER BY key");
  add("sweeps",
      "SELECT tool_version, config, mode, seed, threads, planned, finished IS NOT NULL, notes FROM sweeps ORDER BY id");
  add("instances",
      "SELECT algorithm, variant, p, params, config, collective, status, skip_reason, mode, stats, tool_version"
      " FROM instances ORDER BY algorithm, variant, p, params, config, sweep_id");
  add("verdicts",
      "SELECT i.algorithm, i.variant, i.p, i.params, v.ord, v.property, v.status, v.checks, v.violations, v.mode,"
      " v.stats, v.cx_p, v.cx_rank, v.cx_step, v.cx_block, v.cx_peer, v.cx_expected, v.cx_actual, v.cx_message"
      " FROM verdicts v JOIN instances i ON i.id = v.instance_id ORDER BY 1, 2, 3, 4, 5");
  add("sweep_instances",
      "SELECT s.sweep_id, s.ord, i.algorithm, i.variant, i.p, i.params FROM sweep_instances s"
      " JOIN instances i ON i.id = s.instance_id ORDER BY s.sweep_id, s.ord");
  return all;
}

std::string dump(const std::vector<std::vector<std::string>>& rows) {
  std::string s;
  for (const auto& r : rows) {
    for (const auto& c : r) s += c + " | ";
    s += "\n";
  }
  return s;
}

// Every algorithm but the torus, p = 1..20: violations (Swing's literal rules
// are not in --algo all's default variants, but Träff's tables carry timing
// statistics and TRA several radices) and a mix of instance sizes.
const std::string kSweep = "verify --algo all --p 1..20 -q";
// Swing's variants, with violations and counterexamples (exit 1).
const std::string kSwing = "verify --algo swing --variant all --skip-restricted --p 1..40 -q";

TEST(ShardedStore, SameRowsAndReportAsSingleProcess) {
  for (const std::string& sweep : {kSweep, kSwing}) {
    SCOPED_TRACE(sweep);
    const std::string a = fresh("rows_a");
    const Outcome one = single(sweep + " --format json --db " + a);
    ASSERT_TRUE(one.code == 0 || one.code == 1) << one.err;
    const Outcome rep_a = single("report --db " + a + " --format json");
    EXPECT_EQ(rep_a.out, one.out);
    const auto want = store_contents(a);
    ASSERT_GT(want.size(), 100u);
    for (int np : {2, 4}) {
      const std::string b = fresh("rows_np" + std::to_string(np));
      const Outcome many = sharded(np, sweep + " --format json --db " + b);
      EXPECT_EQ(many.code, one.code) << "np " << np << "\n" << many.err;
      EXPECT_EQ(comparable(many.out), comparable(one.out)) << "np " << np;
      EXPECT_EQ(dump(store_contents(b)), dump(want)) << "np " << np;
      EXPECT_EQ(integrity(b), "ok");
      // report --db renders the sharded sweep as the sharded verify printed it,
      // and as the single process's store renders its own.
      const Outcome rep_b = single("report --db " + b + " --format json");
      EXPECT_EQ(rep_b.code, one.code) << rep_b.err;
      EXPECT_EQ(rep_b.out, many.out) << "np " << np;
      EXPECT_EQ(comparable(rep_b.out), comparable(rep_a.out)) << "np " << np;
      // and the text report too (the command line differs only in the path)
      EXPECT_EQ(single("report --db " + b + " -v").code, one.code);
    }
  }
}

TEST(ShardedStore, ResumeASubRangeUnderMpirun) {
  const Outcome plain = single(kSwing + " --format json");
  ASSERT_EQ(plain.code, 1) << plain.err;
  const size_t total = json::parse(plain.out)["instances"].size();
  const std::string db = fresh("subrange");
  // The single process records p = 1..12 (a sub-range of the sweep)...
  const Outcome part = single("verify --algo swing --variant all --skip-restricted --p 1..12 -q --db " + db);
  ASSERT_EQ(part.code, 1) << part.err;
  const int64_t kept = query(db, "SELECT count(*) FROM instances", false);
  ASSERT_GT(kept, 20);
  ASSERT_LT(kept, static_cast<int64_t>(total));
  // ...and mpirun -np 2 resumes the whole sweep: only what is missing is checked.
  const Outcome resumed = sharded(2, kSwing + " --format json --db " + db + " --resume");
  EXPECT_EQ(resumed.code, plain.code) << resumed.err;
  EXPECT_EQ(comparable(resumed.out), comparable(plain.out));
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 1", false), kept);
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 2", false), static_cast<int64_t>(total) - kept);
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweep_instances WHERE sweep_id = 2", false), static_cast<int64_t>(total));
  const Outcome rep = single("report --db " + db + " --format json");
  EXPECT_EQ(rep.out, resumed.out);
  // A second resume under mpirun -np 4 reuses everything and checks nothing.
  const Outcome again = sharded(4, kSwing + " --format json --db " + db + " --resume");
  EXPECT_EQ(again.code, plain.code) << again.err;
  EXPECT_EQ(comparable(again.out), comparable(plain.out));
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances", false), static_cast<int64_t>(total));
}

// Starts `cmd` (a shell command line) in the background with stdout and
// stderr to files; returns the shell's pid (it execs the command).
pid_t spawn(const std::string& cmd, const std::string& out) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string line = "exec " + cmd + " >" + out + " 2>" + out + ".err";
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

bool exited(pid_t pid, int* status) { return waitpid(pid, status, WNOHANG) == pid; }

TEST(ShardedStore, ResumeAKilledSingleProcessSweepUnderMpirun) {
  const std::string sweep = "verify --algo swing --variant all --skip-restricted --p 2..120 --threads 2 -q";
  const Outcome plain = single(sweep + " --format json");
  ASSERT_EQ(plain.code, 1) << plain.err;
  const size_t total = json::parse(plain.out)["instances"].size();
  const std::string db = fresh("killed");
  const pid_t pid = spawn(std::string(COLLCHECK_BINARY) + " " + sweep + " --db " + db, temp_path("killed.out"));
  int64_t kept = -1;
  int status = 0;
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30); std::chrono::steady_clock::now() < end;) {
    if (exited(pid, &status)) break;
    if (query(db, "SELECT count(*) FROM instances", true) > 20) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      kept = query(db, "SELECT count(*) FROM instances", false);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GT(kept, 20) << "the sweep finished before it could be killed";
  ASSERT_LT(kept, static_cast<int64_t>(total)) << "killed after the last instance";
  EXPECT_EQ(integrity(db), "ok");
  const Outcome resumed = sharded(2, sweep + " --format json --db " + db + " --resume");
  EXPECT_EQ(resumed.code, plain.code) << resumed.err;
  EXPECT_EQ(comparable(resumed.out), comparable(plain.out));
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 1", false), kept);
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 2", false), static_cast<int64_t>(total) - kept);
  EXPECT_EQ(single("report --db " + db + " --format json").out, resumed.out);
}

// The pids of the processes whose parent is `parent` (mpirun's ranks).
std::vector<pid_t> children(pid_t parent) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream f("/proc/" + std::string(e->d_name) + "/stat");
    std::string line;
    std::getline(f, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(pid);
  }
  closedir(d);
  return out;
}

TEST(ShardedStore, RankZeroRecordsResultsAsTheyArrive) {
  // The ranks are mpirun's children under Open MPI; Hydra starts them under
  // its proxy, which this test does not follow.
  if (!COLLCHECK_MPI_IS_OPENMPI) GTEST_SKIP() << "kills mpirun's child processes: Open MPI's process layout";
  // One large instance (p = 5001, a few seconds: fingerprint mode, so
  // enumerated; the quotients and the fold composition decide Swing in
  // milliseconds, and a fast machine must still leave a wide window) and 24
  // tiny ones. The plan gives
  // the largest job to rank 0 and, its load being larger than all the others
  // together, every tiny one to rank 1. Rank 1's results must be in the
  // store while rank 0 is still checking p = 5001: they are recorded as they
  // arrive, not when the sweep ends.
  const std::string sweep = "verify --algo swing --p 1..24,5001 --mode fingerprint --threads 1 -q";
  const std::string db = fresh("arrive");
  const pid_t pid = spawn(mpirun(2) + COLLCHECK_BINARY + " " + sweep + " --format json --db " + db,
                          temp_path("arrive.out"));
  bool seen = false;
  int status = 0;
  bool done = false;
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60); std::chrono::steady_clock::now() < end;) {
    if (exited(pid, &status)) {
      done = true;
      break;
    }
    if (query(db, "SELECT count(*) FROM instances WHERE p <= 24", true) == 24 &&
        query(db, "SELECT count(*) FROM instances WHERE p = 5001", true) == 0 &&
        query(db, "SELECT count(*) FROM sweeps WHERE finished IS NULL", true) == 1) {
      seen = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(seen) << "rank 1's instances were not recorded while rank 0 was busy (the sweep "
                    << (done ? "ended" : "did not end") << ")\n"
                    << read_file(temp_path("arrive.out.err"));
  // SIGKILL both ranks: only the instance in flight (p = 5001) is lost.
  const std::vector<pid_t> ranks = children(pid);
  EXPECT_EQ(ranks.size(), 2u);
  for (pid_t c : ranks) kill(c, SIGKILL);
  for (int i = 0; i < 2000 && !exited(pid, &status); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!WIFEXITED(status) && !WIFSIGNALED(status)) {  // mpirun did not notice within 20 s
    ADD_FAILURE() << "mpirun still running after its ranks were killed";
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  EXPECT_EQ(integrity(db), "ok");
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances", false), 24);
  // Resumed under mpirun, only p = 5000 is checked; the report is the uninterrupted one.
  const Outcome plain = single(sweep + " --format json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  const Outcome resumed = sharded(2, sweep + " --format json --db " + db + " --resume");
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(comparable(resumed.out), comparable(plain.out));
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 2", false), 1);
}

TEST(ShardedStore, AnotherVersionsStoreIsRefusedByEveryRank) {
  const std::string db = fresh("version");
  ASSERT_EQ(single("verify --algo ring --p 1..6 -q --db " + db).code, 0);
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "UPDATE meta SET value = '0.0.1-old' WHERE key = 'tool_version'", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(h);
  }
  const std::string before = read_file(db);
  for (int np : {2, 4})
    for (const char* resume : {"", " --resume"}) {
      const auto t0 = std::chrono::steady_clock::now();
      const Outcome o = sharded(np, std::string("verify --algo ring --p 1..6 -q --db ") + db + resume);
      EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));  // nobody hangs
      EXPECT_EQ(o.code, 2) << o.err;
      EXPECT_EQ(error_lines(o.err), 1u) << o.err;
      EXPECT_NE(o.err.find("collcheck: error: results store '" + db + "' was written by collcheck 0.0.1-old"),
                std::string::npos)
          << o.err;
      EXPECT_TRUE(o.out.empty()) << o.out;
      EXPECT_TRUE(read_file(db) == before) << "np " << np << resume << ": the store changed";
    }
}

TEST(ShardedStore, BadRequestsWriteNothing) {
  const std::string db = fresh("badreq");
  ASSERT_EQ(single("verify --algo ring --p 1..6 -q --db " + db).code, 0);
  const std::string before = read_file(db);
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"verify --algo swing --variant paper-odd --p 1..4 -q --db " + db, "is outside its restriction"},
           {"verify --algo swing --p 1..4 --properties nope -q --db " + db, "unknown property 'nope'"},
           {"verify --algo nope --p 1..4 -q --db " + db, "unknown algorithm 'nope'"},
           {"verify --algo ring --p 1..4 -q --resume", "--resume needs --db"},
       }) {
    const Outcome one = single(c.args);
    EXPECT_EQ(one.code, 2) << c.args;
    const Outcome many = sharded(2, c.args);
    EXPECT_EQ(many.code, 2) << c.args << "\n" << many.err;
    EXPECT_EQ(error_lines(many.err), 1u) << c.args << "\n" << many.err;
    EXPECT_NE(many.err.find(c.message), std::string::npos) << many.err;
    EXPECT_EQ(error_line(many.err), error_line(one.err)) << c.args;
    EXPECT_TRUE(read_file(db) == before) << c.args << ": the store changed";
  }
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps", false), 1);
  // A missing directory: nothing is created.
  const Outcome nodir = sharded(2, "verify --algo ring --p 1..4 -q --db /nonexistent/dir/x.sqlite");
  EXPECT_EQ(nodir.code, 2) << nodir.err;
  EXPECT_EQ(error_lines(nodir.err), 1u) << nodir.err;
}

// ---- the other subcommands under mpirun ------------------------------------

// Runs `args` under mpirun -np `np` with `--out` (or `--smt2-dir`) pointing
// into a FIFO that this process drains: the bytes written there by all
// ranks together.
struct FifoRun {
  Outcome outcome;
  std::string written;
};
FifoRun run_into_fifo(int np, const std::string& args_before_out) {
  const std::string fifo = temp_path("fifo_" + std::to_string(np));
  fs::remove(fifo);
  EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Held open read-write: writers never block on open, readers never see EOF.
  const int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  EXPECT_GE(fd, 0);
  std::atomic<bool> stop{false};
  std::string written;
  std::thread reader([&] {
    char buf[65536];
    while (true) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        written.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (stop) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  FifoRun r;
  r.outcome = np > 0 ? sharded(np, args_before_out + " --out " + fifo) : single(args_before_out + " --out " + fifo);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  reader.join();
  ::close(fd);
  fs::remove(fifo);
  r.written = written;
  return r;
}

TEST(ShardedSubcommands, OutputFilesAreWrittenOnceByRankZero) {
  for (const std::string& args : {std::string("dump --algo swing --p 8 --format json"),
                                  std::string("run --algo ring --p 4 --format json"),
                                  std::string("analyze --algo tra --p 64 --format json"),
                                  std::string("verify --estimate --algo ring --p 1..64 --calibrate-seconds 0.05 "
                                              "--format json")}) {
    SCOPED_TRACE(args);
    // analyze exits 1 when a judged statement of the paper differs (tra: Sec.
    // III-B's K = P at r = P, measured P - 1), whatever the process count.
    const int want = args.starts_with("analyze --algo tra") ? 1 : 0;
    const FifoRun one = run_into_fifo(0, args);
    ASSERT_EQ(one.outcome.code, want) << one.outcome.err;
    ASSERT_FALSE(one.written.empty());
    for (int np : {2, 3}) {
      const FifoRun many = run_into_fifo(np, args);
      EXPECT_EQ(many.outcome.code, want) << "np " << np << "\n" << many.outcome.err;
      // One report, about as long as the single process's (it may hold timings).
      EXPECT_LT(many.written.size(), one.written.size() * 3 / 2)
          << "np " << np << ": " << many.written.size() << " bytes written, one report has " << one.written.size();
      EXPECT_GT(many.written.size(), one.written.size() / 2) << "np " << np;
      EXPECT_TRUE(json::accept(many.written)) << "np " << np << ": not one JSON document";
    }
  }
  // The same bytes where nothing depends on time.
  const FifoRun one = run_into_fifo(0, "dump --algo swing --p 8 --format json");
  const FifoRun many = run_into_fifo(4, "dump --algo swing --p 8 --format json");
  EXPECT_EQ(many.written, one.written);
}

TEST(ShardedSubcommands, EveryRankExitsWithRankZerosCode) {
  const std::string db = fresh("subcmd");
  ASSERT_EQ(single("verify --algo swing --variant paper-listing1 --p 2..8:2 -q --db " + db).code, 1);
  struct Case {
    std::string args;
    int code;
    bool same_output;  // false: the output holds timings
  };
  for (const Case& c : std::vector<Case>{
           {"list", 0, true},
           {"--version", 0, true},
           {"dump --algo swing --p 8", 0, true},
           {"report --db " + db + " --format json", 1, true},
           {"report --db " + db + " --list", 0, false},
           {"run --algo swing --variant paper-listing1 --p 6", 1, false},
           {"prove --list", 0, true},
           {"dump --algo swing --p 0", 2, true},
           {"report --db " + db + " --sweep 9", 2, true},
           {"no-such-command", 2, true},
           {"verify --estimate --algo nope --p 4", 2, true},
       }) {
    SCOPED_TRACE(c.args);
    const Outcome one = single(c.args);
    EXPECT_EQ(one.code, c.code) << one.err;
    for (int np : {2, 4}) {
      const Outcome many = sharded(np, c.args);
      EXPECT_EQ(many.code, one.code) << "np " << np << "\n" << many.err;
      if (c.same_output) {
        EXPECT_EQ(many.out, one.out) << "np " << np;
      }
      EXPECT_EQ(error_lines(many.err), error_lines(one.err)) << "np " << np << "\n" << many.err;
      EXPECT_EQ(error_line(many.err), error_line(one.err)) << "np " << np;
    }
  }
}

}  // namespace
