// `collcheck run --schedule FILE`: the threaded executor
// takes the schedule files check-file and collcheck-mpi take (collcheck's
// format, JSON or JSON lines, read by the same load_schedule_file), and
// compares them with the collective exactly as it compares a registry
// algorithm:
//  * a dumped correct schedule runs and matches, in both encodings, with the
//    verdict (statistics, counterexample) of `run --algo` on the same
//    instance;
//  * a dump of a refuted paper rule (Swing's Listing 1 at p = 6) is violated
//    (exit 1) with the registry run's counterexample;
//  * a malformed file, options that do not combine with --schedule, p over
//    run's 1024 threads: exit 2, one line.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/report_json.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

// The dump of a registry instance in `format` (json or jsonl).
std::string dumped(const std::string& algo_args, const std::string& format, const std::string& name) {
  const std::string path = temp_path(name + "." + format);
  const Outcome d = run("dump " + algo_args + " --format " + format + " --out " + path);
  EXPECT_EQ(d.code, 0) << d.err;
  return path;
}

// The executor's verdict of a run's JSON report, without timings.
nlohmann::json verdict_of(const Outcome& o) {
  nlohmann::json j = nlohmann::json::parse(o.out)["instances"].at(0);
  drop_timing(j);
  return j["verdicts"];
}

void expect_same_as_registry(const std::string& algo_args, int code) {
  const Outcome registry = run("run " + algo_args + " --format json --seed 7 --dtype double");
  ASSERT_EQ(registry.code, code) << registry.err;
  for (const char* format : {"json", "jsonl"}) {
    SCOPED_TRACE(format);
    const std::string file = dumped(algo_args, format, "run_schedule");
    const Outcome o = run("run --schedule " + file + " --format json --seed 7 --dtype double");
    EXPECT_EQ(o.code, code) << o.err;
    const auto inst = nlohmann::json::parse(o.out)["instances"].at(0);
    EXPECT_EQ(inst["algorithm"], "file:" + file);
    EXPECT_EQ(verdict_of(o), verdict_of(registry));
  }
}

TEST(RunSchedule, ACorrectDumpRunsAndMatches) {
  expect_same_as_registry("--algo ring --p 6", 0);
  expect_same_as_registry("--algo traff --p 7 --n 5 --root 3", 0);  // broadcast, from its root
}

TEST(RunSchedule, ARefutedPaperRuleIsViolatedAsTheRegistryRunIs) {
  expect_same_as_registry("--algo swing --variant paper-listing1 --p 6", 1);
  const Outcome text = run("run --schedule " + dumped("--algo swing --variant paper-listing1 --p 6", "json", "l1"));
  EXPECT_EQ(text.code, 1);
  EXPECT_NE(text.out.find("executor violated at p=6"), std::string::npos) << text.out;
}

TEST(RunSchedule, BadInputIsOneLineExitTwo) {
  const std::string good = dumped("--algo ring --p 4", "json", "bad_input_base");
  const std::string broken = temp_path("broken.json");
  {
    std::ofstream f(broken);
    f << test::read_file(good).substr(0, 100);
  }
  struct Case {
    std::string args, what;
  };
  const Case cases[] = {
      {"--schedule " + broken, "malformed schedule: " + broken + ": "},
      {"--schedule " + temp_path("missing.json"), "cannot read"},
      {"--schedule " + good + " --schedule-format jsonl", "malformed schedule: " + good + ":1: "},
      {"--schedule " + good + " --schedule-format xml", "unknown --schedule-format 'xml'"},
      {"--schedule " + good + " --algo ring", "does not combine with --algo"},
      {"--schedule " + good + " --variant latency", "(--variant given)"},
      {"--schedule " + good + " --p 4", "(--p given)"},
      {"--schedule " + good + " --root 1", "(--root given)"},
      {"--algo ring --p 4 --schedule-format json", "--schedule-format applies only with --schedule"},
      {"--schedule " + dumped("--algo recursive-doubling --p 1025", "jsonl", "wide"), "p = 1025 exceeds 1024"},
  };
  for (const Case& c : cases) {
    const Outcome o = run("run " + c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.err;
    EXPECT_EQ(lines(o.err), 1u) << o.err;
    EXPECT_EQ(o.err.rfind("collcheck: error: ", 0), 0u) << o.err;
    EXPECT_NE(o.err.find(c.what), std::string::npos) << c.args << ": " << o.err;
  }
}

}  // namespace
}  // namespace collcheck::test
