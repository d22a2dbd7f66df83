// `collcheck prove` through the real binary: exit codes (0 holds, 1
// violated, 2 bad input, 3 unknown, 77 everything skipped), the query
// selection and --smt2-dir. Every bad input is one line on stderr.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

void expect_bad_input(const std::string& args, const std::string& needle) {
  Outcome o = run(args);
  EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
  EXPECT_NE(o.err.find("collcheck: error: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(needle), std::string::npos) << args << ": " << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

TEST(ProveCli, HoldsExitsZero) {
  Outcome o = run("prove --algo swing --p 2^10 --query smt-swing-unique-paths,smt-swing-hop-distance");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("smt-swing-unique-paths holds"), std::string::npos) << o.out;
  Outcome t = run("prove --algo tra --p 11 --radix 3 --query smt-tra-route,smt-tra-round-count --format json");
  EXPECT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("\"smt-tra-round-count\""), std::string::npos);
}

TEST(ProveCli, ViolatedExitsOne) {
  // Lemma 2's printed bound j < q at p = 16 (rank 15 needs all q = 4 skips).
  Outcome o = run("prove --algo traff --p 16 --query smt-traff-lemma2-length");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.out.find("rank=15"), std::string::npos) << o.out;
  // Theorem A.5 fails at p = 6 for the reading that sends every path.
  Outcome s = run("prove --algo swing --variant paper-listing1 --p 6 --query smt-swing-unique-paths");
  EXPECT_EQ(s.code, 1) << s.err;
}

// A query speaks about an instance only if it models that instance's
// schedule. The default Swing variant folds odd p onto p-1 and de-duplicates
// at even non-powers of two: the Eq. 2-on-p-ranks queries are "not
// applicable" there, never a violation (they once said "do not deploy" at
// p = 3, 5..7, 9..15).
TEST(ProveCli, QueriesThatDoNotModelTheScheduleAreNotApplicable) {
  Outcome o = run("prove --algo swing --p 1..20");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(o.out.find("do not deploy"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("not applicable"), std::string::npos) << o.out;
  Outcome l = run("prove --algo swing --variant latency --p 1..20");
  EXPECT_EQ(l.code, 0) << l.out << l.err;
  // paper-odd and paper-later are refuted (translation validation finds
  // their defects), but not by a ring query that does not model them.
  for (const char* variant : {"paper-odd", "paper-later"}) {
    Outcome v = run(std::string("prove --algo swing --variant ") + variant + " --p 3..20 --skip-restricted");
    EXPECT_EQ(v.out.find("smt-swing-involution violated"), std::string::npos) << variant << "\n" << v.out;
    EXPECT_EQ(v.out.find("smt-swing-unique-paths violated"), std::string::npos) << variant << "\n" << v.out;
    EXPECT_EQ(v.out.find("smt-swing-hop-distance violated"), std::string::npos) << variant << "\n" << v.out;
  }
  // Named, and applicable to no instance: bad input that says why.
  expect_bad_input("prove --algo swing --p 6 --query smt-swing-unique-paths", "not applicable");
  expect_bad_input("prove --algo swing --p 7 --query smt-swing-involution", "a ring of 6 ranks");
}

// ... and the queries still refute the paper readings they do model.
TEST(ProveCli, QueriesStillRefuteTheReadingsTheyModel) {
  struct Case {
    const char* args;
    const char* property;
  };
  for (const Case& c : {Case{"--variant paper-latency --p 3", "smt-swing-involution violated"},
                        Case{"--variant paper-latency --p 5", "smt-swing-peer-parity violated"},
                        Case{"--variant paper-latency --p 6", "smt-swing-unique-paths violated"},
                        Case{"--variant paper-listing1 --p 10", "smt-swing-unique-paths violated"}}) {
    Outcome o = run(std::string("prove --algo swing ") + c.args);
    EXPECT_EQ(o.code, 1) << c.args << "\n" << o.out << o.err;
    EXPECT_NE(o.out.find(c.property), std::string::npos) << c.args << "\n" << o.out;
  }
}

// prove refuses what verify refuses: an instance outside its variant's
// restriction is bad input (or skipped with --skip-restricted).
TEST(ProveCli, VariantRestrictionsAreVerifys) {
  expect_bad_input("prove --algo traff --p 8 --root 9", "outside its restriction");
  expect_bad_input("prove --algo swing --variant bandwidth-contiguous --p 6", "outside its restriction");
  expect_bad_input("prove --algo swing --dims 3x3", "outside its restriction");
  EXPECT_EQ(run("prove --algo swing --dims 3x3 --skip-restricted").code, 77);
  Outcome m = run("prove --algo swing --variant bandwidth-contiguous --p 6,8 --skip-restricted");
  EXPECT_EQ(m.code, 0) << m.out << m.err;
}

// --algo and --variant take comma lists, as verify's do.
TEST(ProveCli, AlgorithmAndVariantLists) {
  Outcome o = run("prove --algo swing,ring --variant default --p 4 --query smt-step-lower-bound");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("swing/bandwidth"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ring/"), std::string::npos) << o.out;
  Outcome v = run("prove --algo swing --variant bandwidth,latency --p 4 --query smt-swing-involution");
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("swing/latency"), std::string::npos) << v.out;
  expect_bad_input("prove --algo swing --variant bandwidth, --p 4", "empty item");
}

// The torus query reads the direct generator behind the equivariant wrapper
// (it was "internal error: std::bad_cast").
TEST(ProveCli, TorusVariantsAreProvedNotCrashed) {
  for (const char* args : {"--dims 4x4", "--variant torus-latency --dims 4x4", "--dims 1024x1024"}) {
    Outcome o = run(std::string("prove --algo swing ") + args);
    EXPECT_EQ(o.code, 0) << args << "\n" << o.out << o.err;
    EXPECT_NE(o.out.find("smt-swing-torus-peers holds"), std::string::npos) << args << "\n" << o.out;
  }
}

TEST(ProveCli, TimeoutExitsThree) {
  Outcome o = run("prove --algo trivance --p 531441 --query smt-trivance-coverage --timeout-ms 1");
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("unknown"), std::string::npos);
}

TEST(ProveCli, BadInputExitsTwoWithOneLine) {
  expect_bad_input("prove --algo nosuch --p 8", "unknown algorithm");
  expect_bad_input("prove --algo swing --p 8 --query nope", "unknown query 'nope'");
  expect_bad_input("prove --algo ring --p 8 --query smt-swing-involution", "no SMT encoding for 'ring'");
  expect_bad_input("prove --algo trivance --p 10 --query smt-trivance-coverage", "n = 3^s");
  expect_bad_input("prove --algo traff --p 2^15 --query smt-traff-tables", "2^14");
  expect_bad_input("prove --algo tra --variant spread-out --p 5000 --query smt-tra-route", "rounds");
  expect_bad_input("prove --algo swing --p 8 --timeout-ms 0", "--timeout-ms");
  expect_bad_input("prove --algo swing --p 8 --format nope", "unknown format");
  expect_bad_input("prove --algo swing", "needs --algo and --p");
}

// prove took verify's instances without verify's limit
// (the request below reached 9.3 GB with no output); it is refused before
// any instance is built, with verify's message, under a small ulimit.
TEST(ProveCli, RequestOverTheInstanceLimitIsRefusedAsVerifyRefusesIt) {
  const std::string request = " --algo all --variant all --p 2..2^20 --skip-restricted";
  const Outcome v = run("verify" + request);
  ASSERT_EQ(v.code, 2) << v.err;
  ASSERT_NE(v.err.find("instances, more than 2^22; split the sweep"), std::string::npos) << v.err;
  const Outcome p = run_command("ulimit -v 400000; " + std::string(COLLCHECK_BINARY) + " prove" + request);
  EXPECT_EQ(p.code, 2) << p.err;
  EXPECT_EQ(p.err, v.err);
  expect_bad_input("prove --algo tra --p 2..2^20 --radix all --query smt-tra-route",
                   "instances, more than 2^22; split the sweep");
}

TEST(ProveCli, SkipRestrictedSkipsOrExits77) {
  Outcome o = run("prove --algo trivance --p 10 --query smt-trivance-coverage --skip-restricted");
  EXPECT_EQ(o.code, 77) << o.err;
  Outcome m = run("prove --algo trivance --p 9,10 --query smt-trivance-peers --skip-restricted");
  EXPECT_EQ(m.code, 0) << m.err;
}

TEST(ProveCli, Smt2DirGetsOneFilePerSolverCheck) {
  std::string dir = temp_path("smt2dir");
  std::filesystem::remove_all(dir);
  Outcome o = run("prove --algo trivance --p 27 --query smt-trivance-peers,smt-trivance-coverage --smt2-dir " + dir);
  EXPECT_EQ(o.code, 0) << o.err;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".smt2";
  EXPECT_EQ(files, 3);  // peers: 1; coverage: step lemma + Theorem 4.3
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace collcheck::test
