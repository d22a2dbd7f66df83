// The verdict line end to end with the real binary: a sweep
// in which only the registry's paper readings (VariantInfo::expected_to_hold
// == false) fail says so instead of "do not deploy", in every format and for a
// stored sweep rendered by `report --db`; a violation anywhere else still says
// "do not deploy". The exit code stays 1 whenever a property is violated
// (README "Exit codes", docs/guide/options.md). The expected refutations are derived from the
// registry and from the JSON report of the same sweep, never typed in here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "schedules/registry.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

using json = nlohmann::json;

// The last line starting with `prefix`, without it.
std::string line_of(const std::string& out, const std::string& prefix) {
  std::string found;
  for (size_t at = 0; at < out.size();) {
    const size_t end = out.find('\n', at);
    const std::string line = out.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind(prefix, 0) == 0) found = line.substr(prefix.size());
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return found;
}

// Swing's variants declared refuted on purpose, by the registry.
std::set<std::string> swing_paper_readings() {
  std::set<std::string> out;
  for (const VariantInfo& v : find_algorithm("swing")->variants)
    if (!v.expected_to_hold && !v.takes("dims")) out.insert("swing/" + v.name);  // the ring readings (no --dims)
  return out;
}

const char* kSweep = "verify --algo swing --variant all --p 1..16 --skip-restricted --quiet";

TEST(VerdictLine, OnlyPaperReadingsFailSaysHoldsForEveryDeployableVariant) {
  const Outcome j = run(std::string(kSweep) + " --format json");
  ASSERT_EQ(j.code, 1) << "a violated property still exits 1\n" << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report.at("status"), "violated");
  const json& d = report.at("deployment");
  EXPECT_EQ(d.at("verdict"), "deploy");
  EXPECT_TRUE(d.at("unexpected_violations").empty()) << d;
  // Every failing group is a paper reading, and every paper reading that fails is listed.
  std::set<std::string> failing, listed;
  for (const json& g : report.at("groups")) {
    const std::string label = g.at("algorithm").get<std::string>() + "/" + g.at("variant").get<std::string>();
    EXPECT_EQ(g.at("expected_refutation").get<bool>(), swing_paper_readings().count(label) == 1) << label;
    if (g.at("status") == "violated") failing.insert(label);
  }
  for (const json& e : d.at("expected_refutations")) listed.insert(e.at("group"));
  EXPECT_EQ(listed, failing);
  EXPECT_EQ(failing, swing_paper_readings()) << "every Swing paper reading fails somewhere in p = 1..16";

  const Outcome t = run(kSweep);
  EXPECT_EQ(t.code, 1);
  const std::string verdict = line_of(t.out, "VERDICT: ");
  EXPECT_EQ(verdict, d.at("line").get<std::string>());
  EXPECT_EQ(verdict.rfind("holds for every deployable variant; " + std::to_string(failing.size()) +
                              " expected refutations of paper readings: swing/paper-",
                          0),
            0u)
      << verdict;
  EXPECT_EQ(verdict.find("do not deploy"), std::string::npos);
  EXPECT_EQ(line_of(t.out, "RESULT: "), "violated");
  for (const std::string& g : failing)
    EXPECT_NE(t.out.find(g + " (allreduce): violated (expected refutation of a paper reading)"), std::string::npos)
        << g << "\n" << t.out;

  const Outcome md = run(std::string(kSweep) + " --format markdown");
  EXPECT_NE(md.out.find("- verdict: holds for every deployable variant; "), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("## Counterexamples"), std::string::npos);
  const Outcome html = run(std::string(kSweep) + " --format html");
  EXPECT_NE(html.out.find("<div class=\"banner holds\" data-verdict=\"deploy\">"), std::string::npos);
  EXPECT_EQ(html.out.find("do not deploy"), std::string::npos);
  const Outcome xml = run(std::string(kSweep) + " --format junit");
  EXPECT_EQ(xml.out.find("type=\"violated\""), std::string::npos);
  EXPECT_NE(xml.out.find("type=\"expected-refutation\""), std::string::npos);
}

TEST(VerdictLine, AStoredSweepKeepsTheDistinction) {
  const std::string db = temp_path("verdict.sqlite");
  std::remove(db.c_str());
  const Outcome v = run(std::string(kSweep) + " --db " + db);
  ASSERT_EQ(v.code, 1) << v.err;
  const Outcome r = run("report --db " + db);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(line_of(r.out, "VERDICT: "), line_of(v.out, "VERDICT: "));
  EXPECT_EQ(line_of(r.out, "VERDICT: ").rfind("holds for every deployable variant; ", 0), 0u) << r.out;
}

TEST(VerdictLine, OnlyAPaperReadingChecked) {
  const Outcome o = run("verify --algo swing --variant paper-listing1 --p 6 --quiet");
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(line_of(o.out, "VERDICT: "),
            "no deployable variant checked; 1 expected refutation of a paper reading: swing/paper-listing1 (p=6)");
  // The threaded executor's report makes the same distinction.
  const Outcome x = run("run --algo swing --variant paper-listing1 --p 6");
  EXPECT_EQ(x.code, 1);
  EXPECT_EQ(line_of(x.out, "VERDICT: "), line_of(o.out, "VERDICT: "));
}

TEST(VerdictLine, HoldingVariantsSayHolds) {
  const Outcome o = run("verify --algo ring --p 1..16 --quiet");
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(line_of(o.out, "VERDICT: "), "holds for every deployable variant");
  // Paper readings that hold wherever they were checked (here: only the hop
  // distance, which they keep) are named, not counted as refutations.
  const Outcome h =
      run("verify --algo swing --variant all --p 1..16 --skip-restricted --properties swing-hop-distance --quiet");
  EXPECT_EQ(h.code, 0) << h.out << h.err;
  std::string names;
  for (const std::string& g : swing_paper_readings()) names += (names.empty() ? "" : ", ") + g;
  ASSERT_GT(swing_paper_readings().size(), 1u);
  EXPECT_EQ(line_of(h.out, "VERDICT: "), "holds for every deployable variant; " + names +
                                             " (paper readings expected to be refuted) hold at every p checked here");
}

}  // namespace
}  // namespace collcheck::test
