// Swing on tori through the real binary:
//   * --algo swing --dims picks the torus variants (default torus-bandwidth,
//     "all" = the four torus variants), without --dims the ring ones;
//   * the goal shapes hold in both corrected variants with every property,
//     swing-torus-ports included, and the refuted readings of the text fail
//     with their minimal counterexample at p = 4 (--dims 4) and nowhere in
//     2x2 (a side of 2 has one step, delta(0) = rho(0));
//   * dump and run (threaded executor) accept --dims, and a dumped torus
//     schedule is judged alike by check-file;
//   * bad input: sides that are not powers of two, --dims on a ring variant,
//     a torus variant without --dims, a shape whose product is not p: one
//     line, exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

using nlohmann::json;

json report(const std::string& args) {
  const Outcome r = run(args + " --format json --quiet");
  EXPECT_TRUE(r.code == 0 || r.code == 1) << args << "\n" << r.err;
  return json::parse(r.out);
}

std::set<std::string> variants_of(const json& j) {
  std::set<std::string> out;
  for (const json& i : j.at("instances")) out.insert(i.at("variant").get<std::string>());
  return out;
}

TEST(SwingTorusCli, DimsSelectsTheTorusVariants) {
  EXPECT_EQ(variants_of(report("verify --algo swing --dims 4x4")), std::set<std::string>{"torus-bandwidth"});
  EXPECT_EQ(variants_of(report("verify --algo swing --variant all --dims 4x4")),
            (std::set<std::string>{"torus-bandwidth", "torus-latency", "torus-paper-delta", "torus-paper-delta-latency"}));
  const std::set<std::string> ring = variants_of(report("verify --algo swing --variant all --p 4 --skip-restricted"));
  EXPECT_TRUE(ring.count("bandwidth"));
  for (const std::string& v : ring) EXPECT_EQ(v.rfind("torus-", 0), std::string::npos) << v;
}

TEST(SwingTorusCli, GoalShapesHoldAndTheTextsReadingsFail) {
  const json j = report("verify --algo swing --variant all --dims 2x2,2x4,4x4,4x8,8x8,4x4x4,2x4x8 --skip-restricted");
  int judged = 0;
  for (const json& i : j.at("instances")) {
    const std::string v = i.at("variant");
    const std::string where = v + " " + i.at("params").get<std::string>();
    std::set<std::string> failed;
    for (const json& x : i.at("verdicts"))
      if (x.at("status") == "violated") failed.insert(x.at("property"));
    bool ports_ran = false;
    for (const json& x : i.at("verdicts")) ports_ran |= x.at("property") == "swing-torus-ports";
    EXPECT_TRUE(ports_ran) << where;
    ++judged;
    if (v == "torus-bandwidth" || v == "torus-latency") {
      EXPECT_TRUE(failed.empty()) << where;
    } else if (i.at("p") == 4) {  // 2x2: one step per side, delta(0) = rho(0)
      EXPECT_TRUE(failed.empty()) << where;
    } else {
      EXPECT_TRUE(failed.count("exactly-once") && failed.count("postcondition")) << where;
      EXPECT_FALSE(failed.count("swing-torus-ports")) << where;
    }
  }
  EXPECT_EQ(judged, 4 * 7);
  // The minimal counterexample of the text's reading.
  const Outcome r = run("verify --algo swing --variant torus-paper-delta --dims 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("minimal counterexample: p=4 dims=4 rank=0 step=1 block=0 peer=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected refutation of a paper reading"), std::string::npos) << r.out;
}

// Two shapes of one p are two instances: the counterexample names its shape
// (it named p alone, though 2x2 holds and 4 fails), in every human format.
TEST(SwingTorusCli, CounterexampleNamesItsShape) {
  const std::string sweep = "verify --algo swing --variant torus-paper-delta --dims 2x2,4 -q";
  const Outcome text = run(sweep);
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_NE(text.out.find("minimal counterexample: p=4 dims=4 rank=0 step=1 block=0 peer=1\n"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("dims=2x2 rank="), std::string::npos) << text.out;
  const Outcome md = run(sweep + " --format markdown");
  EXPECT_NE(md.out.find("- location: `p=4 dims=4 rank=0 step=1 block=0 peer=1`"), std::string::npos) << md.out;
  const Outcome html = run(sweep + " --format html");
  EXPECT_NE(html.out.find("<code>p=4 dims=4 rank=0 step=1 block=0 peer=1</code>"), std::string::npos);
}

TEST(SwingTorusCli, DumpAndRun) {
  const Outcome d = run("dump --algo swing --dims 2x4");
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_FALSE(d.out.empty());
  const Outcome x = run("run --algo swing --variant torus-latency --dims 4x4");
  EXPECT_EQ(x.code, 0) << x.out << x.err;
  // A dumped torus schedule is checked from the file alone (check-file):
  // the default holds, the text's reading is refuted the same way.
  for (const auto& [variant, code] : {std::pair<std::string, int>{"torus-bandwidth", 0}, {"torus-paper-delta", 1}}) {
    const std::string file = temp_path("swing-" + variant + "-4x4.json");
    ASSERT_EQ(run("dump --algo swing --variant " + variant + " --dims 4x4 --format json --out " + file).code, 0);
    const Outcome c = run("check-file " + file);
    EXPECT_EQ(c.code, code) << variant << "\n" << c.out << c.err;
    EXPECT_NE(c.out.find("params=dims=4x4"), std::string::npos) << c.out;
    if (code == 1) {
      EXPECT_NE(c.out.find("exactly-once violated at p=16"), std::string::npos) << c.out;
    }
  }
}

TEST(SwingTorusCli, BadInput) {
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"verify --algo swing --dims 6x4", "powers of two, got 6"},
           {"verify --algo swing --dims 3", "powers of two, got 3"},
           {"verify --algo swing --variant bandwidth --dims 4x4", "--dims does not apply to swing/bandwidth"},
           {"verify --algo swing --variant torus-latency --p 16", "needs a torus shape"},
           {"verify --algo swing --dims 4x4 --p 32", "disagrees with --dims"},
           {"verify --algo swing --dims 4x0", "must be >= 1"}}) {
    expect_one_line_error(args, needle);
  }
}

}  // namespace
}  // namespace collcheck::test
