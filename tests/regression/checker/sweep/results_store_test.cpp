// The results store end to end with the real binary:
//  * a sweep recording into --db is killed with SIGKILL once some instances
//    are committed; `--resume` re-runs only what is missing, and its JSON
//    report equals an uninterrupted run's (apart from timing fields and the
//    command line); `report --db` renders the stored sweep byte-for-byte as
//    `verify` rendered it, in every format;
//  * kills during bursts of tiny instances, again and again, never corrupt
//    the store (integrity_check) and never lose a committed instance;
//  * every sweep keeps the rows it recorded (a later sweep without --resume
//    records its own), `report --list` counts every planned instance
//    (--dims lists, --radix all), a schema-1 store is migrated;
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

#include "tests/support/run_binary.hpp"
#include "tests/support/report_json.hpp"
#include "tests/support/store_query.hpp"

namespace collcheck::test {
namespace {

using test::comparable;
using test::drop_timing;
using test::integrity;
using test::query;
using test::table;

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

int64_t rows(const std::string& db) { return query(db, "SELECT count(*) FROM instances"); }

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

// ---- what a sweep records -------------------------------------------------

// A report without its command line and the sweep's own duration: what a
// resumed sweep that reused every instance shares with the sweep it reused.
json reused_view(const std::string& text) {
  json j = json::parse(text);
  j.erase("command");
  j.erase("seconds");
  return j;
}

// Task: `report --list` counted one planned instance per p, but a --dims list
// with two shapes of one p (4x4x4 and 8x8) has two instances of that p.
TEST(ResultsStore, ListCountsEveryInstanceOfADimsList) {
  const std::string db = fresh("dims");
  const std::string sweep = "verify --algo trivance-torus --variant all --dims 3x3,9x9,4x4x4,8x8 -q --format json";
  const Outcome o = run(sweep + " --db " + db);
  ASSERT_EQ(o.code, 0) << o.err;
  const size_t n = json::parse(o.out)["instances"].size();
  EXPECT_EQ(n, 8u);  // 2 variants x 4 shapes
  EXPECT_EQ(query(db, "SELECT planned FROM sweeps WHERE id = 1"), 8);
  const Outcome list = run("report --db " + db + " --list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find(", 8/8 instances;"), std::string::npos) << list.out;
  // The brief's own example, and --radix all (p - 1 instances per p), too.
  const std::string db2 = fresh("dims2");
  ASSERT_EQ(run("verify --algo trivance-torus --dims 3x3,9x9 -q --db " + db2).code, 0);
  EXPECT_NE(run("report --db " + db2 + " --list").out.find(", 2/2 instances;"), std::string::npos);
  const std::string db3 = fresh("radices");
  ASSERT_EQ(run("verify --algo tra --p 1..6 --radix all --properties alltoall-delivery -q --db " + db3).code, 0);
  EXPECT_NE(run("report --db " + db3 + " --list").out.find(", 16/16 instances;"), std::string::npos);
}

// `report --list` printed to standard output whatever --out said (and exited
// 0 with --out /dev/full); it is written to --out as a report is.
TEST(ResultsStore, ListIsWrittenToOut) {
  const std::string db = fresh("list_out");
  ASSERT_EQ(run("verify --algo ring --p 1..3 -q --db " + db).code, 0);
  const std::string out = temp_path("list_out.txt");
  fs::remove(out);
  const Outcome list = run("report --db " + db + " --list --out " + out);
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, "");
  EXPECT_EQ(bytes(out), run("report --db " + db + " --list").out);
  EXPECT_NE(bytes(out).find("sweep 1: started "), std::string::npos) << bytes(out);
  const Outcome full = run("report --db " + db + " --list --out /dev/full");
  EXPECT_EQ(full.code, 2);
  EXPECT_EQ(full.err, "collcheck: error: cannot write '/dev/full': no space left on device\n");
}

// Task: a sweep without --resume on a store that already holds a sweep of the
// same instances used to overwrite the instance rows the older sweep lists,
// so the older sweep's report changed (its timings, and which sweep checked
// its instances). Each sweep keeps what it found; --resume reuses the latest.
TEST(ResultsStore, RerunWithoutResumeKeepsEachSweepsOwnResults) {
  const std::string db = fresh("rerun");
  const std::string sweep = "verify --algo swing --variant all --skip-restricted --p 2..24 -q --format json";
  const Outcome first = run(sweep + " --db " + db);
  ASSERT_EQ(first.code, 1) << first.err;
  const int64_t n = query(db, "SELECT count(*) FROM instances");
  ASSERT_GT(n, 50);
  const Outcome first_report = run("report --db " + db + " --sweep 1 --format json -v");
  const Outcome first_text = run("report --db " + db + " --sweep 1 -v");
  const auto first_rows = table(db,
      "SELECT i.id, i.algorithm, i.variant, i.p, i.params, i.seconds, i.stats, i.sweep_id, i.recorded"
      " FROM sweep_instances s JOIN instances i ON i.id = s.instance_id WHERE s.sweep_id = 1 ORDER BY s.ord");
  ASSERT_EQ(first_rows.size(), static_cast<size_t>(n));

  const Outcome second = run(sweep + " --db " + db);  // no --resume: everything is checked again
  EXPECT_EQ(second.code, 1) << second.err;
  EXPECT_EQ(comparable(second.out), comparable(first.out));
  // Sweep 1 still lists exactly the rows it recorded, unchanged, and renders as before.
  EXPECT_EQ(table(db,
                  "SELECT i.id, i.algorithm, i.variant, i.p, i.params, i.seconds, i.stats, i.sweep_id, i.recorded"
                  " FROM sweep_instances s JOIN instances i ON i.id = s.instance_id WHERE s.sweep_id = 1"
                  " ORDER BY s.ord"),
            first_rows);
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 1"), n);
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances WHERE sweep_id = 2"), n);
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweep_instances s JOIN instances i ON i.id = s.instance_id"
                      " WHERE s.sweep_id = 2 AND i.sweep_id = 2"),
            n);
  EXPECT_EQ(run("report --db " + db + " --sweep 1 --format json -v").out, first_report.out);
  EXPECT_EQ(run("report --db " + db + " --sweep 1 -v").out, first_text.out);
  // The latest sweep renders what verify printed.
  EXPECT_EQ(run("report --db " + db + " --format json").out, second.out);

  // --resume reuses the latest result of each instance (sweep 2's) and records nothing.
  const Outcome third = run(sweep + " --db " + db + " --resume");
  EXPECT_EQ(third.code, 1) << third.err;
  EXPECT_EQ(reused_view(third.out), reused_view(second.out));  // the instances' own timings included
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances"), 2 * n);
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweep_instances s JOIN instances i ON i.id = s.instance_id"
                      " WHERE s.sweep_id = 3 AND i.sweep_id = 2"),
            n);
  EXPECT_EQ(run("report --db " + db + " --sweep 1 --format json -v").out, first_report.out);
  EXPECT_EQ(integrity(db), "ok");
}

// The results view of schema versions 1 and 2 (no root causes).
constexpr const char* kViewWithoutRootCauses =
    "CREATE VIEW results AS SELECT i.algorithm, i.variant, i.p, i.params, v.property, v.status, v.checks,"
    " v.violations, v.mode, v.stats, v.cx_p, v.cx_rank, v.cx_step, v.cx_block, v.cx_peer, v.cx_expected,"
    " v.cx_actual, v.cx_message, i.config, i.tool_version, i.recorded, i.sweep_id"
    " FROM verdicts v JOIN instances i ON i.id = v.instance_id;";

// A store written before sweeps kept their own rows (one instances row per
// key and config) is read as it is and migrated in one transaction when a
// sweep is recorded into it; nothing is lost, and from then on every sweep
// keeps its own rows.
TEST(ResultsStore, StoreWithSharedInstanceRowsIsReadAndMigrated) {
  const std::string db = fresh("schema1");
  const std::string sweep = "verify --algo ring --p 1..6 -q --format json";
  const Outcome first = run(sweep + " --db " + db);
  ASSERT_EQ(first.code, 0) << first.err;
  const int64_t verdicts = query(db, "SELECT count(*) FROM verdicts");
  ASSERT_GT(verdicts, 6);
  // Rebuild the instances table as it was (UNIQUE without sweep_id).
  execute(db,
        "PRAGMA foreign_keys = OFF; BEGIN;"
        "PRAGMA user_version = 1; UPDATE meta SET value = '1' WHERE key = 'schema_version';"
        "DROP VIEW results; ALTER TABLE verdicts DROP COLUMN cx_root;"
        "CREATE TABLE old_instances("
        " id INTEGER PRIMARY KEY, algorithm TEXT NOT NULL, variant TEXT NOT NULL, p INTEGER NOT NULL,"
        " params TEXT NOT NULL, config TEXT NOT NULL, collective TEXT NOT NULL, status TEXT NOT NULL,"
        " skip_reason TEXT NOT NULL, mode TEXT NOT NULL, seconds REAL NOT NULL, stats TEXT NOT NULL,"
        " tool_version TEXT NOT NULL, sweep_id INTEGER NOT NULL REFERENCES sweeps(id), recorded TEXT NOT NULL,"
        " UNIQUE(algorithm, variant, p, params, config));"
        "INSERT INTO old_instances SELECT * FROM instances; DROP TABLE instances;"
        "ALTER TABLE old_instances RENAME TO instances;" +
          std::string(kViewWithoutRootCauses) + "COMMIT;");
  const std::string own_rows =
      "SELECT count(*) FROM sqlite_schema WHERE name = 'instances' AND sql LIKE '%params, config, sweep_id)%'";
  ASSERT_EQ(query(db, own_rows), 0);
  const std::string v1_bytes = bytes(db);
  const Outcome read = run("report --db " + db + " --format json");  // reading leaves it as it is
  EXPECT_EQ(read.code, 0) << read.err;
  EXPECT_EQ(read.out, first.out);
  EXPECT_TRUE(bytes(db) == v1_bytes);

  const Outcome second = run(sweep + " --db " + db);
  EXPECT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(query(db, own_rows), 1);
  EXPECT_EQ(query(db, "PRAGMA user_version"), 3);  // schema 1 -> 3 on the first write
  EXPECT_EQ(query(db, "SELECT value FROM meta WHERE key = 'schema_version'"), 3);
  EXPECT_EQ(query(db, "SELECT count(*) FROM pragma_table_info('verdicts') WHERE name = 'cx_root'"), 1);
  EXPECT_EQ(integrity(db), "ok");
  EXPECT_EQ(query(db, "PRAGMA foreign_key_check"), -1);  // no row: no dangling reference
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances"), 12);
  EXPECT_EQ(query(db, "SELECT count(*) FROM results"), 2 * verdicts);
  EXPECT_EQ(run("report --db " + db + " --sweep 1 --format json").out, first.out);
  EXPECT_EQ(run("report --db " + db + " --format json").out, second.out);
  const Outcome resumed = run(sweep + " --db " + db + " --resume");
  EXPECT_EQ(reused_view(resumed.out), reused_view(second.out));
  EXPECT_EQ(query(db, "SELECT count(*) FROM instances"), 12);
}

// Root causes round-trip (schema version 3), and a store written before
// them (schema version 2: no verdicts.cx_root) is read as it is, without root
// causes, and gets the column in one transaction on its first write.
TEST(ResultsStore, RootCausesRoundTripAndSchema2IsMigrated) {
  const std::string db = fresh("schema2");
  const std::string sweep = "verify --algo swing --variant paper-latency --p 3..6 -q --format json";
  const Outcome first = run(sweep + " --db " + db);
  ASSERT_EQ(first.code, 1) << first.err;
  ASSERT_NE(first.out.find("\"root_cause\": {"), std::string::npos) << "the sweep must have a root cause to store";
  EXPECT_EQ(run("report --db " + db + " --format json").out, first.out);  // stored and read back exactly
  EXPECT_GT(query(db, "SELECT count(*) FROM verdicts WHERE cx_root IS NOT NULL"), 0);
  // Back to schema 2: no root cause column.
  execute(db, "BEGIN; PRAGMA user_version = 2; UPDATE meta SET value = '2' WHERE key = 'schema_version';"
              "DROP VIEW results; ALTER TABLE verdicts DROP COLUMN cx_root;" +
                  std::string(kViewWithoutRootCauses) + "COMMIT;");
  const std::string v2_bytes = bytes(db);
  const Outcome read = run("report --db " + db + " --format json");  // reading leaves it as it is
  EXPECT_EQ(read.code, 1) << read.err;
  EXPECT_EQ(read.out.find("\"root_cause\": {"), std::string::npos) << "schema 2 has no root causes";
  EXPECT_TRUE(bytes(db) == v2_bytes);

  const Outcome second = run(sweep + " --db " + db);
  EXPECT_EQ(second.code, 1) << second.err;
  EXPECT_EQ(comparable(second.out), comparable(first.out));
  EXPECT_EQ(query(db, "PRAGMA user_version"), 3);
  EXPECT_EQ(query(db, "SELECT value FROM meta WHERE key = 'schema_version'"), 3);
  EXPECT_EQ(integrity(db), "ok");
  EXPECT_EQ(run("report --db " + db + " --format json").out, second.out);
  EXPECT_EQ(run("report --db " + db + " --sweep 1 --format json").out, read.out);
  EXPECT_GT(query(db, "SELECT count(*) FROM results WHERE cx_root IS NOT NULL"), 0);
}

// Two sweeps started at once on a new --db: both found the file empty and
// created the schema, and the second failed with "table meta already exists"
// (5 of 6 trials). Creation re-checks under the write lock; both sweeps are
// recorded. No timing is assumed: each trial starts both processes and waits.
// A second race: switching the new file to write-ahead logging takes its
// exclusive lock without SQLite's busy handler, so one sweep failed with
// "locked (gave up waiting)" at once in about one run of this test in six;
// the switch is now retried within the open's wait (enter_wal).
TEST(ResultsStore, TwoSweepsCreatingOneStoreAtOnce) {
  for (int trial = 0; trial < 6; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const std::string db = fresh("created_at_once");
    pid_t pids[2];
    std::string errs[2];
    for (int k = 0; k < 2; ++k) {
      errs[k] = temp_path("created_at_once_" + std::to_string(k) + ".err");
      pids[k] = fork();
      if (pids[k] == 0) {
        const std::string cmd = "exec " + std::string(COLLCHECK_BINARY) + " verify --algo ring --p 1..6 -q --db " + db +
                                " >/dev/null 2>" + errs[k];
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
    }
    for (int k = 0; k < 2; ++k) {
      int status = 0;
      ASSERT_EQ(waitpid(pids[k], &status, 0), pids[k]);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << bytes(errs[k]);
    }
    EXPECT_EQ(integrity(db), "ok");
    EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps"), 2);
    EXPECT_EQ(query(db, "SELECT count(*) FROM instances"), 12);
    const Outcome list = run("report --db " + db + " --list");
    EXPECT_EQ(list.code, 0) << list.err;
    EXPECT_EQ(lines(list.out), 2u) << list.out;
  }
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

// A small store spoiled by `sql` is refused by verify --resume, verify and
// report before anything is written: no WAL left, no sweep row added.
void expect_spoiled_store_refused(const std::string& name, const std::string& sql, const std::string& what) {
  SCOPED_TRACE(name);
  const std::string db = small_store(name);
  execute(db, sql);
  expect_refused(kSmall + " --db " + db + " --resume", db, what);
  expect_refused(kSmall + " --db " + db, db, what);
  expect_refused("report --db " + db, db, what);
  EXPECT_FALSE(fs::exists(db + "-wal"));  // before query(), whose read-only open leaves one
  EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps"), 1);  // no sweep row from the refused runs
}

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

// A store missing a table or column the code needs used to
// get a new sweeps row before the first record failed (exit 2 with the store
// changed); every table and column is now checked before anything is written.
TEST(ResultsStoreBadInput, DamagedSchemaIsRefusedBeforeAnyWrite) {
  struct Case {
    const char* name;
    const char* sql;
    const char* what;
  };
  const Case cases[] = {
      {"no_verdicts", "DROP TABLE verdicts", "is damaged: table 'verdicts' is missing"},
      {"no_sweep_instances", "DROP TABLE sweep_instances", "is damaged: table 'sweep_instances' is missing"},
      {"no_notes", "ALTER TABLE sweeps DROP COLUMN notes", "is damaged: table 'sweeps' has no column 'notes'"},
      {"extra", "ALTER TABLE instances ADD COLUMN extra TEXT", "table 'instances' has a column 'extra' this collcheck"},
      // Only versions 1 and 2 may lack the root causes (they get them on the first write).
      {"no_root_causes", "DROP VIEW results; ALTER TABLE verdicts DROP COLUMN cx_root",
       "is damaged: table 'verdicts' has no column 'cx_root'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string db = small_store(std::string("schema_") + c.name);
    execute(db, c.sql);
    expect_refused(kSmall + " --db " + db, db, c.what);
    expect_refused(kSmall + " --db " + db + " --resume", db, c.what);
    expect_refused("report --db " + db, db, c.what);
    EXPECT_EQ(query(db, "SELECT count(*) FROM sweeps"), 1);  // no sweep row from the refused runs
  }
}

// A corrupt row used to be found only when a sweep was read back: by
// `verify --resume` after its new sweep row was written (the store changed
// before exit 2). Every row is decoded when the store is opened.
TEST(ResultsStoreBadInput, CorruptRowsAreRefusedBeforeAnyWrite) {
  struct Case {
    const char* name;
    const char* sql;
    const char* what;
  };
  const Case cases[] = {
      {"instance_stats", "UPDATE instances SET stats = '{\"steps\": ' WHERE id = 3",
       "a stored statistics column is not valid JSON"},
      {"verdict_stats", "UPDATE verdicts SET stats = '[\"a\"]' WHERE instance_id = 4",
       "a stored statistics column is not valid JSON"},
      {"verdict_status", "UPDATE verdicts SET status = 'fine' WHERE instance_id = 5", "unknown status 'fine'"},
      {"instance_status", "UPDATE instances SET status = 'fine' WHERE id = 6", "unknown status 'fine'"},
      {"notes", "UPDATE sweeps SET notes = '[1, 2]'", "a stored notes column is not valid JSON"},
      {"deep_notes", "UPDATE sweeps SET notes = replace(hex(zeroblob(50000)), '00', '[')",
       "a stored notes column is not valid JSON (nested deeper than 32 arrays or objects)"},
      {"missing_instance", "DELETE FROM instances WHERE id = 2", "instance 2 is missing"},
  };
  for (const Case& c : cases) expect_spoiled_store_refused(std::string("row_") + c.name, c.sql, c.what);
}

// Tampering that PRAGMA integrity_check does not see: objects added to or
// dropped from the schema (a trigger that deletes what sweeps record, the
// view, an index) and rows outside the columns' domains (SQLite keeps any
// value in any column). Such stores were read (rendered "holds") and
// written; now they are refused when opened, before anything is written.
TEST(ResultsStoreBadInput, TamperedStoreIsRefusedBeforeAnyWrite) {
  struct Case {
    const char* name;
    std::string sql;
    std::string what;
  };
  const std::string verdict =
      "INSERT INTO verdicts(instance_id, ord, property, status, checks, violations, mode, stats)"
      " VALUES (99, 0, 'x', 'holds', 1, 0, 'exact', '{}')";
  const std::vector<Case> cases = {
      {"trigger", "CREATE TRIGGER forget AFTER INSERT ON verdicts BEGIN DELETE FROM verdicts; END",
       "is damaged: trigger 'forget' on 'verdicts' is not part of its schema"},
      {"trigger_named_with_a_newline",
       "CREATE TRIGGER \"x\nRESULT: holds\" AFTER INSERT ON verdicts BEGIN DELETE FROM verdicts; END",
       "is damaged: trigger 'x\\nRESULT: holds' on 'verdicts' is not part of its schema"},
      {"no_view", "DROP VIEW results", "is damaged: view 'results' is missing"},
      {"other_view", "DROP VIEW results; CREATE VIEW results AS SELECT 1",
       "is damaged: view 'results' is not the one this collcheck creates"},
      {"no_index", "DROP INDEX sweep_instances_by_instance", "is damaged: index 'sweep_instances_by_instance' is missing"},
      {"partial_index",
       "DROP INDEX sweep_instances_by_instance;"
       " CREATE INDEX sweep_instances_by_instance ON sweep_instances(instance_id) WHERE instance_id > 3",
       "is damaged: index 'sweep_instances_by_instance' is not the one this collcheck creates"},
      {"extra_index", "CREATE INDEX by_status ON verdicts(status)",
       "is damaged: index 'by_status' on 'verdicts' is not part of its schema"},
      {"extra_table", "CREATE TABLE notes(x)", "is damaged: table 'notes' is not part of its schema"},
      {"p_negative", "UPDATE instances SET p = -5 WHERE id = 2",
       "is damaged: instance 2 has p = -5 (expected an integer from 1 to 2^24)"},
      {"p_text", "UPDATE instances SET p = 'four' WHERE id = 2",
       "is damaged: instance 2 has p = 'four' (expected an integer from 1 to 2^24)"},
      {"p_zero", "UPDATE instances SET p = 0 WHERE id = 2", "is damaged: instance 2 has p = 0"},
      {"p_real", "UPDATE instances SET p = 2.5 WHERE id = 2", "is damaged: instance 2 has p = 2.5"},
      {"instance_status", "UPDATE instances SET status = 'violated' WHERE id = 3",
       "is damaged: instance 3 has status = 'violated' (expected the worst of its verdicts' statuses"},
      {"verdicts_deleted", "DELETE FROM verdicts WHERE instance_id = 2",
       "is damaged: instance 2 has status = 'holds' (expected the worst of its verdicts' statuses, skipped if it "
       "has none)"},
      {"holds_with_counterexample",
       "UPDATE verdicts SET cx_p = 3, cx_expected = 'a', cx_actual = 'b', cx_message = 'c' WHERE instance_id = 3",
       "has cx_p = 3 (expected a counterexample for a violated verdict and none for a holding one)"},
      {"cx_without_p", "UPDATE verdicts SET cx_rank = 1 WHERE instance_id = 3", "has cx_rank = 1"},
      {"checks_text", "UPDATE verdicts SET checks = 'many' WHERE instance_id = 1", "has checks = 'many'"},
      {"algorithm_blob", "UPDATE instances SET algorithm = X'00' WHERE id = 1",
       "is damaged: instance 1 has algorithm = X'00' (expected text)"},
      {"seconds_text", "UPDATE instances SET seconds = 'slow' WHERE id = 1", "instance 1 has seconds = 'slow'"},
      {"sweep_version", "UPDATE sweeps SET tool_version = '9.9'",
       "is damaged: sweep 1 has tool_version = '9.9' (expected the store's tool version (meta))"},
      {"threads_real", "UPDATE sweeps SET threads = 1.5", "is damaged: sweep 1 has threads = 1.5"},
      {"meta_key", "INSERT INTO meta VALUES ('owner', 'me')", "is damaged: meta key 'owner' has key = 'owner'"},
      {"dangling_verdict", verdict, "is damaged: a row of table 'verdicts' refers to a missing row of 'instances'"},
      // Rows the registry and the verdict rules refuse, and a sweep whose
      // listed instances do not cover what it planned: each made report
      // render something no check found.
      {"algorithm_unknown", "UPDATE instances SET algorithm = 'nope' WHERE id = 2",
       "is damaged: instance 2 has algorithm = 'nope' (expected an algorithm of the registry)"},
      {"variant_renamed", "UPDATE instances SET variant = 'renamed' WHERE id = 4",
       "is damaged: instance 4 has variant = 'renamed' (expected a variant of ring: "},
      {"collective_changed", "UPDATE instances SET collective = 'broadcast'",
       "is damaged: instance 1 has collective = 'broadcast' (expected allreduce, ring's)"},
      {"p_beyond_2_24", "UPDATE instances SET p = 2000000000 WHERE id = 3",
       "is damaged: instance 3 has p = 2000000000 (expected an integer from 1 to 2^24)"},
      {"checks_negative", "UPDATE verdicts SET checks = -1 WHERE instance_id = 1 AND property = 'ports'",
       "is damaged: verdict 'ports' of instance 1 has checks = -1 (expected an integer >= 0)"},
      {"holds_with_violations", "UPDATE verdicts SET violations = 5 WHERE instance_id = 1 AND property = 'ports'",
       "is damaged: verdict 'ports' of instance 1 has violations = 5 (expected at least 1 for a violated verdict, 0 "
       "otherwise)"},
      {"property_unknown", "UPDATE verdicts SET property = 'speed' WHERE instance_id = 2 AND property = 'ports'",
       "is damaged: verdict 'speed' of instance 2 has property = 'speed' (expected a property of the catalog"},
      {"job_deleted", "DELETE FROM sweep_instances WHERE ord = 2",
       "is damaged: sweep 1 finished with 6 planned instances but lists 5 (job 2 of sweep 1 has no row in "
       "sweep_instances)"},
      {"instance_and_job_deleted",
       "DELETE FROM verdicts WHERE instance_id = 5; DELETE FROM sweep_instances WHERE instance_id = 5;"
       " DELETE FROM instances WHERE id = 5",
       "is damaged: sweep 1 finished with 6 planned instances but lists 5 (job "},
      {"params_not_taken", "UPDATE instances SET params = 'r=5' WHERE id = 2",
       "is damaged: instance 2 has params = 'r=5' (ring/bandwidth takes no --radix)"},
      {"variant_restriction", "UPDATE instances SET variant = 'torus-hamiltonian' WHERE id = 2",
       "and is not skipped (expected an instance its variant allows: needs a torus shape (--dims, e.g. 3x3))"},
      {"params_malformed", "UPDATE instances SET params = 'n=three' WHERE id = 2",
       "is damaged: instance 2 has params = 'n=three' (expected instance options as verify labels them)"},
      {"job_beyond_plan", "UPDATE sweep_instances SET ord = 6 WHERE ord = 5",
       "is damaged: job 6 of sweep 1 has ord = 6 (expected below its sweep's planned instances)"},
  };
  for (const Case& c : cases) expect_spoiled_store_refused(std::string("tampered_") + c.name, c.sql, c.what);
}

// meta.schema_version = 9 (a store of a newer collcheck)
// was accepted and written as long as PRAGMA user_version said the current version.
TEST(ResultsStoreBadInput, FutureOrDisagreeingSchemaVersionIsRefused) {
  const std::string db = small_store("future");
  execute(db, "UPDATE meta SET value = '9' WHERE key = 'schema_version'");
  const std::string future = "has schema version 9 (meta.schema_version); this collcheck";
  expect_refused(kSmall + " --db " + db, db, future);
  expect_refused("report --db " + db, db, future);
  execute(db, "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  expect_refused(kSmall + " --db " + db, db, "is damaged: meta.schema_version is '1', PRAGMA user_version is 3");
  execute(db, "DELETE FROM meta WHERE key = 'schema_version'");
  expect_refused(kSmall + " --db " + db, db, "is damaged: meta.schema_version is missing");
  execute(db, "INSERT INTO meta VALUES ('schema_version', '3'); PRAGMA user_version = 9");
  expect_refused(kSmall + " --db " + db, db, "has schema version 9; this collcheck");
}

// `report` only reads, and leaves no -wal or -shm file
// beside a store (a plain read-only open of a WAL database creates both and
// cannot remove them). A store a killed writer left (committed instances
// still in its -wal) is read with its log: nothing committed is missed.
TEST(ResultsStore, ReportCreatesNoFilesAndReadsAKilledWritersLog) {
  const std::string db = small_store("readonly_wal");
  ASSERT_FALSE(fs::exists(db + "-wal"));
  ASSERT_FALSE(fs::exists(db + "-shm"));
  const std::string before = bytes(db);
  EXPECT_EQ(run("report --db " + db + " --format json").code, 0);
  EXPECT_EQ(run("report --db " + db + " --list").code, 0);
  EXPECT_FALSE(fs::exists(db + "-wal"));
  EXPECT_FALSE(fs::exists(db + "-shm"));
  EXPECT_TRUE(bytes(db) == before);

  // A writer commits a sweep row into the log and is "killed": its files are
  // copied while it still holds the store open (what SIGKILL leaves).
  const std::string killed = fresh("killed_writer");
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h,
                           "PRAGMA wal_autocheckpoint = 0; INSERT INTO sweeps(command, tool_version, config, mode, "
                           "seed, threads, planned, started) SELECT 'the killed sweep', tool_version, config, mode, "
                           "seed, threads, 6, started FROM sweeps WHERE id = 1",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    ASSERT_GT(fs::file_size(db + "-wal"), 0u);
    for (const char* s : {"", "-wal", "-shm"}) fs::copy_file(db + s, killed + s);
    sqlite3_close(h);
  }
  const Outcome list = run("report --db " + killed + " --list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("sweep 2: started "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("interrupted, 0/6 instances; the killed sweep"), std::string::npos) << list.out;
  // The log and its index were there before and stay; nothing else appears.
  EXPECT_TRUE(fs::exists(killed + "-wal") && fs::exists(killed + "-shm"));
  EXPECT_FALSE(fs::exists(killed + "-journal"));
}

// A file S-journal beside a healthy store: SQLite takes any such file whose
// first byte is not zero for the rollback journal of an unfinished write. A
// read-only open then fails ("attempt to write a readonly database", which
// report used to call the store read-only); a writing one finds no journal
// header in it and deletes it. Not SQLite's file: refused by both, with its
// name, and left as it is. A journal SQLite ignores (empty, or its header
// zeroed) is no reason to read with locks: nothing is created beside it.
TEST(ResultsStoreBadInput, JournalBesideTheStore) {
  const std::string db = small_store("journal");
  const std::string journal = db + "-journal";
  {
    std::ofstream(journal, std::ios::binary) << "this is not a journal\n";
  }
  const std::string what = "results store '" + db + "': the file '" + journal +
                           "' beside it is not a SQLite journal (no journal header), but SQLite takes any such file "
                           "for the journal of an unfinished write: move it away; nothing was written";
  expect_refused("report --db " + db, db, what);
  expect_refused(kSmall + " --db " + db + " --resume", db, what);
  EXPECT_EQ(bytes(journal), "this is not a journal\n");
  EXPECT_FALSE(fs::exists(db + "-wal"));
  EXPECT_FALSE(fs::exists(db + "-shm"));
  // SQLite's header, as a killed rollback-mode writer leaves it: reading cannot roll it back.
  {
    std::ofstream(journal, std::ios::binary) << std::string("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", 8) << std::string(504, '\0');
  }
  expect_refused("report --db " + db, db, "results store '" + db + "' has a hot journal '" + journal +
                                              "' (a write that did not finish), which reading cannot roll back");
  for (const std::string& ignored : {std::string(), std::string(512, '\0')}) {
    std::ofstream(journal, std::ios::binary) << ignored;
    const Outcome o = run("report --db " + db);
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_FALSE(fs::exists(db + "-wal"));
    EXPECT_FALSE(fs::exists(db + "-shm"));
  }
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
