// Regression cases that are just data (cvc5's regress folders): every
// schedule file in tests/data/regress/ (collcheck's format /2, JSON *.json or
// JSON lines *.jsonl, docs/schedule-format.md) states its expected verdicts in
// its own `producer` metadata, and this one driver runs `collcheck check-file
// FILE --format json` on it and compares (tests/data/regress/README.md):
//   "expect": "holds" | "violated" | "unknown" | "skipped"   the instance (required;
//                                                           also fixes the exit code)
//   "expect.PROPERTY": status                               that property's verdict
//   "expect.PROPERTY.at": "p=8 rank=1 step=6 block=1"        its minimal counterexample
//   "expect.PROPERTY.root_cause": "rank 1 combined ..."      that counterexample's root cause (text)
//   "expect.PROPERTY.root_cause.kind": "counted-twice"       and its kind
// One parameterised test per file, so ctest names the case. The driver reads
// the folder whenever it runs; ctest's list of names is made when the driver
// is built, and a new file rebuilds it (tests/CMakeLists.txt), so: drop in a
// file, build, run ctest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/case_files.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kCases = fs::path(COLLCHECK_SOURCE_DIR) / "tests" / "data" / "regress";

bool is_case(const fs::path& p) { return p.extension() == ".json" || p.extension() == ".jsonl"; }

std::vector<fs::path> case_files() { return case_files_in(kCases, {".json", ".jsonl"}); }

// The file's "expect..." producer entries (JSON: the top level; JSON lines:
// the header line). A file without "expect" is a failing case, never a skipped one.
std::map<std::string, std::string> expectations(const fs::path& path, std::string& error) {
  std::map<std::string, std::string> out;
  try {
    std::ifstream in(path);
    json top;
    if (path.extension() == ".jsonl") {
      std::string header;
      std::getline(in, header);
      top = json::parse(header);
    } else {
      top = json::parse(in);
    }
    if (top.contains("producer"))
      for (const auto& [k, v] : top.at("producer").items())
        if (k == "expect" || k.rfind("expect.", 0) == 0) out[k] = v.get<std::string>();
  } catch (const json::exception& e) {
    error = std::string("cannot read the expectations: ") + e.what();
    return out;
  }
  if (!out.count("expect")) error = "the producer states no \"expect\" (the instance's expected status)";
  return out;
}

int exit_code_of(const std::string& status) {
  if (status == "holds") return 0;
  if (status == "violated") return 1;
  if (status == "unknown") return 3;
  if (status == "skipped") return 77;
  return -1;
}

class RegressCases : public ::testing::TestWithParam<fs::path> {};

TEST_P(RegressCases, VerdictsAsTheFileExpects) {
  const fs::path& path = GetParam();
  std::string error;
  const std::map<std::string, std::string> want = expectations(path, error);
  ASSERT_TRUE(error.empty()) << path << ": " << error;
  ASSERT_NE(exit_code_of(want.at("expect")), -1) << path << ": \"expect\" must be holds, violated, unknown or skipped";

  const Outcome r = run("check-file '" + path.string() + "' --format json");
  ASSERT_NE(r.code, 2) << path << ": not a readable schedule: " << r.err;
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << path << ": not a JSON report: " << r.out << r.err;
  const json& instance = report.at("instances").at(0);

  // What collcheck says, as "expect" entries, to show next to a mismatch.
  std::map<std::string, std::string> got = {{"expect", instance.at("status").get<std::string>()}};
  for (const json& v : instance.at("verdicts")) {
    const std::string key = "expect." + v.at("property").get<std::string>();
    got[key] = v.at("status").get<std::string>();
    if (v.contains("counterexample") && !v.at("counterexample").is_null()) {
      const json& cx = v.at("counterexample");
      got[key + ".at"] = cx.at("location").get<std::string>();
      if (cx.contains("root_cause") && !cx.at("root_cause").is_null()) {
        got[key + ".root_cause"] = cx.at("root_cause").at("text").get<std::string>();
        got[key + ".root_cause.kind"] = cx.at("root_cause").at("kind").get<std::string>();
      }
    }
  }
  std::string all;
  for (const auto& [k, v] : got) all += "\n  \"" + k + "\": \"" + v + "\"";

  EXPECT_EQ(r.code, exit_code_of(want.at("expect"))) << path << "\ncollcheck says:" << all;
  for (const auto& [key, value] : want) {
    auto it = got.find(key);
    EXPECT_TRUE(it != got.end() && it->second == value)
        << path << ": " << key << " expected \"" << value << "\", collcheck says "
        << (it == got.end() ? std::string("nothing") : "\"" + it->second + "\"") << "\ncollcheck says:" << all;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, RegressCases, ::testing::ValuesIn(case_files()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           return case_test_name(info.param.filename().string());
                         });

// The folder is not allowed to be empty or to hold files the driver ignores.
TEST(RegressCasesFolder, HoldsCasesAndNothingUnread) {
  EXPECT_FALSE(case_files().empty());
  for (const auto& e : fs::directory_iterator(kCases))
    EXPECT_TRUE(is_case(e.path()) || e.path().filename() == "README.md")
        << e.path() << ": the driver reads only *.json and *.jsonl schedule files and README.md";
}

}  // namespace
}  // namespace collcheck::test
