// --smt2-dir: every dumped solver query must re-parse with Z3's own SMT-LIB2
// parser (z3::context::parse_string) and give the answer recorded in its
// header, for holding (unsat) and violated (sat) queries of every group.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "smt/parametric_proofs.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"
#include "smt/swing/swing_proofs.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::smt {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  fs::path d = fs::path(::testing::TempDir()) / (std::to_string(::getpid()) + "_smt2_" + name);
  fs::remove_all(d);
  return d.string();
}

std::string recheck(const std::string& text) {
  z3::context c;
  z3::solver s(c);
  for (const z3::expr& e : c.parse_string(text.c_str())) s.add(e);
  switch (s.check()) {
    case z3::unsat: return "unsat";
    case z3::sat: return "sat";
    default: return "unknown";
  }
}

// Runs f inside a scope on `dir`; returns how many files were re-checked.
template <class F>
int dump_and_recheck(const std::string& dir, const std::string& stem, F f, bool expect_sat) {
  {
    Smt2Scope scope(dir, stem);
    f();
  }
  int files = 0;
  bool saw_sat = false;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string text = test::read_file(e.path());
    std::string recorded = recorded_answer(text);
    EXPECT_TRUE(recorded == "sat" || recorded == "unsat") << e.path() << ": " << recorded;
    EXPECT_EQ(recheck(text), recorded) << e.path();
    EXPECT_NE(text.find("(check-sat)"), std::string::npos);
    saw_sat = saw_sat || recorded == "sat";
    ++files;
  }
  EXPECT_EQ(saw_sat, expect_sat) << stem;
  return files;
}

TEST(Smt2Dump, HoldingQueriesReparseAsUnsat) {
  std::string dir = fresh_dir("holds");
  EXPECT_EQ(dump_and_recheck(dir, "trivance", [] { prove_trivance_coverage(27, 60000); }, false), 2);
  std::string dir2 = fresh_dir("swing");
  // Inductive Swing proof: one file per lemma (k + 1 + 2 for p = 2^k).
  EXPECT_EQ(dump_and_recheck(dir2, "swing", [] { prove_swing_unique_paths(64, 60000); }, false), 6 + 1 + 2);
  std::string dir3 = fresh_dir("traff");
  EXPECT_EQ(dump_and_recheck(dir3, "traff", [] { prove_traff_tables(17, 60000); }, false), 5);
}

TEST(Smt2Dump, ViolatedQueriesReparseAsSat) {
  std::string dir = fresh_dir("violated");
  // Minimisation queries are not dumped: one file, the sat one.
  EXPECT_EQ(dump_and_recheck(dir, "hop", [] { prove_swing_hop_distance(5, 60000); }, true), 1);
  std::string dir2 = fresh_dir("involution");
  EXPECT_EQ(dump_and_recheck(dir2, "odd", [] { prove_swing_involution(7, 60000); }, true), 1);
}

TEST(Smt2Dump, NoScopeNoFiles) {
  std::string dir = fresh_dir("none");
  fs::create_directories(dir);
  prove_tra_route(9, 3, 60000);
  EXPECT_TRUE(fs::is_empty(dir));
}

}  // namespace
}  // namespace collcheck::smt
