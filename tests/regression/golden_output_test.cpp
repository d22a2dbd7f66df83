// Behaviour preservation: the main job (`scripts/sweep`'s default
// sweep) and `verify --algo all --variant all --p 1..128 --skip-restricted
// --format json` must print the same bytes as when the golden files in
// tests/data/golden/ were recorded, timings and the command path aside. A
// refactoring that changes a verdict, a counterexample, a statistic or the
// order of anything in a report fails here.
//
// A deliberate change of output re-records them:
//   COLLCHECK_UPDATE_GOLDEN=1 build/tests/test_regression_golden_output_test
// and the diff of the (gunzipped) golden files goes into the commit message.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

const std::string kGoldenDir = std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/golden/";

// Timings and the binary's path are the only parts of the output that may
// differ between two runs of the same build.
std::string normalise(std::string s) {
  static const std::regex seconds_json(R"re("(seconds|tables_seconds)": "?[0-9.e+-]+"?)re");
  static const std::regex seconds_text(R"re(seconds=[0-9.]+)re");
  static const std::regex command_json(R"re("command": "[^"\n]*")re");
  static const std::regex command_text(R"re((^|\n)command: [^\n]*)re");
  s = std::regex_replace(s, seconds_json, "\"$1\": T");
  s = std::regex_replace(s, seconds_text, "seconds=T");
  s = std::regex_replace(s, command_json, "\"command\": C");
  return std::regex_replace(s, command_text, "$1command: C");
}

std::string read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return {};
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

void write_gz(const std::string& path, const std::string& s) {
  gzFile f = gzopen(path.c_str(), "wb9");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(gzwrite(f, s.data(), static_cast<unsigned>(s.size())), static_cast<int>(s.size()));
  gzclose(f);
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t line = 1, start = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) {
      auto end_a = a.find('\n', i), end_b = b.find('\n', i);
      return "line " + std::to_string(line) + ":\n  golden: " + a.substr(start, end_a - start) +
             "\n  now:    " + b.substr(start, end_b - start);
    }
    if (a[i] == '\n') ++line, start = i + 1;
  }
  return "one is a prefix of the other (golden " + std::to_string(a.size()) + " bytes, now " +
         std::to_string(b.size()) + ")";
}

void expect_golden(const std::string& args, int expected_exit, const std::string& golden_name) {
  const Outcome r = run(args);
  ASSERT_EQ(r.code, expected_exit) << r.err;
  const std::string now = normalise(r.out);
  const std::string path = kGoldenDir + golden_name;
  if (std::getenv("COLLCHECK_UPDATE_GOLDEN")) {
    write_gz(path, now);
    GTEST_SKIP() << "recorded " << path;
  }
  const std::string golden = read_gz(path);
  ASSERT_FALSE(golden.empty()) << "missing golden file " << path;
  EXPECT_TRUE(golden == now) << golden_name << " differs at " << first_difference(golden, now);
}

TEST(GoldenOutput, MainSweepOfScriptsSweep) {
  // scripts/sweep with no arguments runs exactly this (see the script).
  expect_golden("verify --algo all --p 1..256", 0, "sweep-all-1..256.txt.gz");
}

TEST(GoldenOutput, EveryVariantTo128AsJson) {
  // Exit 1: the paper-* readings collcheck refutes are among the variants.
  expect_golden("verify --algo all --variant all --p 1..128 --skip-restricted --format json", 1,
                "verify-all-variants-1..128.json.gz");
}

TEST(GoldenOutput, NormalisationKeepsEverythingButTimings) {
  EXPECT_EQ(normalise("{\"seconds\": 1.5e-3, \"p\": 4, \"tables_seconds\": \"0.000002\"}"),
            "{\"seconds\": T, \"p\": 4, \"tables_seconds\": T}");
  EXPECT_EQ(normalise("x seconds=12.5\ncommand: /a/b verify\nholds"), "x seconds=T\ncommand: C\nholds");
  EXPECT_NE(normalise("holds p=1..4"), normalise("violated p=1..4"));
}

}  // namespace
}  // namespace collcheck::test
