// collcheck fuzz through the real binary (checker/fuzz/fuzz.hpp):
//   * a refuted paper reading is found and shrunk to the minimal p that
//     verify reports over every p up to the one found, with the command that
//     reproduces it;
//   * a user's Python generator (tests/data/fuzz/rd_allreduce_gen.py) is
//     refuted and shrunk to p = 3 through --schedule-cmd, and its corrected
//     form holds;
//   * a holding variant holds, with the strata covered in the JSON summary;
//     the same seed draws the same instances;
//   * --mutants: the fraction of mutants each property kills, survivors named;
//   * --db accumulates coverage over runs;
//   * the budget ends the run even when an instance outruns its predicted
//     time (the instance is abandoned and named, never counted); a run that
//     checked nothing is unknown (exit 3), never holds;
//   * small instances first (the size schedule): a refuted torus reading is
//     found and shrunk to dims 4 whatever the seed;
//   * --schedule-cmd's output file: never a planted link, held to the
//     schedule-file limit (the program's process group killed);
//   * JUnit output; bad input (budget 0, both or neither of --algo and
//     --schedule-cmd, a command that fails, hangs, prints garbage or a
//     schedule for another p): one line, exit 2 or 3, the summary kept.
// Runs are judged by what they found, never by how much they did within
// their budget (that depends on the machine's load).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "checker/fuzz/fuzz.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

using nlohmann::json;

const std::string kGen = std::string("python3 ") + COLLCHECK_SOURCE_DIR + "/tests/data/fuzz/rd_allreduce_gen.py";

TEST(FuzzCli, AReadingIsShrunkToVerifysMinimalP) {
  const Outcome r = run("fuzz --algo swing --variant paper-listing1 --seconds 20 --seed 7 --format json");
  ASSERT_EQ(r.code, 1) << r.err << r.out;
  const json j = json::parse(r.out);
  ASSERT_FALSE(j.at("finding").is_null());
  const std::string minimal = j.at("finding").at("minimal");
  const std::string found = j.at("finding").at("found");
  ASSERT_EQ(minimal.rfind("p=", 0), 0u);
  const uint64_t p_min = std::stoull(minimal.substr(2)), p_found = std::stoull(found.substr(2));
  EXPECT_EQ(j.at("finding").at("command"), "collcheck verify --algo swing --variant paper-listing1 --p " + minimal.substr(2));
  // verify over every p up to the one found reports the same minimal p.
  const Outcome v = run("verify --algo swing --variant paper-listing1 --p 1.." + std::to_string(p_found) +
                        " --skip-restricted --format json -q");
  ASSERT_EQ(v.code, 1) << v.err;
  uint64_t first = 0;
  const json report = json::parse(v.out);
  for (const json& i : report.at("instances"))
    if (i.at("status") == "violated" && (first == 0 || i.at("p").get<uint64_t>() < first)) first = i.at("p");
  EXPECT_EQ(first, p_min);
  EXPECT_EQ(p_min, 6u);
}

TEST(FuzzCli, AUsersBrokenGeneratorIsRefutedAtItsMinimalP) {
  const Outcome r = run("fuzz --schedule-cmd '" + kGen + " {p}' --seconds 20 --seed 5");
  ASSERT_EQ(r.code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("shrunk"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("to p=3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exactly-once at p=3 rank=2 step=2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reproduce: " + kGen + " 3 > schedule.json && collcheck check-file schedule.json"),
            std::string::npos)
      << r.out;
}

// What a run found is asserted, never how much it did within its budget
// (that depends on the machine's load: "more than 5 instances in 4 s" failed
// with 3). A program's first instance always runs (the budget is checked
// between instances, the program bounded by --cmd-timeout).
TEST(FuzzCli, TheCorrectedGeneratorHolds) {
  const Outcome r = run("fuzz --schedule-cmd '" + kGen + " {p} --correct' --seconds 4 --seed 5 --max-p 300 --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("status"), "holds");
  EXPECT_GE(j.at("checked").get<int>(), 1);
  EXPECT_LE(j.at("largest_p").get<int>(), 300);
  EXPECT_TRUE(j.at("finding").is_null());
}

// The strata a run covers are those of its first draws (a function of the
// seed alone); the run holds, with every instance it checked in a stratum.
const std::set<std::string> kStrata = {"small", "pow2", "pow2+-1", "pow3", "pow3+-1", "prime", "large"};

TEST(FuzzCli, AHoldingVariantHoldsAndCoversTheStrata) {
  fuzz::Request q;
  q.target = resolve_targets("trivance", "latency").front();
  q.max_p = 5000;
  std::set<std::string> drawn;
  for (uint64_t k = 0; k < 20; ++k) drawn.insert(fuzz::draw(11, k, q).stratum);
  EXPECT_EQ(drawn, kStrata);

  const Outcome r = run("fuzz --algo trivance --variant latency --seconds 6 --seed 11 --max-p 5000 --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("status"), "holds");
  EXPECT_TRUE(j.at("finding").is_null());
  uint64_t sum = 0;
  for (const auto& [stratum, n] : j.at("per_stratum").items()) {
    EXPECT_TRUE(kStrata.count(stratum)) << stratum;
    sum += n.get<uint64_t>();
  }
  EXPECT_GE(j.at("checked").get<uint64_t>(), 1u);
  EXPECT_EQ(sum, j.at("checked").get<uint64_t>()) << r.out;
}

// The budget is a bound, not a model's guess: an instance still running
// when it ends is abandoned and named, not waited for (TRA at p = 4096
// radix 2 was predicted well under the budget and took about 10 s), and
// never counted: what was checked is what the per-stratum counts say, and a
// run whose only instance was abandoned is unknown (exit 3), never holds.
// How far a 1 s run gets depends on the machine, so both outcomes are
// judged; the bound on its length is a hang guard.
TEST(FuzzCli, TheBudgetEndsTheRunEvenWhenAnInstanceOutrunsItsPrediction) {
  for (const char* format : {"json", "text"}) {
    const Outcome r = run(std::string("fuzz --algo tra --seconds 1 --seed 6 --max-p 4096 --format ") + format);
    if (std::string(format) == "text") {
      EXPECT_NE(r.out.find(r.code == 0 ? "\nRESULT: holds\n" : "\nRESULT: unknown\n"), std::string::npos) << r.out;
      continue;
    }
    const json j = json::parse(r.out);
    const uint64_t checked = j.at("checked");
    EXPECT_EQ(r.code, checked ? 0 : 3) << r.err << r.out;
    EXPECT_EQ(j.at("status"), checked ? "holds" : "unknown") << r.out;
    EXPECT_LT(j.at("seconds").get<double>(), 60.0) << r.out;  // hang guard: the budget is 1 s
    uint64_t sum = 0;
    for (const auto& [stratum, n] : j.at("per_stratum").items()) sum += n.get<uint64_t>();
    EXPECT_EQ(sum, checked) << r.out;
    if (!j.at("unfinished").is_null()) {
      EXPECT_EQ(j.at("unfinished").get<std::string>().rfind("p=", 0), 0u) << r.out;
    }
  }
}

// A run that checked nothing never holds: Swing's paper-odd takes odd p >= 3
// only, so under --max-p 2 every draw is outside its restriction. It said
// "RESULT: holds", exit 0 (as did a run whose one instance was still running
// at the budget and abandoned); now unknown, exit 3, in every format and in
// the --db record.
TEST(FuzzCli, NothingCheckedIsNeverHolds) {
  const std::string args = "fuzz --algo swing --variant paper-odd --max-p 2 --seconds 1 --seed 1";
  Outcome r = run(args);
  EXPECT_EQ(r.code, 3) << r.err << r.out;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("\nnothing was checked: no instance was checked within the budget ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nRESULT: unknown\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("holds"), std::string::npos) << r.out;
  const std::string db = temp_path("fuzz_nothing.db");
  std::remove(db.c_str());
  r = run(args + " --format json --db " + db);
  EXPECT_EQ(r.code, 3) << r.err << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("status"), "unknown");
  EXPECT_EQ(j.at("checked"), 0);
  EXPECT_GT(j.at("restricted").get<uint64_t>(), 0u);
  EXPECT_EQ(json::parse(read_file(db)).at("runs").at(0).at("status"), "unknown");
  std::remove(db.c_str());
  r = run(args + " --format junit");
  EXPECT_EQ(r.code, 3) << r.err << r.out;
  EXPECT_NE(r.out.find("errors=\"1\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<error type=\"nothing-checked\" message=\"nothing was checked: "), std::string::npos) << r.out;
}

// The size schedule: the first draws are small, the cap doubles every 4
// draws up to 1024 and then every draw, up to --max-p; every draw fits it.
// A refuted torus reading's first draw was once 512x32, still running when
// a 30 s budget ended: nothing was checked, and the run said "holds".
TEST(FuzzCli, TheFirstDrawsAreSmall) {
  EXPECT_EQ(fuzz::size_cap(0, uint64_t{1} << 21), 8u);
  EXPECT_EQ(fuzz::size_cap(3, uint64_t{1} << 21), 8u);
  EXPECT_EQ(fuzz::size_cap(4, uint64_t{1} << 21), 16u);
  EXPECT_EQ(fuzz::size_cap(28, uint64_t{1} << 21), 1024u);
  EXPECT_EQ(fuzz::size_cap(29, uint64_t{1} << 21), 2048u);
  EXPECT_EQ(fuzz::size_cap(38, uint64_t{1} << 21), uint64_t{1} << 20);
  EXPECT_EQ(fuzz::size_cap(39, uint64_t{1} << 21), uint64_t{1} << 21);
  EXPECT_EQ(fuzz::size_cap(1000000, uint64_t{1} << 21), uint64_t{1} << 21);
  EXPECT_EQ(fuzz::size_cap(0, 5), 5u);
  for (const auto& [algo, variant] : std::vector<std::pair<std::string, std::string>>{
           {"swing", "torus-paper-delta"}, {"swing", "bandwidth"}, {"traff", "default"}, {"bucket", ""}}) {
    fuzz::Request r;
    r.target = resolve_targets(algo, variant).front();
    for (uint64_t seed = 1; seed <= 5; ++seed)
      for (uint64_t k = 0; k < 100; ++k) {
        const fuzz::Instance i = fuzz::draw(seed, k, r);
        EXPECT_LE(i.p, fuzz::size_cap(k, uint64_t{1} << 21)) << algo << " seed " << seed << " k " << k << " " << i.label();
      }
  }
}

// The refuted torus reading is found and shrunk to the minimal torus (sides
// of 1 dropped: dims 4, not 4x1) whatever the seed. --max-p 64 keeps every
// instance tiny; the same holds without it (docs/guide/fuzz.md: seeds 1..5, 30 s).
TEST(FuzzCli, ARefutedTorusReadingIsFoundWhateverTheSeed) {
  for (int seed = 1; seed <= 5; ++seed) {
    const Outcome r = run("fuzz --algo swing --variant torus-paper-delta --seconds 30 --max-p 64 --format json --seed " +
                          std::to_string(seed));
    ASSERT_EQ(r.code, 1) << seed << "\n" << r.err << r.out;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("status"), "violated") << seed;
    EXPECT_EQ(j.at("finding").at("minimal"), "dims=4 (p=4)") << seed << " " << r.out;
    EXPECT_EQ(j.at("finding").at("command"), "collcheck verify --algo swing --variant torus-paper-delta --dims 4") << seed;
  }
}

// Torus shapes are drawn by stratum, and the large stratum draws tori near
// the size cap (beyond 2^20 nodes by default once the cap reaches --max-p)
// (the old fixed pools stopped at 81^3 for sides 3^k); every shape fits the
// cap and its p is the product of its sides.
TEST(FuzzCli, TorusShapesCoverTheStrataUpToMaxP) {
  for (uint64_t top : {uint64_t{1} << 21, uint64_t{100}}) {
    fuzz::Request r;
    r.target = resolve_targets("bucket", "").front();
    r.max_p = top;
    std::set<std::string> kinds;
    int beyond_2_20 = 0;
    for (uint64_t k = 0; k < 600; ++k) {
      const fuzz::Instance i = fuzz::draw(5, k, r);
      ASSERT_FALSE(i.dims.empty());
      ASSERT_LE(i.dims.size(), 3u);
      uint64_t prod = 1;
      for (uint32_t d : i.dims) {
        ASSERT_GE(d, 1u) << i.label();
        prod *= d;
      }
      EXPECT_EQ(prod, i.p) << i.label();
      const uint64_t cap = fuzz::size_cap(k, top);
      EXPECT_LE(i.p, cap) << i.label();
      kinds.insert(i.stratum.substr(i.stratum.rfind(' ') + 1));
      // large: the largest powers of one kind that fit each side's even share
      // of what is left, so within a factor 3 per side (a power of three),
      // twice that next to it: at least cap / 6^3.
      if (i.stratum.ends_with("large") && cap >= 216) {
        EXPECT_GE(i.p, cap / 216) << i.label();
      }
      beyond_2_20 += i.p > (uint64_t{1} << 20);
    }
    EXPECT_EQ(kinds, (std::set<std::string>{"small", "pow2", "pow2+-1", "pow3", "pow3+-1", "large"})) << top;
    if (top > (uint64_t{1} << 20)) {
      EXPECT_GT(beyond_2_20, 30);
    }
  }
}

// An instance the checker refuses is counted and the first one is named
// with the checker's reason: Swing's odd p are folds, enumerated, and above
// 65536 over the dense limit. Seed 1 draws such a p within its first 60
// draws; whether a 3 s run gets that far depends on the machine, so what it
// reports is judged either way.
TEST(FuzzCli, TheFirstRefusedInstanceIsNamedWithItsReason) {
  fuzz::Request q;
  q.target = resolve_targets("swing", "").front();
  bool odd_beyond = false;
  for (uint64_t k = 0; k < 60; ++k) {
    const fuzz::Instance i = fuzz::draw(1, k, q);
    odd_beyond = odd_beyond || (i.p % 2 == 1 && i.p > 65536);
  }
  EXPECT_TRUE(odd_beyond);
  const Outcome r = run("fuzz --algo swing --seconds 3 --seed 1 --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json j = json::parse(r.out);
  if (j.at("refused").get<uint64_t>() == 0) {
    EXPECT_TRUE(j.at("first_refused").is_null()) << r.out;
  } else {
    const std::string first = j.at("first_refused").get<std::string>();
    EXPECT_EQ(first.rfind("p=", 0), 0u) << first;
    EXPECT_NE(first.find("dense checker's limit"), std::string::npos) << first;
  }
  const Outcome t = run("fuzz --algo swing --seconds 3 --seed 1");
  ASSERT_EQ(t.code, 0) << t.err << t.out;
  EXPECT_EQ(t.out.find("\nfirst refused: p=") != std::string::npos, t.out.find(" 0 refused by the checker") == std::string::npos)
      << t.out;
}

TEST(FuzzCli, TheSameSeedDrawsTheSameInstances) {
  fuzz::Request r;
  r.target = resolve_targets("traff", "default").front();
  std::set<std::string> a, b, c;
  for (uint64_t k = 0; k < 200; ++k) {
    a.insert(fuzz::draw(42, k, r).label() + "#" + std::to_string(k));
    b.insert(fuzz::draw(42, k, r).label() + "#" + std::to_string(k));
    c.insert(fuzz::draw(43, k, r).label() + "#" + std::to_string(k));
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Roots at 0, the last rank and the middle all occur (traff takes --root).
  int last = 0, middle = 0;
  for (uint64_t k = 0; k < 400; ++k) {
    const fuzz::Instance i = fuzz::draw(42, k, r);
    last += i.p > 2 && i.root == i.p - 1;
    middle += i.p > 2 && i.root == i.p / 2;
  }
  EXPECT_GT(last, 10);
  EXPECT_GT(middle, 10);
}

TEST(FuzzCli, JUnitOutput) {
  const Outcome r = run("fuzz --algo swing --variant paper-listing1 --seconds 10 --seed 7 --format junit");
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("<testsuites name=\"collcheck fuzz\" tests=\"1\" failures=\"1\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<failure message=\"minimal p=6\">collcheck verify --algo swing --variant paper-listing1 --p 6"),
            std::string::npos)
      << r.out;
}

// --mutants: every operator on every transfer of swing p = 8; with the
// file's claims every mutant is killed; without them, delaying a last-step
// transfer computes the same result one step later and survives (the
// report names it); a schedule that fails as it is is not mutated.
TEST(FuzzCli, MutantsReportWhatEachPropertyKills) {
  const std::string file = temp_path("sw8.json"), bare = temp_path("sw8_bare.json"), bad = temp_path("pl6.json");
  ASSERT_EQ(run("dump --algo swing --p 8 --format json --out " + file).code, 0);
  Outcome r = run("fuzz --mutants " + file + " --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  json j = json::parse(r.out);
  EXPECT_EQ(j.at("status"), "all-killed");
  EXPECT_EQ(j.at("mutants"), 320);  // 48 sends x 7 operators, redirect skipped where it would be a self-send
  EXPECT_EQ(j.at("per_operator").at("delay").at("killed"), 48);
  EXPECT_GT(j.at("per_property").at("postcondition").at("killed").get<int>(), 200);
  EXPECT_GT(j.at("per_property").at("cost").at("killed").get<int>(), 0);

  json doc = json::parse(read_file(file));
  doc.erase("claims");
  {
    std::ofstream(bare) << doc.dump();
  }
  r = run("fuzz --mutants " + bare);
  ASSERT_EQ(r.code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("312 killed by some property"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("survivor: delay at step 5, rank 0's send 0"), std::string::npos) << r.out;

  ASSERT_EQ(run("dump --algo swing --variant paper-listing1 --p 6 --format json --out " + bad).code, 0);
  r = run("fuzz --mutants " + bad);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("the schedule itself fails (exactly-once at p=6"), std::string::npos) << r.out;
  r = run("fuzz --mutants " + file + " --seconds 5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--mutants FILE runs alone"), std::string::npos) << r.err;
}

// --db: two runs accumulate (runs, instances, strata); another target's
// database or a file that is not one is refused before the budget is spent.
TEST(FuzzCli, TheDatabaseAccumulatesCoverage) {
  const std::string db = temp_path("fuzz.db");
  std::remove(db.c_str());
  uint64_t first = 0;
  for (int seed : {1, 2}) {
    const Outcome r = run("fuzz --algo trivance --variant latency --seconds 2 --max-p 2000 --format json --db " + db +
                          " --seed " + std::to_string(seed));
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("accumulated").at("runs"), seed);
    if (seed == 1) first = j.at("checked");
    if (seed == 2) {
      EXPECT_EQ(j.at("accumulated").at("checked").get<uint64_t>(), first + j.at("checked").get<uint64_t>());
    }
  }
  const json stored = json::parse(read_file(db));
  EXPECT_EQ(stored.at("runs").size(), 2u);
  EXPECT_EQ(stored.at("runs").at(1).at("seed"), 2);
  Outcome r = run("fuzz --algo ring --seconds 2 --db " + db);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds the fuzzing of trivance/latency, not ring/bandwidth"), std::string::npos) << r.err;
  {
    std::ofstream(db) << "{\"x\": 1}";
  }
  r = run("fuzz --algo ring --seconds 2 --db " + db);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not a collcheck fuzz database"), std::string::npos) << r.err;
}

// --schedule-cmd: the program's output goes to a file mkstemp creates, never
// to the predictable $TMPDIR/collcheck-fuzz-<pid>.json it was once written to
// with O_TRUNC (a link planted there was followed, its target overwritten);
// the file is removed afterwards. The shell execs collcheck: $$ is its pid.
TEST(FuzzCli, AProgramsOutputNeverFollowsAPlantedLink) {
  const std::string dir = temp_path("fuzz_tmpdir"), victim = temp_path("fuzz_victim");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream(victim) << "kept\n";
  }
  const Outcome r = run_command("export TMPDIR=" + dir + "; ln -s " + victim + " " + dir +
                                "/collcheck-fuzz-$$.json; exec " + COLLCHECK_BINARY + " fuzz --schedule-cmd '" + kGen +
                                " {p} --correct' --seconds 1 --seed 5 --max-p 8 --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(json::parse(r.out).at("status"), "holds");
  EXPECT_EQ(read_file(victim), "kept\n");
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename().string());
  ASSERT_EQ(left.size(), 1u);  // the planted link, and no output file left behind
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/" + left.front())) << left.front();
  std::filesystem::remove_all(dir);
}

// A program whose output grows without bound (`yes` wrote 3.8 GB in 5 s
// until --cmd-timeout) is stopped at the schedule-file limit, its whole
// process group killed (here a writer it left in the background too), also
// when it ends past the limit between two polls (head). The limit is 1 GiB;
// COLLCHECK_FUZZ_OUTPUT_LIMIT lowers it for this test.
TEST(FuzzCli, ARunawayProgramIsStoppedAtTheScheduleFileLimit) {
  const std::string dir = temp_path("fuzz_runaway"), pidfile = temp_path("fuzz_runaway.pid");
  for (const std::string last : {"yes", "head -c 300000 /dev/zero"}) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::remove(pidfile.c_str());
    const std::string cmd = "yes > /dev/null & echo $! > " + pidfile + "; " + last;
    // ulimit -f (about 1 GB): should the limit fail, the disk does not fill; far
    // above what yes writes between two polls (its shell would report the signal).
    const Outcome r = run_command("ulimit -f 2000000; TMPDIR=" + dir + " COLLCHECK_FUZZ_OUTPUT_LIMIT=100000 " +
                                  COLLCHECK_BINARY + " fuzz --schedule-cmd '" + cmd +
                                  "' --seconds 30 --cmd-timeout 30 --seed 1");
    EXPECT_EQ(r.code, 2) << last << "\n" << r.err << r.out;
    EXPECT_EQ(r.err,
              "collcheck: error: the schedule command printed more than 100000 bytes, the schedule-file limit; "
              "stopped (its process group killed): " + cmd + "\n");
    EXPECT_NE(r.out.find("RESULT: error"), std::string::npos) << r.out;
    EXPECT_TRUE(std::filesystem::is_empty(dir)) << last;  // the output file is removed
    // The background writer was in the program's group: killed. (A killed
    // process may take a moment to be gone; the loop is a hang guard.)
    const std::string pid = std::to_string(std::atoi(read_file(pidfile).c_str()));
    ASSERT_NE(pid, "0") << last;
    bool gone = false;
    for (int i = 0; i < 1000 && !gone; ++i) {  // /proc/PID/stat: "PID (comm) STATE ..."
      const std::string stat = read_file("/proc/" + pid + "/stat");
      gone = stat.empty() || stat.substr(stat.rfind(')') + 1, 3) == " Z ";
      if (!gone) usleep(10000);
    }
    EXPECT_TRUE(gone) << last << ": pid " << pid;
    if (!gone) kill(std::stoi(pid), SIGKILL);
  }
  std::filesystem::remove_all(dir);
  std::remove(pidfile.c_str());
}

TEST(FuzzCli, BadInputIsOneLineWithTheSummaryKept) {
  struct Case {
    std::string args;
    int code;
    std::string line;
    bool summary = false;  // the run started: its summary is printed before the error
  };
  const std::vector<Case> cases = {
      {"fuzz --algo swing --seconds 0", 2, "collcheck: error: --seconds must be in 1..604800, not 0"},
      {"fuzz --seconds 5", 2, "collcheck: error: fuzz takes exactly one of --algo A and --schedule-cmd CMD"},
      {"fuzz --algo swing --schedule-cmd true --seconds 5", 2, "collcheck: error: fuzz takes exactly one of"},
      {"fuzz --algo nosuch --seconds 5", 2, "collcheck: error: unknown algorithm 'nosuch'"},
      {"fuzz --algo swing --variant all --seconds 5", 2, "collcheck: error: fuzz takes one variant, not 'all'"},
      {"fuzz --schedule-cmd false --seconds 5 --seed 1", 3, "collcheck: error: the schedule command failed (exit 1): false",
       true},
      {"fuzz --schedule-cmd 'sleep 20' --seconds 5 --cmd-timeout 1 --seed 1", 3,
       "collcheck: error: the schedule command did not finish within 1 s: sleep 20", true},
      {"fuzz --schedule-cmd 'echo garbage' --seconds 5 --seed 1", 2,
       "collcheck: error: the schedule command printed a malformed schedule (echo garbage)", true},
      {"fuzz --schedule-cmd '" + kGen + " 4' --seconds 5 --seed 5", 2,
       "collcheck: error: the schedule command printed a schedule for p = 4, asked for p = ", true},
      // Without --seed too: the seed drawn from the clock is told on stdout,
      // never as a line before the error.
      {"fuzz --schedule-cmd false --seconds 5", 3, "collcheck: error: the schedule command failed (exit 1): false", true},
      {"fuzz --schedule-cmd 'echo garbage' --seconds 5", 2,
       "collcheck: error: the schedule command printed a malformed schedule (echo garbage)", true},
      {"fuzz --schedule-cmd false --seconds 5 --format json", 3,
       "collcheck: error: the schedule command failed (exit 1): false"},
  };
  for (const Case& c : cases) {
    const Outcome r = run(c.args);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.err;
    // The error is the first and only line on stderr (no banner before it),
    // whether found before the run or by it.
    EXPECT_EQ(r.err.rfind(c.line, 0), 0u) << c.args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << c.args << "\n" << r.err;
    if (c.summary) {
      EXPECT_NE(r.out.find("RESULT: error"), std::string::npos) << c.args << "\n" << r.out;
    }
  }
}

// A seed drawn from the clock is told on standard output once the run
// starts (a run its CI job kills can still be reproduced), so that stderr
// holds nothing but an error; not where standard output is a JSON report.
TEST(FuzzCli, ASeedFromTheClockIsToldOnceTheRunStarts) {
  const Outcome r = run("fuzz --algo ring --seconds 1 --max-p 8");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(r.err, "");
  const size_t at = r.out.find(" seed ");
  ASSERT_EQ(r.out.rfind("collcheck fuzz: ring/bandwidth seed ", 0), 0u) << r.out;
  const std::string seed = r.out.substr(at + 6, r.out.find(' ', at + 6) - at - 6);
  EXPECT_NE(r.out.find("--seed " + seed + " draws the same instances"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" seed=" + seed + " "), std::string::npos) << r.out;
  const Outcome j = run("fuzz --algo ring --seconds 1 --max-p 8 --format json");
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(j.err, "");
  EXPECT_TRUE(json::accept(j.out)) << j.out;
  const Outcome bad = run("fuzz --algo ring --seconds 1 --max-p 1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "collcheck: error: --max-p 1 leaves nothing to fuzz (at least 2)\n");
}

}  // namespace
}  // namespace collcheck::test
