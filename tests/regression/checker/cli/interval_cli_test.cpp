// The interval bookkeeping on the real binary (verify --state):
//   * --state intervals and --state dense give the same verdicts (status,
//     checks, violations, counterexample) on a holding instance and on a
//     refuted paper rule, and the report says which bookkeeping ran;
//   * --state auto picks intervals for Swing's contiguous blocks at p = 4096
//     and dense for the paper's scattered numbering at odd p = 4095 of
//     paper-odd (at even p the paper numbering is decided by its quotient,
//     at odd p of the default by a fold composition over it, so no per-rank
//     state is chosen at all);
//   * bad input: an unknown --state, or --state intervals with --mode exact,
//     is one line and exit 2; Trivance bandwidth-contiguous outside n = 3^s
//     is refused by its restriction (exit 2); a valid instance over the
//     dense limit that no method decides (no quotient, no composition,
//     transfers too scattered for intervals) is not decided (exit 3), never
//     attempted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_binary.hpp"

namespace collcheck {
namespace {

using nlohmann::json;
using test::run;

json instance(const std::string& args) {
  auto r = run("verify " + args + " --format json -q");
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.out << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j.at("instances").size(), 1u);
  return j.at("instances").at(0);
}

void expect_same_verdicts(const json& a, const json& b) {
  ASSERT_EQ(a.at("verdicts").size(), b.at("verdicts").size());
  for (size_t i = 0; i < a.at("verdicts").size(); ++i) {
    const json& x = a.at("verdicts")[i];
    const json& y = b.at("verdicts")[i];
    EXPECT_EQ(x.at("property"), y.at("property"));
    EXPECT_EQ(x.at("status"), y.at("status")) << x.at("property");
    EXPECT_EQ(x.at("checks"), y.at("checks")) << x.at("property");
    EXPECT_EQ(x.at("violations"), y.at("violations")) << x.at("property");
    EXPECT_EQ(x.value("counterexample", json()), y.value("counterexample", json())) << x.at("property");
  }
}

TEST(IntervalCli, SameVerdictsAsDense) {
  for (const std::string args : {"--algo swing --variant bandwidth-contiguous --p 1024 --mode fingerprint",
                                 "--algo swing --variant paper-listing1 --p 24 --mode fingerprint",
                                 "--algo trivance --variant bandwidth-contiguous --p 243 --mode fingerprint"}) {
    SCOPED_TRACE(args);
    json iv = instance(args + " --state intervals"), dense = instance(args + " --state dense");
    expect_same_verdicts(iv, dense);
    EXPECT_EQ(iv.at("stats").at("method"), "intervals: per-rank block ranges -> (count, 61-bit weighted sum), merged when equal");
    EXPECT_FALSE(dense.at("stats").contains("method"));
  }
  // The refuted rule really is refuted (the comparison covers a violation).
  EXPECT_EQ(instance("--algo swing --variant paper-listing1 --p 24 --mode fingerprint --state intervals").at("status"),
            "violated");
}

// --state intervals is honoured at every p: with --mode auto it means
// fingerprint mode also below --exact-max-p (not exact sets in silence).
TEST(IntervalCli, IntervalsImplyFingerprintMode) {
  const json small = instance("--algo swing --variant bandwidth-contiguous --p 64 --state intervals");
  EXPECT_TRUE(small.at("stats").contains("method"));
  EXPECT_NE(small.at("stats").at("mode").get<std::string>().find("fingerprint"), std::string::npos);
}

TEST(IntervalCli, AutoPicksByTheShapeOfTheTransfers) {
  EXPECT_TRUE(instance("--algo swing --variant bandwidth-contiguous --p 4096").at("stats").contains("method"));
  // (paper-odd-later where its extra rank leaves a ring rank unserved,
  // p - 1 = 2^11: an odd p no composition takes; the default's odd p are a
  // fold composition, below, and paper-odd's elsewhere the extra-node one.)
  EXPECT_FALSE(instance("--algo swing --variant paper-odd-later --p 2049").at("stats").contains("method"));
  EXPECT_EQ(instance("--algo swing --variant paper-odd --p 4095").at("stats").at("method").get<std::string>().rfind(
                "composition: the extra rank", 0),
            0u);
  EXPECT_EQ(instance("--algo swing --variant bandwidth --p 4096").at("stats").at("method").get<std::string>().rfind(
                "quotient: ", 0),
            0u);
}

// Even p of the same variant: the certified quotient with rank 0 as groups
// of blocks decides it, exactly; odd p: the fold composition over it.
TEST(IntervalCli, OverTheDenseLimitTheGroupedQuotientAndTheFoldDecide) {
  const std::string method = instance("--algo swing --variant bandwidth --p 2^18").at("stats").at("method");
  EXPECT_EQ(method.rfind("quotient: ", 0), 0u) << method;
  EXPECT_NE(method.find("groups of blocks"), std::string::npos) << method;
  const json odd = instance("--algo swing --variant bandwidth --p 262143 --max-memory none");
  EXPECT_EQ(odd.at("status"), "holds");
  EXPECT_EQ(odd.at("stats").at("method").get<std::string>().rfind("composition: ", 0), 0u);
}

// A valid instance that no method decides (paper-odd-later where its extra
// rank leaves a ring rank unserved, p - 1 = 2^17: the extra-node
// composition declines, a dense state over 2^32 cells, transfers too
// scattered for intervals) is not decided: exit 3 with the reason, never
// bad input. paper-odd at 262143 is decided by the composition, and so is
// paper-odd-later where its ring sends a rank's own block (2^17 < 140000 <
// 4/3 2^17).
TEST(IntervalCli, AValidInstanceNoMethodDecidesIsExit3) {
  auto r = run("verify --algo swing --variant paper-odd-later --p 131073 --max-memory none");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("not decided: p * nblocks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("too scattered for interval"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("extra-node composition: ring rank 131071 never exchanges with the extra rank"),
            std::string::npos)
      << r.out;
  auto own = run("verify --algo swing --variant paper-odd-later --p 140001 --max-memory none");
  EXPECT_EQ(own.code, 1) << own.out << own.err;  // the expected refutation, by the composition
  EXPECT_NE(own.out.find("[composition]"), std::string::npos) << own.out;
  auto odd = run("verify --algo swing --variant paper-odd --p 262143 --max-memory none");
  EXPECT_EQ(odd.code, 1) << odd.out << odd.err;  // ports, at the extra rank: the expected refutation
  EXPECT_NE(odd.out.find("[composition]"), std::string::npos) << odd.out;
}

TEST(IntervalCli, BadInput) {
  for (const std::string args : {"verify --algo swing --p 8 --state sparse",
                                 "verify --algo swing --p 8 --mode exact --state intervals",
                                 "verify --algo trivance --variant bandwidth-contiguous --p 10"}) {
    auto r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(test::lines(r.err), 1u) << args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace collcheck
