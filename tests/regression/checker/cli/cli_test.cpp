// The collcheck command line end to end: exit codes of README.md "Exit codes" (0 holds,
// 1 violated, 2 bad input, 77 all skipped), one-line errors for bad input,
// report formats written to files, and reports that do not depend on the
// number of threads. Runs the real binary (COLLCHECK_BINARY).
#include <gtest/gtest.h>

#include "tests/support/report_json.hpp"
#include "tests/support/run_binary.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace {

using collcheck::test::Outcome;
using collcheck::test::lines;
using collcheck::test::run;
using collcheck::test::temp_path;

void expect_bad_input(const std::string& args, const std::string& needle) {
  SCOPED_TRACE(args);
  Outcome r = run(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("collcheck: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(ExitCodes, HoldsIsZero) {
  Outcome r = run("verify --algo swing --p 1..32 --quiet");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("swing/bandwidth (allreduce): holds  p=1..32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RESULT: holds"), std::string::npos);
}

TEST(ExitCodes, ViolatedIsOneWithMinimalCounterexample) {
  Outcome r = run("verify --algo swing --variant paper-laststep --p 2..12:2 --quiet");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("postcondition violated at p=6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("minimal counterexample: p=6 rank=0 step=5 block=0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing ranks {4,5}"), std::string::npos) << r.out;
}

// --algo and --variant take comma lists (the outside audit: --variant a,b was
// refused); an empty item is a malformed list.
TEST(NameLists, AlgorithmsAndVariantsAsCommaLists) {
  Outcome v = run("verify --algo swing --variant latency,bandwidth --p 4 -q --format json");
  ASSERT_EQ(v.code, 0) << v.err;
  std::set<std::string> got;
  const nlohmann::json report = nlohmann::json::parse(v.out);
  for (const auto& g : report["groups"]) got.insert(g["variant"].get<std::string>());
  EXPECT_EQ(got, (std::set<std::string>{"latency", "bandwidth"}));
  Outcome a = run("run --algo ring,swing --variant latency --p 4");  // ring has no latency variant: passed over
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("swing/latency"), std::string::npos) << a.out;
  EXPECT_EQ(a.out.find("ring/"), std::string::npos) << a.out;
  expect_bad_input("verify --algo swing --variant latency, --p 4", "--variant: empty item in 'latency,'");
  expect_bad_input("verify --algo swing --variant , --p 4", "--variant: empty item in ','");
  expect_bad_input("run --algo ring, --p 4", "--algo: empty item in 'ring,'");
  expect_bad_input("verify --algo ring,swing --variant nosuch --p 4", "has a variant named 'nosuch'");
  expect_bad_input("verify --algo swing --variant latency,nosuch --p 4", "unknown variant 'nosuch' of swing");
  expect_bad_input("dump --algo swing --variant latency,bandwidth --p 4", "takes one algorithm and one variant");
}

TEST(ExitCodes, BadInputIsTwoWithOneLine) {
  expect_bad_input("verify --algo nosuch --p 4", "unknown algorithm 'nosuch'");
  expect_bad_input("verify --algo swing --variant nosuch --p 4", "unknown variant 'nosuch'");
  expect_bad_input("verify --algo swing --p 0", "p must be >= 1");
  expect_bad_input("verify --algo swing --p 1..", "malformed p-range");
  expect_bad_input("verify --algo swing --p 9..3", "empty range");
  expect_bad_input("verify --algo swing --p ''", "--p needs a value, not an empty string");
  expect_bad_input("verify --algo swing --p 2^30", "exceeds the maximum");
  expect_bad_input("verify --algo swing", "verify needs --p");
  expect_bad_input("verify --algo swing --p 4 --format pdf", "unknown format 'pdf'");
  expect_bad_input("verify --algo swing --p 4 --mode sloppy", "unknown --mode");
  expect_bad_input("verify --algo swing --p 4 --bogus", "unrecognised option");
  expect_bad_input("frobnicate", "unknown command 'frobnicate'");
  expect_bad_input("dump --algo swing --p 1..4", "single value");
  // ring has the generic encodings (step lower bound, translation validation)
  // but not Swing's peer-function ones.
  expect_bad_input("prove --algo ring --p 8 --query smt-swing-involution", "no SMT encoding for 'ring'");
  expect_bad_input("run --algo swing --p 12 --dtype complex", "unknown --dtype");
  expect_bad_input("check-file /nonexistent/schedule.json", "cannot read");
}

TEST(ExitCodes, RestrictionIsBadInputUnlessSkipped) {
  expect_bad_input("verify --algo swing --variant paper-laststep --p 3", "outside its restriction: p must be even");
  Outcome skipped = run("verify --algo swing --variant paper-laststep --p 3,5 --skip-restricted --quiet");
  EXPECT_EQ(skipped.code, 77);
  EXPECT_NE(skipped.out.find("skipped p=3, 5: p must be even"), std::string::npos) << skipped.out;
  Outcome mixed = run("verify --algo swing --variant bandwidth-contiguous --p 3..8 --skip-restricted --quiet");
  EXPECT_EQ(mixed.code, 0) << mixed.out;
}

TEST(Formats, JunitFileIsWritten) {
  std::string path = temp_path("cli_report.xml");
  Outcome r = run("verify --algo all --p 1..16 --format junit --quiet --out " + path);
  EXPECT_EQ(r.code, 0);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string xml = ss.str();
  EXPECT_EQ(xml.rfind("<?xml", 0), 0u) << xml.substr(0, 80);
  size_t cases = 0;
  for (size_t pos = 0; (pos = xml.find("<testcase ", pos)) != std::string::npos; ++pos) ++cases;
  // swing, recursive-doubling, ring, traff, traff-allgather, traff-reduce,
  // traff-reduce-scatter, traff-allreduce, tra, tra2, trivance,
  // bruck-allreduce: default variants
  EXPECT_EQ(cases, 12u * 16u);
}

// Minimal counterexamples and their root causes, in every checker mode
// (exact, fingerprint dense and intervals; the symmetry method runs for the
// rotation-invariant schedules among them).
TEST(Determinism, ReportIsIndependentOfThreadCount) {
  for (const std::string mode : {"--mode auto", "--mode fingerprint --state dense", "--state intervals"}) {
    SCOPED_TRACE(mode);
    std::string common = "verify --algo all --variant all --p 1..40 --skip-restricted --format json --quiet " + mode;
    Outcome one = run(common + " --threads 1"), two = run(common + " --threads 2");
    ASSERT_EQ(one.code, 1);  // the literal paper variants are refuted
    ASSERT_EQ(two.code, 1);
    // Timing fields aside ("seconds", the traff tables' "tables_seconds").
    auto a = collcheck::test::comparable(one.out), b = collcheck::test::comparable(two.out);
    a.erase("threads");
    b.erase("threads");
    EXPECT_EQ(a, b);
    EXPECT_NE(one.out.find("\"root_cause\": {"), std::string::npos);
  }
}

TEST(Dump, TextAndJsonRoundTripThroughCheckFile) {
  Outcome text = run("dump --algo swing --p 8");
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("  rank 0:  -> 1 {1-2,5-6} reduce  <- 1 {0,3-4,7} reduce"), std::string::npos) << text.out;
  std::string path = temp_path("cli_swing12.json");
  Outcome json = run("dump --algo swing --p 12 --format json --out " + path);
  EXPECT_EQ(json.code, 0);
  Outcome check = run("check-file " + path + " --quiet");
  EXPECT_EQ(check.code, 0) << check.out;
  // A malformed file is bad input.
  std::string bad = temp_path("cli_bad.json");
  std::ofstream(bad) << R"({"format":"collcheck-schedule/1","collective":"allreduce","p":2,"nblocks":2,"steps":[[{"rank":0,"sends":[{"peer":5,"blocks":[[0,1]],"combine":"reduce"}]},{"rank":1}]]})";
  expect_bad_input("check-file " + bad, "peer 5 out of range 0..1");
}

TEST(RunCommand, ThreadsMoveRealData) {
  Outcome r = run("run --algo swing --p 12 --dtype double");
  EXPECT_EQ(r.code, 0) << r.out;
  Outcome broken = run("run --algo swing --variant paper-listing1 --p 6");
  EXPECT_EQ(broken.code, 1) << broken.out;
}

// `list` names every registered variant and every property a report can
// hold, including check-file's `claims` (it is not in the property catalog
// because verify never computes it).
TEST(Cli, ListNamesEveryVariantAndProperty) {
  Outcome r = run("list");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"bandwidth-contiguous", "trivance-coverage", "exactly-once", "postcondition",
                           "claims (check-file only)"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

}  // namespace
