// Distributed sweeps (checker/sweep/mpi_shard.hpp): `mpirun -np K collcheck verify
// ...` with K = 2 and 4 against the same command without mpirun. The JSON
// reports must be identical once the timing fields ("seconds") are removed
// (same instances in the same order, same verdicts and counterexamples,
// groups, notes, command), the text reports identical but for "seconds=",
// and the exit codes equal: a sweep with violations (Swing's literal paper
// rules, exit 1), one that holds (exit 0), --radix all (several instances per
// p), more ranks than instances, everything skipped (77) and bad input (2,
// one error line, not one per rank), a report mpirun cannot write (2, as in
// one process) and mpirun's own decorations kept. Plain `collcheck` (no launcher) and
// `collcheck --help` under mpirun are unaffected. The results store under
// mpirun and the other subcommands: store_shard_test.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/mpi_env.hpp"
#include "tests/support/run_binary.hpp"

namespace {

using collcheck::test::Outcome;
using collcheck::test::read_file;
using collcheck::test::run_command;
using collcheck::test::temp_path;

Outcome single(const std::string& args) { return run_command(std::string(COLLCHECK_BINARY) + " " + args); }

Outcome sharded(int np, const std::string& args) {
  return run_command(std::string(COLLCHECK_MPIEXEC) + " -np " + std::to_string(np) + " " +
                     COLLCHECK_BINARY + " " + args);
}

nlohmann::json without_timing(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("seconds");
    for (auto& [k, v] : j.items()) v = without_timing(v);
  } else if (j.is_array()) {
    for (auto& v : j) v = without_timing(v);
  }
  return j;
}

std::string text_without_timing(const std::string& s) {
  return std::regex_replace(s, std::regex("seconds=[0-9.e+-]+"), "seconds=*");
}

// The JSON and text reports of `args` alone and on 2 and 4 ranks; returns
// the single-process exit code.
int expect_identical(const std::string& args) {
  const Outcome one = single(args + " --format json -q");
  EXPECT_TRUE(one.code == 0 || one.code == 1) << one.err;
  const auto want = without_timing(nlohmann::json::parse(one.out));
  const Outcome one_text = single(args + " -q");
  for (int np : {2, 4}) {
    const Outcome many = sharded(np, args + " --format json -q");
    EXPECT_EQ(many.code, one.code) << "np " << np << "\n" << many.err;
    nlohmann::json got;
    try {
      got = without_timing(nlohmann::json::parse(many.out));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "np " << np << ": not JSON: " << e.what() << "\n" << many.out << many.err;
      continue;
    }
    EXPECT_EQ(got.dump(1), want.dump(1)) << "np " << np;
    const Outcome text = sharded(np, args + " -q");
    EXPECT_EQ(text.code, one.code);
    EXPECT_EQ(text_without_timing(text.out), text_without_timing(one_text.out)) << "np " << np;
  }
  return one.code;
}

TEST(ShardedSweep, ViolationsAreIdentical) {
  // Every Swing variant; the refuted paper rules fail with counterexamples.
  EXPECT_EQ(expect_identical("verify --algo swing --variant all --p 1..24 --skip-restricted"), 1);
  // Only the paper readings fail, as expected; the sharded reports say the same
  // (identical above): the verdict comes from the sweep's targets, not from the
  // instances rank 0 happened to check itself.
  const Outcome one = single("verify --algo swing --variant all --p 1..24 --skip-restricted --format json -q");
  EXPECT_EQ(nlohmann::json::parse(one.out).at("deployment").at("verdict"), "deploy");
}

TEST(ShardedSweep, HoldingSweepIsIdentical) {
  EXPECT_EQ(expect_identical("verify --algo swing --p 1..40"), 0);
}

TEST(ShardedSweep, SeveralInstancesPerPAreIdentical) {
  EXPECT_EQ(expect_identical("verify --algo tra --p 2..12 --radix all --properties alltoall-delivery,tra-formulas"), 0);
}

TEST(ShardedSweep, MoreRanksThanInstances) {
  const Outcome one = single("verify --algo swing --variant paper-listing1 --p 6 --format json -q");
  const Outcome many = sharded(4, "verify --algo swing --variant paper-listing1 --p 6 --format json -q");
  EXPECT_EQ(one.code, 1);
  EXPECT_EQ(many.code, 1) << many.err;
  EXPECT_EQ(without_timing(nlohmann::json::parse(many.out)), without_timing(nlohmann::json::parse(one.out)));
}

TEST(ShardedSweep, ReportFileWrittenOnceByRankZero) {
  const std::string a = temp_path("single.json"), b = temp_path("sharded.json");
  const Outcome one = single("verify --algo swing --variant paper-laststep --p 2..16:2 --format json -q --out " + a);
  const Outcome many = sharded(2, "verify --algo swing --variant paper-laststep --p 2..16:2 --format json -q --out " + b);
  EXPECT_EQ(one.code, 1);
  EXPECT_EQ(many.code, 1) << many.err;
  EXPECT_TRUE(many.out.empty()) << many.out;
  auto ja = without_timing(nlohmann::json::parse(read_file(a))), jb = without_timing(nlohmann::json::parse(read_file(b)));
  ja.erase("command");  // the --out paths differ
  jb.erase("command");
  EXPECT_EQ(jb, ja);
}

TEST(ShardedSweep, AllSkippedIs77) {
  const std::string args = "verify --algo swing --variant paper-odd --p 2..8:2 --skip-restricted -q";
  EXPECT_EQ(single(args).code, 77);
  for (int np : {2, 4}) EXPECT_EQ(sharded(np, args).code, 77);
}

size_t error_lines(const std::string& err) {
  size_t n = 0;
  for (size_t at = err.find("collcheck: error: "); at != std::string::npos; at = err.find("collcheck: error: ", at + 1))
    ++n;
  return n;
}

TEST(ShardedSweep, BadInputIsOneLineAndExitTwo) {
  for (const char* args : {"verify --algo nope --p 1..8", "verify --algo swing --variant paper-odd --p 1..8",
                           "verify --algo swing --p 1..8 --properties nope",
                           "verify --algo swing --p 1..8 --out /nonexistent/dir/report.json"}) {
    const Outcome one = single(args);
    EXPECT_EQ(one.code, 2) << args;
    for (int np : {2, 4}) {
      if (np == 4 && std::string(args).find("nope") == std::string::npos) continue;  // time: 4 ranks once
      const Outcome many = sharded(np, args);
      EXPECT_EQ(many.code, 2) << args << "\n" << many.err;
      EXPECT_EQ(error_lines(many.err), 1u) << args << "\n" << many.err;
      // the same message as without mpirun
      EXPECT_NE(many.err.find(one.err.substr(0, one.err.find('\n'))), std::string::npos) << one.err << many.err;
    }
  }
  // --db under mpirun (rank 0 records): tests/mpi/store_shard_test.cpp.
}

// mpirun copies the ranks' standard output to its own and drops a write that
// fails there: the report was lost with exit 0. Rank 0 writes straight to
// mpirun's standard output (schedules/formats/launcher_stdout.hpp), so the
// failure is exit 2 with the single process's line, for the sharded verify
// and for a subcommand rank 0 runs alone.
TEST(ShardedSweep, ReportThatCannotBeWrittenIsExitTwo) {
  const std::string want = "collcheck: error: cannot write to standard output: no space left on device";
  EXPECT_EQ(single("verify --algo ring --p 2..8 -q >/dev/full").err.substr(0, want.size()), want);
  for (const char* args : {"verify --algo ring --p 2..8 -q", "list"}) {
    const Outcome many = sharded(2, std::string(args) + " >/dev/full");
    if (!COLLCHECK_MPI_IS_OPENMPI) {  // Hydra forwards the output itself and fails first: its own exit 255
      EXPECT_EQ(many.code, 255) << args << "\n" << many.err;
      EXPECT_NE(many.err.find("unable to write data to stdout"), std::string::npos) << args << "\n" << many.err;
      continue;
    }
    EXPECT_EQ(many.code, 2) << args << "\n" << many.err;
    EXPECT_EQ(many.err.substr(0, many.err.find('\n')), want) << args << "\n" << many.err;
  }
}

// Where mpirun decorates or redirects the output (--tag-output,
// --output-filename), it stays mpirun's to write.
TEST(ShardedSweep, DecoratedOutputStaysMpiruns) {
  if (!COLLCHECK_MPI_IS_OPENMPI) GTEST_SKIP() << "--tag-output and --output-filename are Open MPI's mpirun options";
  const Outcome tagged = run_command(std::string(COLLCHECK_MPIEXEC) + " --tag-output -np 2 " +
                                     COLLCHECK_BINARY + " verify --algo ring --p 2..8 -q");
  EXPECT_EQ(tagged.code, 0) << tagged.err;
  EXPECT_EQ(tagged.out.rfind("[1,0]<stdout>:collcheck ", 0), 0u) << tagged.out;
  const std::string dir = temp_path("output-filename");
  const Outcome filed = run_command(std::string(COLLCHECK_MPIEXEC) + " --output-filename " + dir +
                                    " -np 2 " + COLLCHECK_BINARY + " verify --algo ring --p 2..8 -q");
  EXPECT_EQ(filed.code, 0) << filed.err;
  const std::string filed_out = run_command("cat " + dir + "/*/rank.0/stdout").out;
  EXPECT_NE(filed_out.find("ring/bandwidth (allreduce): holds"), std::string::npos) << filed_out;
  // mpirun gives its ranks a terminal, which here ends in a file: no colour.
  EXPECT_EQ(filed_out.find('\x1b'), std::string::npos) << filed_out;
}

TEST(ShardedSweep, PlanSpreadsTheInstances) {
  // Without -q rank 0 prints the plan: every rank gets instances of 1..40.
  const Outcome many = sharded(4, "verify --algo swing --p 1..40");
  EXPECT_EQ(many.code, 0) << many.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(many.err, m, std::regex("sharded over 4 MPI ranks: ([0-9]+)/([0-9]+)/([0-9]+)/([0-9]+) "
                                                        "instances, estimated work max/mean ([0-9.]+)")))
      << many.err;
  int total = 0;
  for (int i = 1; i <= 4; ++i) {
    EXPECT_GT(std::stoi(m[i]), 0);
    total += std::stoi(m[i]);
  }
  EXPECT_EQ(total, 40);
  EXPECT_LT(std::stod(m[5]), 1.35);  // LPT: within 4/3 - 1/12 of the optimum, here near 1
}

TEST(ShardedSweep, WithoutLauncherAndHelp) {
  const Outcome plain = single("verify --algo ring --p 1..5 -q");
  EXPECT_EQ(plain.code, 0) << plain.err;
  const Outcome help = single("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("usage: collcheck"), std::string::npos);
  const Outcome help2 = sharded(2, "--help");  // rank 0 prints, the others are silent
  EXPECT_EQ(help2.code, 0);
  EXPECT_EQ(help2.out, help.out);
}

}  // namespace
