// check-file --translation-validation: Z3 proves the postcondition of a schedule
// *file* for all input values; a
// violation carries a witness that the threaded executor replays.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run_binary.hpp"

namespace collcheck {
namespace {

using test::run;
using test::temp_path;

const nlohmann::json* find_verdict(const nlohmann::json& report, const std::string& property) {
  for (const auto& v : report.at("instances").at(0).at("verdicts"))
    if (v.at("property") == property) return &v;
  return nullptr;
}

nlohmann::json check_json(const std::string& file) {
  auto o = run("check-file " + file + " --translation-validation --format json");
  EXPECT_TRUE(o.code == 0 || o.code == 1) << o.err;
  return nlohmann::json::parse(o.out);
}

TEST(CheckFileTranslation, DumpedScheduleHolds) {
  std::string f = temp_path("tv_swing8.json");
  ASSERT_EQ(run("dump --algo swing --p 8 --format json --out " + f).code, 0);
  nlohmann::json r = check_json(f);
  const auto* v = find_verdict(r, "smt-translation-validation");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->at("status"), "holds");
}

TEST(CheckFileTranslation, DoubleCountingFileIsViolatedAndReplayed) {
  // Swing's Listing 1, peer-index reading, double-counts at p = 6 (docs/findings/swing.md, finding 2).
  std::string f = temp_path("tv_listing1_6.jsonl");
  ASSERT_EQ(run("dump --algo swing --variant paper-listing1 --p 6 --format jsonl --out " + f).code, 0);
  nlohmann::json r = check_json(f);
  const auto* v = find_verdict(r, "smt-translation-validation");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->at("status"), "violated");
  ASSERT_TRUE(v->contains("stats"));
  EXPECT_NE(v->at("stats").value("replay", "").find("threaded executor confirms"), std::string::npos) << v->dump();
  // The same rank/block as the flow checker's exact postcondition.
  const auto* post = find_verdict(r, "postcondition");
  ASSERT_NE(post, nullptr);
  EXPECT_EQ(post->at("status"), "violated");
  EXPECT_EQ(v->at("counterexample").at("rank"), post->at("counterexample").at("rank"));
}

TEST(CheckFileTranslation, BadUsageIsExitTwo) {
  std::string f = temp_path("tv_swing8b.json");
  ASSERT_EQ(run("dump --algo swing --p 8 --format json --out " + f).code, 0);
  auto o = run("check-file " + f + " --timeout-ms 5");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("only with --translation-validation"), std::string::npos) << o.err;
  std::string big = temp_path("tv_swing1024.jsonl");
  ASSERT_EQ(run("dump --algo swing --p 1024 --format jsonl --out " + big).code, 0);
  o = run("check-file " + big + " --translation-validation");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("beyond translation validation's limit"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace collcheck
