// The bad-input regression corpus: every adversarial input an outside audit
// or anyone since found is one file tests/data/bad-input/NAME.case
// stating the command, the expected exit code and the exact first line of
// stderr. One parameterised test per case file, so ctest names the case.
//
// Case format (tests/data/bad-input/README.md):
//   # comment lines: the defect this input exposed
//   run: /bin/sh command line; $COLLCHECK, $COLLCHECK_MPI, $DATA (the corpus
//        folder, inputs in $DATA/inputs/), $TMP (a fresh empty folder per case)
//   exit: expected exit code
//   stderr: expected first line of stderr, exactly ($TMP written as "$TMP")
//   check: optional, repeatable: a /bin/sh command that must exit 0 afterwards
//   dry-run: optional, "no (REASON)": the case is not run with --dry-run
//
// Every case whose expected exit is 2 also runs with --dry-run added to its
// last collcheck or collcheck-mpi invocation (right after the program), and
// must give the same exit code and the same first line of stderr: a dry run
// answers what the run would answer for bad input. A case opts out with
// `dry-run: no (REASON)` where that cannot hold: the failure is writing an
// output (/dev/full), needs MPI or p, or an input file's content.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/case_files.hpp"
#include "tests/support/run_binary.hpp"

#ifndef COLLCHECK_MPI_BINARY
#define COLLCHECK_MPI_BINARY ""
#endif

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(COLLCHECK_SOURCE_DIR) / "tests" / "data" / "bad-input";

struct Case {
  std::string name;
  std::string run;
  int exit = -1;
  bool has_stderr = false;
  std::string stderr_line;
  std::vector<std::string> checks;
  std::string no_dry_run;  // dry-run: no (REASON): the reason
  std::string error;  // a malformed case file is a failing test, never a skipped one
};

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

Case parse_case(const fs::path& path) {
  Case c;
  c.name = path.stem().string();
  std::ifstream in(path);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim(line).empty() || line[0] == '#') continue;
    const auto colon = line.find(':');
    const std::string key = colon == std::string::npos ? "" : line.substr(0, colon);
    const std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + 1));
    if (key == "run" && c.run.empty()) {
      c.run = value;
    } else if (key == "exit" && c.exit < 0) {
      try {
        c.exit = std::stoi(value);
      } catch (const std::exception&) {
        c.error = "line " + std::to_string(lineno) + ": exit is not a number";
      }
    } else if (key == "stderr" && !c.has_stderr) {
      c.has_stderr = true;
      c.stderr_line = line.substr(colon + 1);
      if (!c.stderr_line.empty() && c.stderr_line[0] == ' ') c.stderr_line.erase(0, 1);
    } else if (key == "check") {
      c.checks.push_back(value);
    } else if (key == "dry-run" && c.no_dry_run.empty()) {
      if (value.rfind("no (", 0) != 0 || value.size() < 6 || value.back() != ')')
        c.error = "line " + std::to_string(lineno) + ": dry-run takes 'no (REASON)'";
      else
        c.no_dry_run = value.substr(4, value.size() - 5);
    } else if (c.error.empty()) {
      c.error = "line " + std::to_string(lineno) +
                ": expected run:, exit:, stderr:, check: or dry-run: (once each but check)";
    }
  }
  if (c.error.empty() && (c.run.empty() || c.exit < 0 || !c.has_stderr))
    c.error = "a case needs run:, exit: and stderr:";
  if (c.error.empty() && !c.no_dry_run.empty() && c.exit != 2)
    c.error = "dry-run: no applies to cases of exit 2 (the others are not run with --dry-run)";
  return c;
}

// `run` with --dry-run right after its last $COLLCHECK or $COLLCHECK_MPI
// (both programs take it anywhere); "" if it invokes neither.
std::string with_dry_run(const std::string& run) {
  const size_t mpi = run.rfind("$COLLCHECK_MPI"), plain = run.rfind("$COLLCHECK");
  if (plain == std::string::npos) return "";
  const size_t end = mpi != std::string::npos && mpi == plain ? mpi + 14 : plain + 10;
  return run.substr(0, end) + " --dry-run" + run.substr(end);
}

std::vector<fs::path> case_files() { return case_files_in(kCorpus, {".case"}); }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); !from.empty() && at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string shell_quote(const std::string& s) { return "'" + replace_all(s, "'", "'\\''") + "'"; }

class BadInputCorpus : public ::testing::TestWithParam<fs::path> {};

// The variables a case's commands read, with $TMP = `tmp`.
std::string case_env(const fs::path& tmp) {
  // Open MPI puts a session directory under $TMP when TMPDIR is unset, and a
  // collcheck-mpi singleton's daemon removes it after the case has ended,
  // racing the remove_all below: its session directory goes to the system's.
  return "COLLCHECK=" + shell_quote(COLLCHECK_BINARY) + " COLLCHECK_MPI=" + shell_quote(COLLCHECK_MPI_BINARY) +
         " DATA=" + shell_quote(kCorpus.string()) + " TMP=" + shell_quote(tmp.string()) +
         " OMPI_MCA_orte_tmpdir_base=" + shell_quote(fs::temp_directory_path().string()) + " ";
}

// A fresh, empty $TMP for one run of a case.
fs::path fresh_tmp(const std::string& name) {
  const fs::path tmp = temp_path(name);
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  return tmp;
}

TEST_P(BadInputCorpus, ExitCodeAndFirstStderrLine) {
  const Case c = parse_case(GetParam());
  ASSERT_TRUE(c.error.empty()) << GetParam() << ": " << c.error;
  const fs::path tmp = fresh_tmp("corpus_" + c.name);
  const std::string env = case_env(tmp);
  // A hang is a defect too (the old `analyze --alpha 1e308 --format html`):
  // coreutils' timeout ends it with exit 124, which no case expects.
  const Outcome r = run_command(env + "timeout 300 /bin/sh -c " + shell_quote(c.run));
  EXPECT_EQ(r.code, c.exit) << c.name << ": " << c.run << "\nstderr: " << r.err;
  EXPECT_EQ(replace_all(first_line(r.err), tmp.string(), "$TMP"), c.stderr_line) << c.name << ": " << c.run;
  for (const std::string& check : c.checks) {
    const Outcome k = run_command(env + "timeout 300 /bin/sh -c " + shell_quote(check));
    EXPECT_EQ(k.code, 0) << c.name << ": check failed: " << check << "\n" << k.out << k.err;
  }
  fs::remove_all(tmp);
}

// Bad input is found by --dry-run as by the run: the same exit code and
// first line of stderr (a dry run has nothing else to say).
TEST_P(BadInputCorpus, DryRunAnswersAsTheRun) {
  const Case c = parse_case(GetParam());
  ASSERT_TRUE(c.error.empty()) << GetParam() << ": " << c.error;
  if (c.exit != 2 || !c.no_dry_run.empty()) return;  // not bad input, or opted out with its reason
  const std::string run = with_dry_run(c.run);
  ASSERT_FALSE(run.empty()) << c.name << ": runs neither $COLLCHECK nor $COLLCHECK_MPI; say 'dry-run: no (REASON)'";
  const fs::path tmp = fresh_tmp("corpus_dry_" + c.name);
  const Outcome r = run_command(case_env(tmp) + "timeout 300 /bin/sh -c " + shell_quote(run));
  EXPECT_EQ(r.code, c.exit) << c.name << ": " << run << "\nstderr: " << r.err;
  EXPECT_EQ(replace_all(first_line(r.err), tmp.string(), "$TMP"), c.stderr_line) << c.name << ": " << run;
  fs::remove_all(tmp);
}

TEST(BadInputCorpusDryRun, GoesAfterTheLastInvocation) {
  EXPECT_EQ(with_dry_run("$COLLCHECK verify --p 0"), "$COLLCHECK --dry-run verify --p 0");
  EXPECT_EQ(with_dry_run("$COLLCHECK_MPI --count -1"), "$COLLCHECK_MPI --dry-run --count -1");
  EXPECT_EQ(with_dry_run("$COLLCHECK dump --out $TMP/f; $COLLCHECK_MPI --schedule $TMP/f"),
            "$COLLCHECK dump --out $TMP/f; $COLLCHECK_MPI --dry-run --schedule $TMP/f");
  EXPECT_EQ(with_dry_run("$COLLCHECK_MPI --algo ring; $COLLCHECK list x"), "$COLLCHECK_MPI --algo ring; $COLLCHECK --dry-run list x");
  EXPECT_EQ(with_dry_run("cat x"), "");
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputCorpus, ::testing::ValuesIn(case_files()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           return case_test_name(info.param.stem().string());
                         });

// The corpus is not allowed to be empty or to hold files the driver ignores.
TEST(BadInputCorpusFolder, HoldsCasesAndNothingUnread) {
  EXPECT_FALSE(case_files().empty());
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    const bool known = e.path().extension() == ".case" || (e.is_directory() && e.path().filename() == "inputs") ||
                       e.path().filename() == "README.md";
    EXPECT_TRUE(known) << e.path() << ": the driver reads only *.case files, README.md and inputs/";
  }
}

}  // namespace
}  // namespace collcheck::test
