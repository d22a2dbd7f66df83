// The results store's API (checker/sweep/results_store.hpp): every field of an
// InstanceResult round-trips through SQLite (checked through the JSON
// renderer, which prints every field, and field by field for the extremes),
// keys and configs separate results, re-recording replaces, sweeps keep their
// own order and membership; and every bad file (not SQLite, truncated,
// another application's, another schema or tool version, read-only, locked)
// is refused with InputError and left byte-for-byte unchanged.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <csignal>
#include <sstream>
#include <string>
#include <thread>

#include "checker/sweep/results_store.hpp"
#include "reports/report.hpp"
#include "schedules/input_error.hpp"
#include "tests/support/store_query.hpp"

namespace collcheck {
namespace {

namespace fs = std::filesystem;
constexpr const char* kVersion = "9.9.9-test";

std::string temp_db(const std::string& name) {
  std::string p = ::testing::TempDir() + std::to_string(::getpid()) + "_store_" + name + ".sqlite";
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(p + s);
  return p;
}

std::string bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_bytes(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
}

void sql(const std::string& path, const std::string& statements) { test::execute(path, statements); }

// A result with every field in use: two verdicts with counterexamples (one
// with every coordinate, one with only some), one without, stats maps with
// histograms, a skip reason.
InstanceResult rich_result(uint64_t p, const std::string& params = "n=3 root=1") {
  InstanceResult r;
  r.algorithm = "traff";
  r.variant = "broadcast";
  r.collective = "broadcast";
  r.p = p;
  r.params = params;
  r.status = Status::violated;
  r.seconds = 0.125;
  r.stats = {{"mode", "exact"}, {"steps", "7"}, {"chunks", "1"}};
  Verdict a;
  a.property = "matching";
  a.checks = INT64_MAX;  // the largest count the store keeps (SQLite's integers; a negative one is refused)
  a.mode = "exact";
  a.stats = {{"recursive_calls_histogram", "0:3 1:2"}, {"max_violations", "4"}};
  Counterexample cx = Counterexample::at(p, Rank{5}, 2, Block{9223372036854775807u}, Rank{0});
  cx.expected = "a receive at rank 0";
  cx.actual = "none \"quoted\", 'single', ünïcode";
  cx.message = "rank 5 sends block 9223372036854775807 to rank 0 in step 2 but rank 0 does not receive it";
  cx.root_cause = RootCause{RootCause::Kind::lost, Rank{3}, 1, Rank{5}, std::nullopt,
                            "rank 5 held rank 3's contribution to block 9223372036854775807 after step 0 and never "
                            "forwarded it (\"quoted\", ünïcode)"};
  a.fail(cx);
  a.fail(Counterexample::at(p, Rank{6}, 3));  // after step 2: the full one above is the minimal
  Verdict b;
  b.property = "cost";
  b.status = Status::unknown;
  b.checks = 1;
  b.fail(Counterexample::at(p, std::nullopt, 0));  // only a step
  b.status = Status::violated;
  Verdict c;
  c.property = "postcondition";
  c.checks = 12;
  r.verdicts = {a, b, c};
  return r;
}

std::string json_of(std::vector<InstanceResult> instances) {
  Report r;
  r.instances = std::move(instances);
  return render(r, Format::json);
}

TEST(ResultsStore, EveryFieldRoundTrips) {
  const std::string path = temp_db("roundtrip");
  InstanceResult r = rich_result(17);
  {
    ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
    s.begin_sweep("collcheck verify ...", "cfg", "exact", UINT64_MAX, 2, 1);
    s.record(0, r);
  }
  ResultsStore s(path, ResultsStore::Access::read_only, kVersion);
  auto back = s.lookup(InstanceKey::of(r), "cfg");
  ASSERT_TRUE(back);
  EXPECT_EQ(json_of({*back}), json_of({r}));
  // The JSON shows every field; check the extremes and optionals directly too.
  ASSERT_EQ(back->verdicts.size(), 3u);
  EXPECT_EQ(back->verdicts[0].checks, uint64_t{INT64_MAX});
  EXPECT_EQ(back->verdicts[0].violations, 2u);
  ASSERT_TRUE(back->verdicts[0].counterexample);
  EXPECT_EQ(back->verdicts[0].counterexample->block, Block{9223372036854775807u});
  EXPECT_EQ(back->verdicts[0].counterexample->peer, Rank{0});
  EXPECT_EQ(back->verdicts[0].counterexample->actual, r.verdicts[0].counterexample->actual);
  EXPECT_EQ(back->verdicts[0].counterexample->root_cause, r.verdicts[0].counterexample->root_cause);
  ASSERT_TRUE(back->verdicts[0].counterexample->root_cause);
  EXPECT_FALSE(back->verdicts[0].counterexample->root_cause->peer);
  ASSERT_TRUE(back->verdicts[1].counterexample);
  EXPECT_FALSE(back->verdicts[1].counterexample->rank);
  EXPECT_EQ(back->verdicts[1].counterexample->step, 0);
  EXPECT_FALSE(back->verdicts[1].counterexample->block);
  EXPECT_FALSE(back->verdicts[2].counterexample);
  EXPECT_EQ(back->stats, r.stats);
  EXPECT_EQ(back->seconds, r.seconds);
  auto sw = s.sweeps();
  ASSERT_EQ(sw.size(), 1u);
  EXPECT_EQ(sw[0].seed, UINT64_MAX);
  EXPECT_EQ(sw[0].threads, 2);
  EXPECT_EQ(sw[0].planned, 1u);
  EXPECT_EQ(sw[0].recorded, 1u);
  EXPECT_FALSE(sw[0].finished);  // never finish_sweep()ed: reads as interrupted
}

TEST(ResultsStore, SkippedInstanceRoundTrips) {
  const std::string path = temp_db("skipped");
  InstanceResult r;
  r.algorithm = "swing";
  r.variant = "paper-odd";
  r.collective = "allreduce";
  r.p = 4;
  r.status = Status::skipped;
  r.skip_reason = "p odd >= 3";
  ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
  s.begin_sweep("c", "cfg", "auto", 1, 0, 1);
  s.record(0, r);
  auto back = s.lookup(InstanceKey::of(r), "cfg");
  ASSERT_TRUE(back);
  EXPECT_EQ(json_of({*back}), json_of({r}));
}

TEST(ResultsStore, KeysAndConfigsSeparateResults) {
  const std::string path = temp_db("keys");
  ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
  s.begin_sweep("c", "cfg-A", "auto", 1, 0, 2);
  InstanceResult r = rich_result(9, "n=3");
  EXPECT_FALSE(s.has(InstanceKey::of(r), "cfg-A"));
  s.record(0, r);
  EXPECT_TRUE(s.has(InstanceKey::of(r), "cfg-A"));
  EXPECT_FALSE(s.has(InstanceKey::of(r), "cfg-B"));  // other options: not interchangeable
  InstanceKey other = InstanceKey::of(r);
  other.params = "n=4";
  EXPECT_FALSE(s.has(other, "cfg-A"));
  other = InstanceKey::of(r);
  other.p = 10;
  EXPECT_FALSE(s.has(other, "cfg-A"));
  other = InstanceKey::of(r);
  other.variant = "paper-reversed";
  EXPECT_FALSE(s.has(other, "cfg-A"));
}

TEST(ResultsStore, RecordingAgainReplaces) {
  const std::string path = temp_db("replace");
  ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
  s.begin_sweep("c", "cfg", "auto", 1, 0, 1);
  InstanceResult r = rich_result(9);
  s.record(0, r);
  r.verdicts.resize(1);
  r.verdicts[0].counterexample.reset();
  r.verdicts[0].status = Status::holds;
  r.status = Status::holds;
  s.record(0, r);
  auto back = s.lookup(InstanceKey::of(r), "cfg");
  ASSERT_TRUE(back);
  EXPECT_EQ(json_of({*back}), json_of({r}));
}

TEST(ResultsStore, SweepsKeepJobOrderAndReusedInstances) {
  const std::string path = temp_db("sweeps");
  std::vector<InstanceResult> rs;
  for (uint64_t p : {3, 5, 8, 13}) rs.push_back(rich_result(p));
  {
    ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
    s.begin_sweep("first", "cfg", "auto", 1, 0, 4);
    s.record(3, rs[3]);  // finishing order differs from job order
    s.record(1, rs[1]);  // then "killed": 0 and 2 never recorded
  }
  ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
  s.begin_sweep("second", "cfg", "auto", 1, 0, 4);
  for (size_t k = 0; k < rs.size(); ++k) {
    auto stored = s.reuse(k, rs[k]);
    EXPECT_EQ(stored.has_value(), k == 1 || k == 3) << k;
    if (!stored) s.record(k, rs[k]);
  }
  Report done;
  done.seconds = 2.5;
  done.mode = "auto (...)";
  done.notes = {"a note"};
  s.finish_sweep(done);
  auto sw = s.sweeps();
  ASSERT_EQ(sw.size(), 2u);
  EXPECT_EQ(sw[0].recorded, 2u);
  EXPECT_FALSE(sw[0].finished);
  EXPECT_EQ(json_of(s.load_sweep(sw[0].id)), json_of({rs[1], rs[3]}));
  EXPECT_EQ(sw[1].recorded, 4u);
  ASSERT_TRUE(sw[1].finished);
  EXPECT_EQ(sw[1].notes, std::vector<std::string>{"a note"});
  EXPECT_EQ(sw[1].seconds, 2.5);
  EXPECT_EQ(sw[1].mode, "auto (...)");
  EXPECT_EQ(json_of(s.load_sweep(sw[1].id)), json_of(rs));
  // A config of its own sees nothing of the other one's results.
  ResultsStore t(path, ResultsStore::Access::read_write, kVersion);
  t.begin_sweep("third", "cfg-other", "auto", 1, 0, 4);
  EXPECT_FALSE(t.reuse(0, rs[0]));
}

TEST(ResultsStore, CheckConfigNamesEverythingThatChangesAResult) {
  CheckOptions a;
  const std::string base = check_config(a);
  CheckOptions b = a;
  b.properties = {"matching"};
  EXPECT_NE(check_config(b), base);
  b = a;
  b.exactness = Exactness::fingerprint;
  EXPECT_NE(check_config(b), base);
  b = a;
  b.exact_max_p = 7;
  EXPECT_NE(check_config(b), base);
  b = a;
  b.memory_budget /= 2;  // changes the chunk count stat
  EXPECT_NE(check_config(b), base);
  b = a;
  b.seed += 1;
  EXPECT_NE(check_config(b), base);
  b = a;
  b.use_symmetry = !a.use_symmetry;  // changes the verdicts' mode text
  EXPECT_NE(check_config(b), base);
  EXPECT_EQ(check_config(a), base);
}

int64_t count(const std::string& path, const char* sql_text) {
  sqlite3* db = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql_text, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return v;
}

// A child process records instances as fast as it can and is killed with
// SIGKILL at a random moment, five times over: every recorded instance is
// whole (its row, all 3 verdict rows and its sweep membership, or nothing),
// the file passes integrity_check, and no committed instance disappears.
// Recording without one transaction per instance fails this.
TEST(ResultsStore, KilledWriterLeavesWholeInstancesOnly) {
  const std::string path = temp_db("killed_writer");
  std::mt19937 rng(2);
  int64_t before = 0;
  for (int round = 0; round < 5; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
        s.begin_sweep("child", "cfg", "auto", 1, 0, 1000000);
        // p >= 2: root=1 is a rank (opening refuses an instance its variant does not allow).
        for (uint64_t p = 1; p < 1000000; ++p) s.record(p, rich_result(p + 1 + 1000000 * round));
      } catch (...) {
        _exit(3);
      }
      _exit(0);
    }
    // Kill once the child has committed something, somewhere in its stream.
    for (int i = 0; i < 4000 && count(path, "SELECT count(*) FROM instances") <= before; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended by itself (status " << status << ")";
    EXPECT_EQ(count(path, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
    const int64_t now = count(path, "SELECT count(*) FROM instances");
    EXPECT_GT(now, before) << "round " << round;
    EXPECT_EQ(count(path, "SELECT count(*) FROM instances i WHERE (SELECT count(*) FROM verdicts v"
                          " WHERE v.instance_id = i.id) != 3"),
              0);
    EXPECT_EQ(count(path, "SELECT count(*) FROM sweep_instances"), now);
    before = now;
  }
}

// ---- bad files: InputError, and not one byte changes -------------------

// Opens `path` read-write and read-only; both must throw InputError whose
// message contains `what` and is one line, and the file must be unchanged.
void expect_refused(const std::string& path, const std::string& what, const std::string& version = kVersion) {
  const std::string before = bytes(path);
  for (auto access : {ResultsStore::Access::read_write, ResultsStore::Access::read_only}) {
    try {
      ResultsStore s(path, access, version, 200);
      ADD_FAILURE() << path << " was opened";
    } catch (const InputError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find(what), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    EXPECT_TRUE(bytes(path) == before) << path << " changed";
  }
}

std::string good_store(const std::string& name) {
  const std::string path = temp_db(name);
  {
    ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
    s.begin_sweep("c", "cfg", "auto", 1, 0, 8);
    for (uint64_t p = 1; p <= 8; ++p) s.record(p - 1, rich_result(p + 1));  // p >= 2: root=1 is a rank
    s.finish_sweep(Report{});
  }
  EXPECT_FALSE(fs::exists(path + "-wal"));  // a clean close leaves one file
  return path;
}

// Reading a store no connection has open: immutable (no -wal or -shm is
// created); if a writer changes the main file meanwhile (its closing
// checkpoint), the read is redone with locks and sees the writer's commits.
TEST(ResultsStoreReading, ImmutableReadIsRedoneWhenAWriterChangedTheFile) {
  const std::string path = good_store("immutable");
  ResultsStore reader(path, ResultsStore::Access::read_only, kVersion);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
  ASSERT_EQ(reader.sweeps().size(), 1u);
  {
    ResultsStore writer(path, ResultsStore::Access::read_write, kVersion);
    writer.begin_sweep("second", "cfg", "auto", 1, 0, 8);
    for (uint64_t p = 1; p <= 8; ++p) writer.record(p - 1, rich_result(p + 1));
    writer.finish_sweep(Report{});
  }  // closed: checkpointed into the main file, log removed
  ASSERT_FALSE(fs::exists(path + "-wal"));
  const auto sweeps = reader.sweeps();
  ASSERT_EQ(sweeps.size(), 2u);
  EXPECT_EQ(sweeps.back().command, "second");
  EXPECT_EQ(reader.load_sweep(sweeps.back().id).size(), 8u);
}

TEST(ResultsStoreBadFile, RandomBytes) {
  const std::string path = temp_db("random");
  std::mt19937_64 rng(7);
  std::string junk(8192, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  write_bytes(path, junk);
  expect_refused(path, "not a SQLite database");
}

TEST(ResultsStoreBadFile, TextFile) {
  const std::string path = temp_db("text");
  write_bytes(path, "{\"tool_version\": \"0.1.0\", \"instances\": []}\n" + std::string(200, ' '));
  expect_refused(path, "not a SQLite database");
}

TEST(ResultsStoreBadFile, TruncatedStore) {
  const std::string good = good_store("truncated_src");
  const std::string all = bytes(good);
  ASSERT_GT(all.size(), 4096u);
  for (size_t keep : {all.size() / 2, all.size() - 1, size_t{4096}, size_t{1000}, size_t{50}}) {
    const std::string path = temp_db("truncated_" + std::to_string(keep));
    write_bytes(path, all.substr(0, keep));
    const std::string before = bytes(path);
    for (auto access : {ResultsStore::Access::read_write, ResultsStore::Access::read_only}) {
      EXPECT_THROW(ResultsStore(path, access, kVersion, 200), InputError) << keep;
      EXPECT_TRUE(bytes(path) == before) << keep;
    }
  }
}

TEST(ResultsStoreBadFile, FlippedBytesInAPage) {
  const std::string good = good_store("flipped_src");
  std::string all = bytes(good);
  const size_t page = 4096;
  ASSERT_GT(all.size(), 2 * page);
  // Overwrite the b-tree header of the second page (the first table's root).
  for (size_t i = page; i < page + 16; ++i) all[i] = static_cast<char>(0xA5);
  const std::string path = temp_db("flipped");
  write_bytes(path, all);
  expect_refused(path, "corrupt");
}

TEST(ResultsStoreBadFile, AnotherApplicationsDatabase) {
  const std::string path = temp_db("foreign");
  sql(path, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  expect_refused(path, "not a collcheck results store");
}

TEST(ResultsStoreBadFile, AnotherSchemaVersion) {
  const std::string path = good_store("schema");
  sql(path, "PRAGMA user_version = 99;");
  expect_refused(path, "schema version 99");
}

TEST(ResultsStoreBadFile, AnotherToolVersion) {
  const std::string path = good_store("version");
  expect_refused(path, "written by collcheck 9.9.9-test; this is collcheck 0.0.1-other", "0.0.1-other");
  // The same file opens for the version that wrote it.
  EXPECT_NO_THROW(ResultsStore(path, ResultsStore::Access::read_only, kVersion));
}

TEST(ResultsStoreBadFile, ReadOnlyFileIsNotWrittenButCanBeRead) {
  const std::string path = good_store("readonly");
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  const std::string before = bytes(path);
  try {
    ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
    ADD_FAILURE() << "opened a read-only file for writing";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  {
    ResultsStore s(path, ResultsStore::Access::read_only, kVersion);
    EXPECT_EQ(s.load_sweep(s.sweeps().front().id).size(), 8u);
  }
  EXPECT_TRUE(bytes(path) == before) << "the file changed";
  ::chmod(path.c_str(), 0644);
}

TEST(ResultsStoreBadFile, MissingFileIsNotCreatedForReading) {
  const std::string path = temp_db("missing");
  EXPECT_THROW(ResultsStore(path, ResultsStore::Access::read_only, kVersion), InputError);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_THROW(ResultsStore(path + ".d/x.sqlite", ResultsStore::Access::read_write, kVersion), InputError);
}

TEST(ResultsStoreBadFile, ExclusivelyLockedStore) {
  const std::string path = good_store("locked");
  const std::string before = bytes(path);
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  for (auto access : {ResultsStore::Access::read_write, ResultsStore::Access::read_only}) {
    auto t0 = std::chrono::steady_clock::now();
    try {
      ResultsStore s(path, access, kVersion, 200);
      ADD_FAILURE() << "opened an exclusively locked store";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("locked by another process"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));  // a short wait, then fail
  }
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_TRUE(bytes(path) == before) << "the file changed";
}

TEST(ResultsStoreBadFile, WriterHoldsTheLockWhenASweepStarts) {
  const std::string path = good_store("writer");
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE;", nullptr, nullptr, nullptr), SQLITE_OK);
  ResultsStore s(path, ResultsStore::Access::read_write, kVersion, 200);  // reading is allowed in WAL mode
  try {
    s.begin_sweep("c", "cfg", "auto", 1, 0, 1);
    ADD_FAILURE() << "started a sweep while another process holds the write lock";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("locked by another process"), std::string::npos) << e.what();
  }
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(s.sweeps().size(), 1u);  // only good_store's sweep
}

TEST(ResultsStoreBadFile, EmptyFileBecomesAStoreButIsNotReadable) {
  const std::string path = temp_db("empty");
  write_bytes(path, "");
  EXPECT_THROW(ResultsStore(path, ResultsStore::Access::read_only, kVersion), InputError);
  ResultsStore s(path, ResultsStore::Access::read_write, kVersion);
  EXPECT_TRUE(s.sweeps().empty());
}

}  // namespace
}  // namespace collcheck
