// The results store end to end with the real binary (issue 6, item 3):
//  * a sweep recording into --db is killed with SIGKILL once some instances
//    are committed; `--resume` re-runs only what is missing, and its JSON
//    report equals an uninterrupted run's (apart from timing fields and the
//    command line); `report --db` renders the stored sweep byte-for-byte as
//    `verify` rendered it, in every format;
//  * kills during bursts of tiny instances, again and again, never corrupt
//    the store (integrity_check) and never lose a committed instance;
//  * bad input: a store from another tool version, a locked, read-only,
//    random, truncated or non-SQLite file, a p-range beyond 2^31: one line,
//    exit 2, and the file unchanged byte for byte.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "../support/run_binary.hpp"

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string fresh(const std::string& name) {
  std::string p = temp_path(name + ".sqlite");
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(p + s);
  return p;
}

std::string bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Starts the binary with `args` in the background (stdout to `out`); the
// returned pid is collcheck itself (sh execs it), so SIGKILL hits it.
pid_t spawn(const std::string& args, const std::string& out) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = "exec " + std::string(COLLCHECK_BINARY) + " " + args + " >" + out + " 2>/dev/null";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// One integer from the store (read-only; -1 if it cannot be read yet).
int64_t query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return v;
}

std::string integrity(const std::string& db) {
  sqlite3* h = nullptr;
  std::string res = "cannot open";
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      res = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return res;
}

int64_t rows(const std::string& db) { return query(db, "SELECT count(*) FROM instances"); }

// Drops timing fields: keys "seconds" and "*_seconds" (e.g. the stat
// traff-conditions' "tables_seconds"), at any depth.
void drop_timing(json& j) {
  if (j.is_array())
    for (auto& x : j) drop_timing(x);
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end();) {
    const std::string& k = it.key();
    if (k == "seconds" || (k.size() > 8 && k.compare(k.size() - 8, 8, "_seconds") == 0)) {
      it = j.erase(it);
    } else {
      drop_timing(it.value());
      ++it;
    }
  }
}

// The report without what differs between two runs of the same sweep: the
// timing fields and the command line.
json comparable(const std::string& text) {
  json j = json::parse(text);
  j.erase("command");
  drop_timing(j);
  return j;
}

// Kills `pid` with SIGKILL once the store has more than `after` rows; returns
// the rows then, or -1 if the process had already exited by itself.
int64_t kill_when_rows_exceed(pid_t pid, const std::string& db, int64_t after, std::mt19937& rng) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return -1;
    if (rows(db) > after) {
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));  // somewhere inside the burst
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      EXPECT_TRUE(WIFSIGNALED(status) || WIFEXITED(status));
      return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? rows(db) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ADD_FAILURE() << "no row was committed within 20 s";
  return -1;
}

// Every p of Swing's variants (paper-odd, paper-listing1: the p they allow): ~2 s.
const std::string kSweep = "verify --algo swing --variant all --skip-restricted --p 2..120 --threads 2 -q";

TEST(ResultsStore, KilledSweepResumesToTheUninterruptedReport) {
  const Outcome plain = run(kSweep + " --format json");
  ASSERT_TRUE(plain.code == 0 || plain.code == 1) << plain.err;
  const size_t total = json::parse(plain.out)["instances"].size();
  ASSERT_GT(total, 200u);

  const std::string db = fresh("kill");
  std::mt19937 rng(11);
  const pid_t pid = spawn(kSweep + " --format json --db " + db, temp_path("kill.out"));
  const int64_t kept = kill_when_rows_exceed(pid, db, 20, rng);
  ASSERT_GT(kept, 20) << "the sweep finished before it could be killed; make it longer";
  ASSERT_LT(kept, static_cast<int64_t>(total)) << "killed after the last instance: nothing to resume";
  EXPECT_EQ(integrity(db), "ok");
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps WHERE finished IS NULL"), 1);

  const Outcome resumed = run(kSweep + " --format json --db " + db + " --resume");
  EXPECT_EQ(resumed.code, plain.code) << resumed.err;
  EXPECT_EQ(comparable(resumed.out), comparable(plain.out));
  // The resumed run checked only what the killed one had not committed, and
  // left the committed rows as they were.
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 1"), kept);
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 2"), static_cast<int64_t>(total) - kept);

  // The stored sweep renders as verify rendered it.
  const Outcome stored = run("report --db " + db + " --format json");
  EXPECT_EQ(stored.code, plain.code) << stored.err;
  EXPECT_EQ(stored.out, resumed.out);
  // The killed sweep is still there, marked as interrupted, with what it kept.
  const Outcome first = run("report --db " + db + " --sweep 1 --format json");
  json fj = json::parse(first.out);
  EXPECT_EQ(fj["instances"].size(), static_cast<size_t>(kept));
  EXPECT_NE(fj["notes"].dump().find("did not finish"), std::string::npos);
  bool first_violated = false;
  for (const auto& inst : fj["instances"]) first_violated |= inst["status"] == "violated";
  EXPECT_EQ(first.code, first_violated ? 1 : 3);  // an unfinished sweep never reports "all hold"

  // Every format: a fully recorded sweep resumed again (nothing runs) and the
  // report of that stored sweep are the same bytes.
  for (const char* f : {"text", "markdown", "junit", "html", "json"}) {
    const Outcome again = run(kSweep + " --format " + f + " --db " + db + " --resume -v");
    const Outcome rep = run(std::string("report --db ") + db + " --format " + f + " -v");
    EXPECT_EQ(again.code, plain.code) << f << again.err;
    EXPECT_EQ(rep.code, plain.code) << f << rep.err;
    EXPECT_EQ(rep.out, again.out) << f;
    EXPECT_GT(rep.out.size(), 200u) << f;
  }
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances"), static_cast<int64_t>(total));
  // The fully resumed runs (sweeps 3 and later) reused everything: no
  // instance was re-checked and re-recorded by them.
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id > 2"), 0);
  const Outcome algo = run("report --db " + db + " --format json --algo swing --variant latency");
  EXPECT_EQ(algo.code, 0) << algo.err;
  EXPECT_EQ(json::parse(algo.out)["instances"].size(), 119u);  // latency has no restriction: p = 2..120
}

TEST(ResultsStore, KillsDuringWriteBurstsNeverCorruptOrLoseCommittedRows) {
  const std::string sweep = "verify --algo all --p 1..32 --threads 2 -q --format json";
  const Outcome plain = run(sweep);
  ASSERT_TRUE(plain.code == 0 || plain.code == 1) << plain.err;
  const std::string db = fresh("burst");
  std::mt19937 rng(5);
  int64_t before = 0;
  int kills = 0;
  for (int round = 0; round < 6 && kills < 4; ++round) {
    const pid_t pid = spawn(sweep + " --db " + db + " --resume", temp_path("burst.out"));
    const int64_t now = kill_when_rows_exceed(pid, db, before + 3, rng);
    if (now < 0) break;  // it finished by itself
    ++kills;
    EXPECT_EQ(integrity(db), "ok") << "after kill " << kills;
    EXPECT_GE(now, before + 4) << "a committed instance was lost";
    before = now;
  }
  EXPECT_GE(kills, 2);
  RecordProperty("kills", kills);
  const Outcome resumed = run(sweep + " --db " + db + " --resume");
  EXPECT_EQ(resumed.code, plain.code) << resumed.err;
  EXPECT_EQ(comparable(resumed.out), comparable(plain.out));
  EXPECT_EQ(integrity(db), "ok");
}

// ---- bad input -------------------------------------------------------------

// A small finished store to spoil in various ways.
std::string small_store(const std::string& name) {
  const std::string db = fresh(name);
  const Outcome o = run("verify --algo ring --p 1..6 -q --format json --db " + db);
  EXPECT_EQ(o.code, 0) << o.err;
  return db;
}

void expect_refused(const std::string& args, const std::string& db, const std::string& what) {
  const std::string before = bytes(db);
  const Outcome o = run(args);
  EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_EQ(o.err.rfind("collcheck: error: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find(what), std::string::npos) << o.err;
  EXPECT_TRUE(bytes(db) == before) << args << ": the file changed";
}

const std::string kSmall = "verify --algo ring --p 1..6 -q --format json";

TEST(ResultsStoreBadInput, AnotherToolVersion) {
  const std::string db = small_store("version");
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "UPDATE meta SET value = '0.0.1-old' WHERE key = 'tool_version'", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(h);
  }
  expect_refused(kSmall + " --db " + db, db, "written by collcheck 0.0.1-old");
  expect_refused(kSmall + " --db " + db + " --resume", db, "written by collcheck 0.0.1-old");
  expect_refused("report --db " + db, db, "written by collcheck 0.0.1-old");
}

TEST(ResultsStoreBadInput, LockedStoreFailsAfterAShortWait) {
  const std::string db = small_store("locked");
  const std::string before = bytes(db);
  for (const char* lock : {"PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE meta SET value = value WHERE key = 'created';",
                           "BEGIN IMMEDIATE;"}) {
    SCOPED_TRACE(lock);
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, lock, nullptr, nullptr, nullptr), SQLITE_OK);
    // No reading of the file here: closing any descriptor of it would drop
    // this process's POSIX locks (the holder's).
    auto t0 = std::chrono::steady_clock::now();
    const Outcome o = run(kSmall + " --db " + db);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(lines(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find("collcheck: error: results store '" + db + "' is locked by another process"), std::string::npos)
        << o.err;
    sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(h);
    EXPECT_TRUE(bytes(db) == before) << "the file changed";
  }
  EXPECT_TRUE(bytes(db) == before) << "the file changed";
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps"), 1);  // no sweep row from the refused runs
}

TEST(ResultsStoreBadInput, ReadOnlyStoreIsReportedNotWritten) {
  const std::string db = small_store("readonly");
  ASSERT_EQ(chmod(db.c_str(), 0444), 0);
  expect_refused(kSmall + " --db " + db, db, "read-only");
  const Outcome rep = run("report --db " + db + " --format json");  // reading it is fine
  EXPECT_EQ(rep.code, 0) << rep.err;
  EXPECT_EQ(json::parse(rep.out)["instances"].size(), 6u);
  chmod(db.c_str(), 0644);
}

TEST(ResultsStoreBadInput, CorruptTruncatedAndForeignFiles) {
  const std::string good = small_store("good");
  const std::string all = bytes(good);
  struct Case {
    std::string name, content, what;
  };
  std::mt19937_64 rng(3);
  std::string random(16384, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  std::string flipped = all;
  for (size_t i = 4096; i < 4112 && i < flipped.size(); ++i) flipped[i] = static_cast<char>(0x5A);
  const std::vector<Case> cases = {
      {"random", random, "not a SQLite database"},
      {"text", "{\"instances\": []}\n" + std::string(300, 'x'), "not a SQLite database"},
      {"half", all.substr(0, all.size() / 2), "results store"},
      {"minus1", all.substr(0, all.size() - 1), "truncated"},
      {"header", all.substr(0, 60), "results store"},
      {"flipped", flipped, "corrupt"},
  };
  for (const Case& c : cases) {
    const std::string db = fresh("bad_" + c.name);
    std::ofstream(db, std::ios::binary) << c.content;
    expect_refused(kSmall + " --db " + db, db, c.what);
    expect_refused(kSmall + " --db " + db + " --resume", db, c.what);
    expect_refused("report --db " + db, db, c.what);
  }
  const std::string foreign = fresh("foreign");
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &h), SQLITE_OK);
    sqlite3_exec(h, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  expect_refused(kSmall + " --db " + foreign, foreign, "not a collcheck results store");
  expect_refused("report --db " + foreign, foreign, "not a collcheck results store");
}

TEST(ResultsStoreBadInput, PRangeBeyond2To31) {
  const std::string db = small_store("prange");
  for (const char* p : {"2^31", "2147483648", "2147483649", "1..2^32", "4294967296", "2^64", "2^100",
                        "99999999999999999999", "1,3,2^40", "2^31..2^33:pow2"})
    expect_refused(std::string("verify --algo ring -q --db ") + db + " --p " + p, db, "exceeds the maximum p = 2^24");
}

TEST(ResultsStoreBadInput, ResumeNeedsADatabaseAndReportNeedsAStore) {
  const Outcome o = run(kSmall + " --resume");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--resume needs --db"), std::string::npos) << o.err;
  const std::string missing = fresh("missing");
  const Outcome r = run("report --db " + missing);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_FALSE(fs::exists(missing));
  const std::string db = small_store("sweepid");
  expect_refused("report --db " + db + " --sweep 7", db, "has no sweep 7");
  expect_refused("report --db " + db + " --algo swing", db, "no instance with --algo 'swing'");
  // A request that is bad input writes no sweep row.
  expect_refused("verify --algo swing --variant paper-odd --p 1..4 -q --db " + db, db, "outside its restriction");
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps"), 1);
}

}  // namespace
}  // namespace collcheck::test
