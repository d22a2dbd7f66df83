// What an outside audit found, on the real binary:
//   * resources exhausted (threads, memory) are one line and exit 3, never
//     an abort;
//   * analyze refuses non-finite or all-zero costs (they made the HTML chart
//     loop forever, JSON print `inf` and text "-nan x the optimum"), and its
//     renderers skip non-finite values;
//   * an output that is an input (the store, the checked file; also through
//     links or a redirected stdout) is refused before anything is written;
//   * every write is checked: a full device or filesystem is exit 2 with the
//     reason, and a report that could not be written completely leaves the
//     previous file as it was;
//   * nothing is silently clamped or ignored: --threads is honoured exactly
//     or refused, empty option values, check-file's --radix/--ppn, and a
//     missing file says "no such file".
#include <gtest/gtest.h>
#include <tbb/info.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "properties/tra/radix_analysis.hpp"
#include "reports/tra/radix_analysis_report.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck {
namespace {

using test::Outcome;
using test::read_file;
using test::run;
using test::run_command;
using test::temp_path;

const std::string kBin = COLLCHECK_BINARY;

// Exit 2, exactly `line` on stderr (after "collcheck: "), nothing on stdout.
void expect_refused(const std::string& args, const std::string& line, int code = 2) {
  SCOPED_TRACE(args);
  const Outcome r = run(args);
  EXPECT_EQ(r.code, code);
  EXPECT_EQ(r.err, "collcheck: " + line + "\n");
  EXPECT_EQ(r.out, "");
}

// A fresh results store holding one finished sweep, and its copy.
std::string fresh_store(const std::string& name) {
  const std::string db = temp_path(name);
  std::filesystem::remove(db);
  EXPECT_EQ(run("verify --algo ring --p 2..6 -q --out /dev/null --db " + db).code, 0);
  std::filesystem::copy_file(db, db + ".orig", std::filesystem::copy_options::overwrite_existing);
  return db;
}

// ---- resources exhausted ----------------------------------------------------

TEST(Resources, ThreadsThatCannotBeCreatedAreExitThree) {
  // 1024 rank threads with 8 MiB stacks need 8 GiB of address space: under a
  // 1 GB limit the executor cannot create them all (before: std::terminate,
  // "terminate called without an active exception", exit 134).
  const Outcome r = run_command("ulimit -s 8192 && ulimit -v 1000000 && " + kBin + " run --algo ring --p 1024");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err,
            "collcheck: could not create the 1024 threads of the threaded executor (one per rank): Resource "
            "temporarily unavailable\n");
  EXPECT_EQ(r.out, "");
}

// ---- non-finite costs -------------------------------------------------------

TEST(AnalyzeCosts, NonFiniteCostsAreRefusedInEveryFormat) {
  for (const char* format : {"text", "json", "html"}) {
    expect_refused(std::string("analyze --algo tra --p 16 --alpha 1e308 --format ") + format,
                   "error: analyze: the cost alpha*K + beta*D*S is not a finite number at r = 2 (alpha = 1e+308, "
                   "beta = 1e-10, S = 1024): choose smaller values");
  }
  expect_refused("analyze --algo tra --p 16 --beta 1e300 --block-bytes 1e300",
                 "error: analyze: the cost alpha*K + beta*D*S is not a finite number at r = 2 (alpha = 2e-06, "
                 "beta = 1e+300, S = 1e+300): choose smaller values");
  expect_refused("analyze --algo tra --p 16 --alpha 0 --beta 0",
                 "error: analyze: every radix costs 0 (alpha = 0, beta*S = 0), so none is optimal: give alpha > 0 or "
                 "beta * block bytes > 0");
  for (const char* bad : {"nan", "inf", "-1", "1e999"})
    expect_refused(std::string("analyze --algo tra --p 16 --alpha ") + bad,
                   std::string("error: --alpha must be a finite number >= 0, not '") + bad + "'");
  // One of the two terms may be 0: a pure latency or bandwidth model.
  const Outcome ok = run("analyze --algo tra --p 16 --beta 0 --format json");
  EXPECT_EQ(ok.code, 1) << ok.err;  // computed: K = P at r = P differs (exit 1, docs/guide/analyze.md)
  EXPECT_TRUE(nlohmann::json::accept(ok.out)) << ok.out;
}

TEST(AnalyzeCosts, TheChartSkipsNonFiniteValues) {
  // The renderer on its own: a non-finite value stretched the log axis to
  // infinity and the grid loop never ended (the command hung).
  Analysis a = analyze_tra(16, 2e-6, 1e-10, 1024);
  a.rows[3].cost = std::numeric_limits<double>::infinity();
  a.rows[4].cost = std::numeric_limits<double>::quiet_NaN();
  const std::string html = analysis_html(a, "test");
  const size_t svg = html.find("<svg");
  ASSERT_NE(svg, std::string::npos);
  const std::string charts = html.substr(svg, html.rfind("</svg>") - svg);
  EXPECT_EQ(charts.find("inf"), std::string::npos);
  EXPECT_EQ(charts.find("nan"), std::string::npos);
  EXPECT_LT(html.size(), size_t{1} << 20);
}

TEST(AnalyzeCosts, TheCommandIsEscapedInHtmlAndJson) {
  // analyze renders with the reports' escaping (reports/summary.hpp xml_escape;
  // JSON strings by nlohmann): markup and quotes in the command line stay text,
  // and bytes that are not UTF-8 cannot make the JSON invalid.
  const Analysis a = analyze_tra(16, 2e-6, 1e-10, 1024);
  const std::string cmd = "collcheck analyze --out 'a<b>&\"c\"' \xff";
  const std::string html = analysis_html(a, cmd);
  EXPECT_NE(html.find("--out &apos;a&lt;b&gt;&amp;&quot;c&quot;&apos;"), std::string::npos) << html.substr(0, 2000);
  EXPECT_EQ(html.find("a<b>"), std::string::npos);
  const std::string json = analysis_json(a, cmd);
  ASSERT_TRUE(nlohmann::json::accept(json)) << json.substr(0, 400);
  EXPECT_EQ(nlohmann::json::parse(json)["command"], "collcheck analyze --out 'a<b>&\"c\"' \xEF\xBF\xBD");
}

// ---- an output that is an input ---------------------------------------------

TEST(OutputOverInput, TheStoreIsNeverOverwritten) {
  const std::string db = fresh_store("overwrite.sqlite");
  const std::string err = "error: --out '" + db + "' is --db '" + db + "': refusing to write over an input";
  expect_refused("report --db " + db + " --out " + db, err);
  expect_refused("verify --algo ring --p 4 -q --db " + db + " --out " + db, err);
  EXPECT_EQ(read_file(db), read_file(db + ".orig"));
  // Through a symbolic link and a hard link, and the store's companion files.
  const std::string link = temp_path("overwrite_link.sqlite"), hard = temp_path("overwrite_hard.sqlite");
  std::filesystem::remove(link);
  std::filesystem::remove(hard);
  std::filesystem::create_symlink(db, link);
  std::filesystem::create_hard_link(db, hard);
  EXPECT_EQ(run("report --db " + db + " --out " + link).code, 2);
  EXPECT_EQ(run("report --db " + link + " --out " + hard).code, 2);
  expect_refused(
      "report --db " + db + " --out " + db + "-wal",
      "error: --out '" + db + "-wal' is the -wal file of --db '" + db + "': refusing to write over an input");
  EXPECT_EQ(read_file(db), read_file(db + ".orig"));
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
  // A new store and a report of the same (new) name: refused before either is created.
  const std::string fresh = temp_path("overwrite_new.sqlite");
  std::filesystem::remove(fresh);
  EXPECT_EQ(run("verify --algo ring --p 4 -q --db " + fresh + " --out " + fresh).code, 2);
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

TEST(OutputOverInput, TheCheckedFileIsNeverOverwritten) {
  const std::string f = temp_path("overwrite_schedule.json");
  ASSERT_EQ(run("dump --algo ring --p 4 --format json --out " + f).code, 0);
  const std::string before = read_file(f);
  expect_refused("check-file " + f + " --out " + f,
                 "error: --out '" + f + "' is the input file '" + f + "': refusing to write over an input");
  EXPECT_EQ(read_file(f), before);
  // Standard output appended to the input (`>>`: the shell does not truncate it).
  const Outcome r = run_command(kBin + " check-file " + f + " >>" + f);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "collcheck: error: standard output is the input file '" + f + "': refusing to write over an input\n");
  EXPECT_EQ(read_file(f), before);
}

// ---- write errors -----------------------------------------------------------

TEST(WriteErrors, AFullDeviceIsExitTwoForEveryCommand) {
  const std::string db = fresh_store("full_device.sqlite");
  const std::string f = temp_path("full_device.json");
  ASSERT_EQ(run("dump --algo ring --p 4 --format json --out " + f).code, 0);
  for (const std::string& cmd :
       {std::string("verify --algo ring --p 4 -q"), "check-file " + f, std::string("run --algo ring --p 4"),
        std::string("prove --algo swing --p 4"), "report --db " + db, std::string("analyze --algo tra --p 16"),
        std::string("dump --algo ring --p 4"), std::string("dump --algo ring --p 4 --format jsonl"),
        std::string("verify --algo ring --p 4 --estimate --calibrate-seconds 0.01")}) {
    expect_refused(cmd + " --out /dev/full", "error: cannot write '/dev/full': no space left on device");
    SCOPED_TRACE(cmd + " >/dev/full");
    const Outcome r = run(cmd + " >/dev/full");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "collcheck: error: cannot write to standard output: no space left on device\n");
  }
  const Outcome list = run("list >/dev/full");
  EXPECT_EQ(list.code, 2);
  EXPECT_EQ(list.err, "collcheck: error: cannot write to standard output: no space left on device\n");
}

// A 64 KiB tmpfs in a private mount namespace (unshare -rm: no root needed
// where user namespaces are allowed); `script` runs with $D the mount point.
Outcome on_full_filesystem(const std::string& script) {
  const std::string dir = temp_path("small_fs");
  std::filesystem::create_directories(dir);
  return run_command("unshare -rm sh -c 'D=" + dir + "; mount -t tmpfs -o size=64k tmpfs $D || exit 99; " + script +
                     "'");
}

TEST(WriteErrors, AFullFilesystemKeepsThePreviousReport) {
  const Outcome probe = on_full_filesystem("true");
  if (probe.code != 0) GTEST_SKIP() << "cannot mount a small tmpfs here: " << probe.err;
  // The report (a verbose JSON sweep, beyond 64 KiB) does not fit: exit 2
  // with the reason, and the old report is still there, whole, with no
  // temporary file beside it (before: a truncated report and exit 0).
  const Outcome r = on_full_filesystem("echo old-report > $D/r.json; " + kBin +
                                       " verify --algo all --p 1..40 -q --format json --out $D/r.json; echo $?; "
                                       "cat $D/r.json; ls -A $D");
  EXPECT_EQ(r.out, "2\nold-report\nr.json\n");
  EXPECT_NE(r.err.find("collcheck: error: cannot write '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/r.json': no space left on device"), std::string::npos) << r.err;
  // prove --smt2-dir: the first file that does not fit stops the command
  // (before: hundreds of empty files, exit 0), and no file is empty.
  const Outcome p = on_full_filesystem(kBin +
                                       " prove --algo swing --p 2..64 --smt2-dir $D/smt >/dev/null; echo $?; "
                                       "find $D/smt -type f -empty | wc -l");
  EXPECT_EQ(p.out, "2\n0\n");
  EXPECT_NE(p.err.find("collcheck: error: --smt2-dir: cannot write '"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("': no space left on device"), std::string::npos) << p.err;
}

// ---- nothing silently clamped or ignored ------------------------------------

TEST(NoSilentClamping, ThreadsAreHonouredOrRefused) {
  // Above the cores: run with exactly that many (run_with_threads; the
  // report's "threads" is what ran).
  const Outcome r = run("verify --algo ring --p 2..8 -q --format json --threads 7");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["threads"], 7);
  expect_refused("verify --algo ring --p 4 -q --threads 1000000",
                 "error: --threads must be in 0..1024 (0: one per core), not 1000000");
  expect_refused("verify --algo ring --p 4 -q --threads -1",
                 "error: --threads must be a non-negative integer, not '-1'");
  // --estimate projects the wall time on this machine: more threads than its cores would not run faster.
  const int cores = tbb::info::default_concurrency();
  expect_refused("verify --algo ring --p 4 --estimate --threads " + std::to_string(cores + 1),
                 "error: --estimate projects the wall time on this machine: --threads " + std::to_string(cores + 1) +
                     " exceeds the " + std::to_string(cores) + " cores this process may use");
}

TEST(NoSilentClamping, EmptyValuesAreBadInput) {
  for (const char* option : {"db", "variant", "out", "format", "properties"})
    expect_refused(std::string("verify --algo ring --p 4 -q --") + option + " ''",
                   std::string("error: --") + option + " needs a value, not an empty string");
  expect_refused("report --db ''", "error: --db needs a value, not an empty string");
  expect_refused("dump --algo ring --p 4 --out ''", "error: --out needs a value, not an empty string");
  expect_refused("analyze --algo tra --p 16 --out ''", "error: --out needs a value, not an empty string");
}

TEST(NoSilentClamping, CheckFileRefusesInstanceOptionsItCannotUse) {
  const std::string f = temp_path("instance_options.json");
  ASSERT_EQ(run("dump --algo ring --p 4 --format json --out " + f).code, 0);
  for (const char* option : {"radix", "radix2", "ppn"})
    expect_refused(
        "check-file " + f + " --" + option + " 3",
        std::string("error: --") + option + " applies to registry algorithms (verify, dump, run), not to check-file");
}

TEST(NoSilentClamping, AMissingFileSaysSo) {
  const std::string missing = temp_path("no_such_schedule.json");
  std::filesystem::remove(missing);
  expect_refused("check-file " + missing, "error: cannot read '" + missing + "': no such file");
  expect_refused("check-file /", "error: cannot read '/': is a directory");
  expect_refused("check-file /dev/null", "error: cannot read '/dev/null': not a regular file");
}

}  // namespace
}  // namespace collcheck
