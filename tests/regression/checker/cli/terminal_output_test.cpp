// What a person sees in a terminal: the main job's report (scripts/sweep:
// verify --algo all --p 1..256) fits a screen and a terminal's width, says
// Träff's table statistics once, and is coloured only on a terminal and
// never under NO_COLOR, in a pipe or in a file.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

TEST(TerminalOutput, TheMainSweepFitsAScreen) {
  const Outcome r = run("verify --algo all --p 1..256 --quiet");  // scripts/sweep's command
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(lines(r.out), 60u) << r.out;
  size_t longest = 0, at = 0;
  for (size_t nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1) longest = std::max(longest, nl - at);
  EXPECT_LE(longest, 160u) << r.out;
  // The traff-bounds statistics of Träff's tables: once, not once per Träff collective.
  EXPECT_EQ(count(r.out, "traff-bounds over the sweep: max_recursion_excess"), 1u) << r.out;
  EXPECT_NE(r.out.find("traff-bounds over the sweep, the same for 5 groups: "), std::string::npos) << r.out;
  // The method in a word, no certificate sentence.
  EXPECT_NE(r.out.find("swing/bandwidth (allreduce): holds  p=1..256  256 hold, 0 violated, 0 unknown, 0 skipped  "
                       "[quotient 129, composition 127]\n"),
            std::string::npos)
      << r.out;
  // (a method's name may hold the word: "[quotient 1, parametric certificate 255]")
  EXPECT_EQ(r.out.find("certificate:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[quotient 1, parametric certificate 255]"), std::string::npos) << r.out;
  // --verbose keeps the certificates.
  const Outcome v = run("verify --algo swing --p 1..8 --quiet --verbose");
  EXPECT_NE(v.out.find("decided at p=2..8:2 by quotient: swing-dihedral"), std::string::npos) << v.out;
}

// A pseudo-terminal (script(1)) gets colour; NO_COLOR, a pipe and a file do not.
TEST(TerminalOutput, ColourOnlyOnATerminal) {
  if (run_command("command -v script").code != 0) GTEST_SKIP() << "no script(1) to give collcheck a terminal";
  // Whatever the caller's environment says about colour or a launcher;
  // `extra` assignments after it.
  auto cmd_with = [](const std::string& extra) {
    return "env -u NO_COLOR -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u PMIX_RANK TERM=xterm " + extra + " " +
           std::string(COLLCHECK_BINARY) + " verify --algo ring --p 1..4 --quiet";
  };
  const std::string cmd = cmd_with("");
  const Outcome tty = run_command("script -qec '" + cmd + "' /dev/null");
  ASSERT_EQ(tty.code, 0) << tty.out << tty.err;
  EXPECT_NE(tty.out.find("\x1b[32mholds\x1b[0m"), std::string::npos) << tty.out;
  const Outcome no_color = run_command("script -qec '" + cmd_with("NO_COLOR=1") + "' /dev/null");
  EXPECT_EQ(no_color.code, 0) << no_color.out;
  EXPECT_EQ(no_color.out.find('\x1b'), std::string::npos) << no_color.out;
  const Outcome empty_no_color = run_command("script -qec '" + cmd_with("NO_COLOR=") + "' /dev/null");
  EXPECT_NE(empty_no_color.out.find("\x1b[32mholds"), std::string::npos) << empty_no_color.out;  // empty: no effect
  const Outcome dumb = run_command("script -qec '" + cmd_with("TERM=dumb") + "' /dev/null");
  EXPECT_EQ(dumb.code, 0) << dumb.out;
  EXPECT_EQ(dumb.out.find('\x1b'), std::string::npos) << dumb.out;
  // Under an MPI launcher: tests/mpi/shard_report_test.cpp (mpirun --output-filename).
  const Outcome pipe = run_command(cmd + " | cat");
  EXPECT_EQ(pipe.out.find('\x1b'), std::string::npos) << pipe.out;
  const std::string file = temp_path("report.txt");
  const Outcome to_file = run_command("script -qec '" + cmd + " --out " + file + "' /dev/null");
  EXPECT_EQ(to_file.code, 0);
  const std::string written = read_file(file);
  EXPECT_NE(written.find("RESULT: holds"), std::string::npos) << written;
  EXPECT_EQ(written.find('\x1b'), std::string::npos) << written;
}

}  // namespace
}  // namespace collcheck::test
