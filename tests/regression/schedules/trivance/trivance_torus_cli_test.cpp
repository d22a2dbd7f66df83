// The --dims option (checker/cli/dims_option.hpp) and trivance-torus through the
// real collcheck binary: verify / dump / run on torus shapes, --dims replacing
// --p, and every bad shape as one error line with exit code 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

void expect_bad(const std::string& args, const std::string& needle) {
  const Outcome r = run(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
  EXPECT_NE(r.err.find("collcheck: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
}

TEST(TorusCli, VerifyHoldsOn3x3AndShowsTheShape) {
  // The text report's per-instance lines (--verbose) carry the shape.
  const Outcome r = run("verify --algo trivance-torus --dims 3x3 --verbose --quiet");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("p=9 dims=3x3: holds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trivance-coverage holds"), std::string::npos) << r.out;
  // --p that agrees is accepted.
  EXPECT_EQ(run("verify --algo trivance-torus --variant bandwidth --dims 3x3 --p 9 --quiet").code, 0);
}

TEST(TorusCli, ShapeListReplacesP) {
  // 2x2x2 and 8x1 share p = 8: two instances.
  const Outcome r = run("verify --algo trivance-torus --variant all --dims 3x3,2x2x2,1x5,8x1 --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::multiset<std::string> seen;
  for (const auto& inst : j.at("instances")) {
    seen.insert(inst.at("variant").get<std::string>() + " p=" + std::to_string(inst.at("p").get<uint64_t>()) + " " +
                inst.at("params").get<std::string>());
    EXPECT_EQ(inst.at("status"), "holds") << inst.dump();
  }
  EXPECT_EQ(seen, (std::multiset<std::string>{"latency p=5 dims=1x5", "latency p=8 dims=2x2x2",
                                               "latency p=8 dims=8x1", "latency p=9 dims=3x3",
                                               "bandwidth p=5 dims=1x5", "bandwidth p=8 dims=2x2x2",
                                               "bandwidth p=8 dims=8x1", "bandwidth p=9 dims=3x3"}));
}

TEST(TorusCli, GoalShapesHoldExact) {
  // The goal shapes below p = 1024 (16x16x16 is measured in docs/performance.md: too
  // heavy for the default suite), both variants, every property, exact mode.
  const Outcome r = run("verify --algo trivance-torus --variant all --dims 3x3,9x9,27x27,4x4x4,8x8 --quiet");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  for (const char* v : {"latency", "bandwidth"})
    EXPECT_NE(r.out.find(std::string("trivance-torus/") + v + " (allreduce): holds  p=9, 64, 81, 729  5 hold, 0 violated"),
              std::string::npos)
        << r.out;
}

TEST(TorusCli, DumpAndRun) {
  const Outcome d = run("dump --algo trivance-torus --dims 3x3");
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_FALSE(d.out.empty());
  const Outcome r = run("run --algo trivance-torus --variant all --dims 3x3,2x3,6x1");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("dims=2x3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dims=6x1"), std::string::npos) << r.out;
}

TEST(TorusCli, BadShapesAreExitTwo) {
  expect_bad("verify --algo trivance-torus --dims 3x0", "must be >= 1");
  expect_bad("verify --algo trivance-torus --dims 3xx3", "malformed shape");
  expect_bad("verify --algo trivance-torus --dims 3x-3", "malformed shape");
  expect_bad("verify --algo trivance-torus --dims 3x3,", "empty shape");
  expect_bad("verify --algo trivance-torus --dims ''", "--dims needs a value, not an empty string");
  expect_bad("verify --algo trivance-torus --dims 65536x65536", "more than 2^24 nodes (the maximum p)");
  expect_bad("verify --algo trivance-torus --dims 4097x4096", "more than 2^24 nodes (the maximum p)");
  expect_bad("verify --algo trivance-torus --dims 99999999999x2", "malformed shape");
  expect_bad("verify --algo trivance-torus --dims 3x3,3x3", "listed twice");
  expect_bad("verify --algo trivance-torus --dims 3x3 --p 8", "disagrees with --dims");
  expect_bad("verify --algo trivance-torus --dims 3x3 --p 9,27", "disagrees with --dims");
  expect_bad("verify --algo trivance-torus --p 9", "needs a torus shape");
  expect_bad("verify --algo trivance --dims 3x3", "--dims does not apply to trivance/latency");
  expect_bad("dump --algo trivance-torus --dims 3x3,2x2", "one p");
  expect_bad("dump --algo trivance-torus --dims 4x4x4,8x8", "one p");
  expect_bad("run --algo trivance-torus --dims 2x0", "must be >= 1");
}

TEST(TorusCli, AlgoAllLeavesTheTorusOut) {
  // The torus needs --dims, which no other algorithm takes: --algo all skips it.
  const Outcome r = run("verify --algo all --p 9 --quiet");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("trivance-torus"), std::string::npos);
}

}  // namespace
}  // namespace collcheck::test
