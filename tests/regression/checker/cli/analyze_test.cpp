// `collcheck analyze --algo tra` end to end (the real binary): the text table
// has Sec. III-B's K = 254 and D = 32512 at r = 128 for P = 16384 and marks
// sqrt(P) and the optimum; JSON lists every radix with measured counts equal
// to the propositions; HTML is one self-contained page with an inline SVG;
// bad input is one line on stderr and exit 2. Also the two TRA properties in
// `verify` (every radix, the printed TRA2 formula stat).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/run_binary.hpp"

namespace {

using collcheck::test::lines;
using collcheck::test::Outcome;
using collcheck::test::run;
using collcheck::test::temp_path;

// The table row of radix r (whitespace-separated columns: r w K "K (n)" D "D (n)" cost marks).
std::string row_of(const std::string& out, uint64_t r) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string first;
    f >> first;
    if (first == std::to_string(r) && line.find(" (") != std::string::npos) return line;
  }
  return "";
}

TEST(Analyze, SixteenThousandProcessesTable) {
  Outcome r = run("analyze --algo tra --p 16384");
  ASSERT_EQ(r.code, 1) << r.err;  // a judged statement differs (K = P at r = P): exit 1, as every analyze
  const std::string row = row_of(r.out, 128);
  ASSERT_FALSE(row.empty()) << r.out;
  std::istringstream f(row);
  std::string radix, w, K, Kp, Kp_src, D;
  f >> radix >> w >> K >> Kp >> Kp_src >> D;
  EXPECT_EQ(w, "2");
  EXPECT_EQ(K, "254");
  EXPECT_EQ(Kp, "254");
  EXPECT_EQ(Kp_src, "(1)");
  EXPECT_EQ(D, "32512");
  EXPECT_NE(row.find("<- sqrt(P)"), std::string::npos) << row;
  EXPECT_NE(r.out.find("sqrt(P) = 128.000: r = 128"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("optimum: r = "), std::string::npos);
  EXPECT_NE(r.out.find("measured vs propositions: no disagreement"), std::string::npos);
  // the defaults are stated, and the r = 2 and r = P rows are the paper's numbers
  EXPECT_NE(r.out.find("alpha = 2e-06 s, beta = 1e-10 s/byte, S = 1024 bytes"), std::string::npos);
  EXPECT_NE(row_of(r.out, 2).find("114688"), std::string::npos);
  EXPECT_NE(r.out.find("[differs] Sec. III-B: at r = P, K = P"), std::string::npos) << r.out;
}

TEST(Analyze, SmallPListsEveryRadixAndJsonEveryRadix) {
  Outcome t = run("analyze --algo tra --p 11");
  ASSERT_EQ(t.code, 1) << t.err;
  for (uint64_t r = 2; r <= 11; ++r) EXPECT_FALSE(row_of(t.out, r).empty()) << r << "\n" << t.out;
  std::istringstream f(row_of(t.out, 3));
  std::string radix, w, K, Kp, Kps, D;
  f >> radix >> w >> K >> Kp >> Kps >> D;
  EXPECT_EQ(K, "5");  // Fig. 3
  EXPECT_EQ(D, "15");

  Outcome j = run("analyze --algo tra --p 100 --format json --alpha 1e-6 --beta 2e-10 --block-bytes 64");
  ASSERT_EQ(j.code, 1) << j.err;
  const auto d = nlohmann::json::parse(j.out);
  EXPECT_EQ(d["p"], 100);
  EXPECT_EQ(d["block_bytes"], 64.0);
  ASSERT_EQ(d["radices"].size(), 99u);
  double best = 1e300;
  uint64_t best_r = 0;
  for (const auto& row : d["radices"]) {
    EXPECT_TRUE(row["measured"].get<bool>());
    if (!row["K_prop"].is_null()) {
      EXPECT_EQ(row["K_prop"], row["K"]) << row;
    }
    EXPECT_EQ(row["D_prop"], row["D"]) << row;
    const double cost = 1e-6 * row["K"].get<double>() + 2e-10 * row["D"].get<double>() * 64;
    EXPECT_NEAR(row["cost_seconds"].get<double>(), cost, 1e-12);
    if (cost < best) best = cost, best_r = row["r"];
  }
  EXPECT_EQ(d["optimum"]["r"], best_r);
  EXPECT_EQ(d["sqrt_floor"], 10);
  EXPECT_EQ(d["sqrt_ceil"], 10);
}

TEST(Analyze, HtmlIsOnePageWithAnSvgChart) {
  const std::string path = temp_path("analyze.html");
  Outcome r = run("analyze --algo tra --p 1000 --format html --out " + path);
  ASSERT_EQ(r.code, 1) << r.err;
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string html = ss.str();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("sqrt(P) (r = 32)"), std::string::npos);
  EXPECT_NE(html.find("optimum (r = "), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);  // no external resources
  EXPECT_EQ(html.find("href="), std::string::npos);
  std::remove(path.c_str());
}

TEST(Analyze, BadInputIsOneLineAndExitTwo) {
  for (const char* args : {"--algo swing --p 16", "--algo tra --p 1", "--algo tra --p 2^21", "--algo tra --p 16 --alpha -1",
                           "--algo tra --p 16 --beta x", "--algo tra --p 16 --block-bytes -5", "--algo tra --p 16 --alpha inf",
                           "--algo tra --p 16 --format xml", "--algo tra", "--p 16", "--algo tra --p 4..8"}) {
    Outcome r = run(std::string("analyze ") + args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

// One exit-code rule for every analyze (the outside audit: tra printed
// [differs] lines and exited 0, the torus analysis exits 1 on a failed
// claim): 1 exactly when a judged statement does not hold.
TEST(Analyze, ExitOneExactlyWhenAJudgedStatementDiffers) {
  for (const char* p : {"2", "3", "12", "16", "16383", "16384"}) {
    SCOPED_TRACE(p);
    const Outcome r = run(std::string("analyze --algo tra --format json --p ") + p);
    ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
    const auto d = nlohmann::json::parse(r.out);
    bool holds = d["disagreements"].empty();
    for (const auto& s : d["paper_statements"]) holds = holds && s["holds"].get<bool>();
    EXPECT_EQ(r.code, holds ? 0 : 1);
    EXPECT_FALSE(holds);  // Sec. III-B's K = P at r = P: K(P) = P - 1 at every P
  }
  const Outcome t = run("analyze --algo tra --p 12");
  EXPECT_EQ(t.code, 1);
  EXPECT_NE(t.out.find("[differs]"), std::string::npos) << t.out;
  const Outcome help = run("analyze --help");
  EXPECT_NE(help.out.find("1 one does not"), std::string::npos) << help.out;
}

TEST(Analyze, HelpStatesTheDefaults) {
  Outcome r = run("analyze --help");
  ASSERT_EQ(r.code, 0);
  for (const char* s : {"2e-6", "1e-10", "1024", "measured"}) EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(TraVerify, EveryRadixHoldsAndTheFormulasRun) {
  Outcome r = run("verify --algo tra --p 2..40 --radix all --properties alltoall-delivery,tra-formulas -q");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("780 hold"), std::string::npos) << r.out;  // sum_{P=2}^{40} (P-1)
  EXPECT_NE(r.out.find("propositions_histogram"), std::string::npos) << r.out;
}

TEST(TraVerify, Tra2PrintedFormulaIsAStatAndTheSweepHolds) {
  Outcome r = run("verify --algo tra2 --p 1..30 --format json -q");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto d = nlohmann::json::parse(r.out);
  bool seen = false;
  for (const auto& inst : d["instances"])
    for (const auto& v : inst["verdicts"])
      if (v["property"] == "tra-formulas" && inst["p"] == 4) {
        EXPECT_EQ(v["status"], "holds");
        EXPECT_NE(v["stats"]["printed_formula_disagrees_at"].get<std::string>().find("K1 printed (with P) 3 vs measured 1"),
                  std::string::npos);
        seen = true;
      }
  EXPECT_TRUE(seen);
  Outcome lit = run("verify --algo tra2 --variant paper-literal --p 3 --properties alltoall-delivery -q");
  EXPECT_EQ(lit.code, 1) << lit.out;
  EXPECT_NE(lit.out.find("p=3 rank=0 step=2 block=1"), std::string::npos) << lit.out;
}

}  // namespace
