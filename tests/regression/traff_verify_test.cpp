// `collcheck verify` on Träff's schedules end to end: the algorithm-specific
// properties traff-conditions and traff-bounds run on every instance of every
// traff-* algorithm, `--properties` selects what runs, and the reports carry
// the bounds' distributions per p and summed over the sweep (recounted here
// from the per-rank computation, not taken from the tool).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "schedules/traff_circulant.hpp"
#include "tests/support/run_binary.hpp"

namespace {

using collcheck::test::lines;
using collcheck::test::Outcome;
using collcheck::test::run;

// "0:N0 1:N1 ..." of the ranks' violation counts over p in [lo, hi].
std::string violations_histogram(uint64_t lo, uint64_t hi) {
  std::map<int, uint64_t> h;
  for (uint64_t p = lo; p <= hi; ++p) {
    const auto skip = collcheck::traff::skips(p);
    for (uint64_t r = 0; r < p; ++r) ++h[collcheck::traff::rank_schedule(r, skip).violations];
  }
  std::string out;
  for (int i = 0; i < 5 || h.count(i); ++i)
    out += (out.empty() ? "" : " ") + std::to_string(i) + ":" + std::to_string(h.count(i) ? h[i] : 0);
  return out;
}

TEST(TraffVerify, TablePropertiesRunWithTheGenericOnes) {
  Outcome r = run("verify --algo traff --p 1..40 --n 3 --quiet -v");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const char* prop : {"traff-conditions holds", "traff-bounds holds", "exactly-once holds", "causality holds"})
    EXPECT_NE(r.out.find(prop), std::string::npos) << prop << "\n" << r.out;
  EXPECT_NE(r.out.find("traff-bounds over the sweep: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("violations_histogram " + violations_histogram(1, 40)), std::string::npos) << r.out;
}

TEST(TraffVerify, PropertiesSelectsTheTableCheckAlone) {
  Outcome r = run("verify --algo traff --p 2^16,1000..1010 --properties traff-conditions,traff-bounds --quiet -v");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("exactly-once"), std::string::npos) << r.out;
  // Every instance holds with the same verdicts: one verbose line for the sweep.
  EXPECT_NE(r.out.find("p=1000..1010, 65536: holds (12 instances): traff-conditions holds; traff-bounds holds\n"),
            std::string::npos)
      << r.out;
  // Lemma 5's slack over the sweep: the maximum of (recursive calls - (q-1)) is
  // at most 0 (reached: some rank needs exactly q-1 calls).
  EXPECT_NE(r.out.find("max_recursion_excess 0;"), std::string::npos) << r.out;
}

TEST(TraffVerify, JsonCarriesPerInstanceAndSweepDistributions) {
  Outcome r = run("verify --algo traff --p 17,18 --properties traff-bounds --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& group = j.at("groups").at(0);
  EXPECT_EQ(group.at("distributions").at("traff-bounds").at("violations_histogram"), violations_histogram(17, 18));
  bool seen17 = false;
  for (const auto& inst : j.at("instances"))
    if (inst.at("p") == 17) {
      seen17 = true;
      EXPECT_EQ(inst.at("verdicts").at(0).at("stats").at("violations_histogram"), "0:1 1:10 2:6 3:0 4:0");
    }
  EXPECT_TRUE(seen17);
}

TEST(TraffVerify, EveryTraffAlgorithmRunsTheTableProperties) {
  Outcome r = run("verify --algo all --p 5 --properties traff-conditions --skip-restricted --quiet -v");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("traff/broadcast"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("traff-allgather/allgather"), std::string::npos) << r.out;
  // Algorithms without the property are reported as skipped, saying why.
  EXPECT_NE(r.out.find("none of the selected properties applies"), std::string::npos) << r.out;
}

// Swing's hop distance is computed with the generic properties: selecting it
// alone still runs it (and only it is reported).
TEST(TraffVerify, SwingHopDistanceAloneIsChecked) {
  Outcome r = run("verify --algo swing --p 2..16 --properties swing-hop-distance --quiet -v");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("p=2..16: holds (15 instances): swing-hop-distance holds\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("exactly-once"), std::string::npos) << r.out;
}

void expect_bad_input(const std::string& args, const std::string& needle) {
  SCOPED_TRACE(args);
  Outcome r = run(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(TraffVerify, BadPropertySelectionIsBadInput) {
  expect_bad_input("verify --algo traff --p 4 --properties nosuch", "unknown property 'nosuch'");
  expect_bad_input("verify --algo swing --p 4 --properties traff-bounds", "applies to none");
  expect_bad_input("verify --algo traff --p 4 --properties traff-bounds,,cost", "empty item");
  expect_bad_input("verify --algo traff --p 4 --properties traff-bounds,", "empty item");
  expect_bad_input("verify --algo traff --p 0 --properties traff-bounds", "p must be >= 1");
  expect_bad_input("verify --algo traff --p 4 --n 0", "");
  expect_bad_input("verify --algo traff --p 4 --root 4", "root");
}

}  // namespace
