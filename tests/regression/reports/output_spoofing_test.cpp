// Strings of the input in the reports (an outside audit's finding): a schedule
// file whose producer metadata held "\nVERDICT: holds for every deployable
// variant\nRESULT: holds" printed a forged verdict line before the real one,
// and terminal escape sequences went through to the terminal; so did an
// MSCCL algorithm name, a results store's command line and a file name in an
// error message. Every such string is printed with its control characters
// escaped visibly (reports/report.hpp's visible()), in every report format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;

const std::string kForged = std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/regress/ring-p3-forged-verdict-in-producer.json";

// 'text' for /bin/sh, whatever it holds (newlines and escapes included).
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(s.substr(start, nl - start));
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

// No control character but the report's own newlines, no C1 control (CSI as
// U+009B), no bidirectional override.
void expect_no_control_characters(const std::string& out) {
  for (const char ch : out) {
    const auto b = static_cast<unsigned char>(ch);
    ASSERT_TRUE(b == '\n' || (b >= 0x20 && b != 0x7f)) << "byte " << int(b) << " in\n" << out;
  }
  EXPECT_EQ(out.find("\xC2\x85"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xC2\x9B"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xE2\x80\xAE"), std::string::npos) << out;
}

// The lines that start with VERDICT: or RESULT: are the text report's own
// two, last, and say what the check found.
void expect_real_verdict_lines(const std::string& text, const std::string& verdict, const std::string& result) {
  std::vector<std::string> found;
  const std::vector<std::string> ls = lines_of(text);
  for (const std::string& l : ls)
    if (l.rfind("VERDICT:", 0) == 0 || l.rfind("RESULT:", 0) == 0) found.push_back(l);
  ASSERT_EQ(found.size(), 2u) << text;
  EXPECT_EQ(found[0].rfind("VERDICT: " + verdict, 0), 0u) << text;
  EXPECT_EQ(found[1], "RESULT: " + result) << text;
  ASSERT_FALSE(ls.empty());
  EXPECT_EQ(ls.back(), "RESULT: " + result);
}

TEST(OutputSpoofing, ProducerStringsCannotForgeTheVerdict) {
  const Outcome text = run("check-file " + kForged);
  EXPECT_EQ(text.code, 1) << text.err;
  expect_no_control_characters(text.out);
  expect_real_verdict_lines(text.out, "do not deploy", "violated");
  // Shown, escaped: a reader sees what the file says.
  EXPECT_NE(text.out.find("producer: tool=x\\nVERDICT: holds for every deployable variant\\nRESULT: holds\\n\\x1b[2J"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\\x1b]0;forged title\\x07algorithm=ring\\u0085RESULT: holds"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("version=\\r\\x1b[1ARESULT: holds\\u202e"), std::string::npos) << text.out;
  for (const char* format : {"markdown", "html", "junit"}) {
    SCOPED_TRACE(format);
    const Outcome o = run("check-file " + kForged + " --format " + format);
    EXPECT_EQ(o.code, 1) << o.err;
    expect_no_control_characters(o.out);
    for (const std::string& l : lines_of(o.out)) {
      EXPECT_NE(l.rfind("VERDICT:", 0), 0u) << o.out;
      EXPECT_NE(l.rfind("RESULT:", 0), 0u) << o.out;
    }
  }
}

TEST(OutputSpoofing, MscclAlgorithmNameCannotForgeTheVerdict) {
  std::ifstream in(std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/msccl/broken_unmatched_send.xml");
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string name = "name=\"broken_unmatched_send\"";
  ASSERT_NE(xml.find(name), std::string::npos);
  xml.replace(xml.find(name), name.size(),
              "name=\"x&#10;VERDICT: holds for every deployable variant&#10;RESULT: holds&#27;[2J&#x9b;32m\"");
  const std::string path = temp_path("forged_name.xml");
  std::ofstream(path) << xml;
  const Outcome text = run("check-file " + path);
  EXPECT_EQ(text.code, 1) << text.err;
  expect_no_control_characters(text.out);
  expect_real_verdict_lines(text.out, "do not deploy", "violated");
  EXPECT_NE(text.out.find("MSCCL XML 'x\\nVERDICT: holds for every deployable variant\\nRESULT: holds\\x1b[2J\\u009b32m'"),
            std::string::npos)
      << text.out;
  const Outcome md = run("check-file " + path + " --format markdown");
  expect_no_control_characters(md.out);
  fs::remove(path);
}

// A results store keeps the command line of every sweep; `report --db` and
// `report --list` print it.
TEST(OutputSpoofing, StoredCommandLineIsShownEscaped) {
  const std::string dir = temp_path("forged_command");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = dir + "/s.sqlite";
  const std::string out = dir + "/r\nRESULT: holds\x1b[2J.txt";
  const Outcome v = run("verify --algo swing --variant paper-latency --p 3 -q --db " + db + " --out " + quoted(out));
  ASSERT_EQ(v.code, 1) << v.err;
  const Outcome text = run("report --db " + db);
  EXPECT_EQ(text.code, 1) << text.err;
  expect_no_control_characters(text.out);
  EXPECT_NE(text.out.find("r\\nRESULT: holds\\x1b[2J.txt"), std::string::npos) << text.out;
  const Outcome list = run("report --db " + db + " --list");
  EXPECT_EQ(list.code, 0) << list.err;
  expect_no_control_characters(list.out);
  EXPECT_EQ(lines_of(list.out).size(), 1u) << list.out;
  EXPECT_NE(list.out.find("r\\nRESULT: holds\\x1b[2J.txt"), std::string::npos) << list.out;
  for (const char* format : {"markdown", "html", "junit"}) {
    SCOPED_TRACE(format);
    expect_no_control_characters(run("report --db " + db + " --format " + format).out);
  }
  fs::remove_all(dir);
}

// Bad input: one line on stderr, whatever the message quotes.
TEST(OutputSpoofing, ErrorMessageQuotingAPathIsOneLine) {
  const Outcome o = run("check-file " + quoted(temp_path("missing\nRESULT: holds\x1b[2J.json")));
  EXPECT_EQ(o.code, 2);
  expect_no_control_characters(o.err);
  EXPECT_EQ(lines_of(o.err).size(), 1u) << o.err;
  EXPECT_NE(o.err.find("missing\\nRESULT: holds\\x1b[2J.json"), std::string::npos) << o.err;
}

// The lines of `text` that start with "VERDICT:" or "RESULT:".
std::vector<std::string> verdict_lines(const std::string& text) {
  std::vector<std::string> found;
  for (const std::string& l : lines_of(text))
    if (l.rfind("VERDICT:", 0) == 0 || l.rfind("RESULT:", 0) == 0) found.push_back(l);
  return found;
}

const std::string kForgedLines = "\nVERDICT: holds for every deployable variant\nRESULT: holds\x1b[2J";

// fuzz names its --schedule-cmd in the summary, the reproduce line and the
// error (the program fails: exit 3); with the seed from the clock in the
// banner too. Only the summary's own RESULT line starts a line.
TEST(OutputSpoofing, FuzzScheduleCommandCannotForgeTheVerdict) {
  const std::string cmd = quoted("false" + kForgedLines);
  for (const std::string seed : {" --seed 1", ""}) {
    SCOPED_TRACE(seed);
    const Outcome o = run("fuzz --schedule-cmd " + cmd + " --seconds 2" + seed);
    EXPECT_EQ(o.code, 3) << o.err;
    expect_no_control_characters(o.out);
    EXPECT_EQ(verdict_lines(o.out), std::vector<std::string>{"RESULT: error"}) << o.out;
    EXPECT_NE(o.out.find("false\\nVERDICT: holds for every deployable variant\\nRESULT: holds\\x1b[2J"),
              std::string::npos)
        << o.out;
    // The error line, and the shell's own complaints about the command's lines.
    EXPECT_EQ(verdict_lines(o.err), std::vector<std::string>{}) << o.err;
    const Outcome junit = run("fuzz --schedule-cmd " + cmd + " --seconds 2 --format junit" + seed);
    EXPECT_EQ(junit.code, 3) << junit.err;
    expect_no_control_characters(junit.out);
    EXPECT_EQ(verdict_lines(junit.out), std::vector<std::string>{}) << junit.out;
  }
}

// fuzz --mutants names its file.
TEST(OutputSpoofing, FuzzMutantsPathCannotForgeTheVerdict) {
  const std::string dir = temp_path("forged_mutants");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = dir + "/s" + kForgedLines + ".json";
  ASSERT_EQ(run("dump --algo ring --p 3 --format json --out " + quoted(file)).code, 0);
  const Outcome o = run("fuzz --mutants " + quoted(file) + " --max-mutants 20");
  expect_no_control_characters(o.out);
  const std::vector<std::string> found = verdict_lines(o.out);
  ASSERT_EQ(found.size(), 1u) << o.out;
  EXPECT_EQ(lines_of(o.out).back(), found.front()) << o.out;
  fs::remove_all(dir);
}

#ifdef COLLCHECK_MPI_BINARY
// collcheck-mpi --trace FILE names the file it wrote; one rank, no mpirun
// (MPI's singleton start).
TEST(OutputSpoofing, CollcheckMpiTracePathCannotForgeTheVerdict) {
  const std::string dir = temp_path("forged_trace");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string trace = dir + "/t" + kForgedLines + ".json";
  const Outcome o = run_command(std::string(COLLCHECK_MPI_BINARY) + " --native allreduce --count 8 --trace " +
                                quoted(trace));
  EXPECT_EQ(o.code, 0) << o.err;
  expect_no_control_characters(o.out);
  EXPECT_EQ(verdict_lines(o.out), std::vector<std::string>{}) << o.out;
  EXPECT_NE(o.out.find("written to " + dir + "/t\\nVERDICT: holds for every deployable variant\\nRESULT: holds"),
            std::string::npos)
      << o.out;
  EXPECT_TRUE(fs::exists(trace));
  // A --function library named with the lines (none there): one error line.
  const Outcome f = run_command(std::string(COLLCHECK_MPI_BINARY) + " --function " +
                                quoted(dir + "/lib" + kForgedLines + ".so:f") + " --collective allreduce");
  EXPECT_EQ(f.code, 2) << f.out;
  expect_no_control_characters(f.out + f.err);
  EXPECT_EQ(verdict_lines(f.out + f.err), std::vector<std::string>{}) << f.out << f.err;
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace collcheck::test
