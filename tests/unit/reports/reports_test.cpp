// Unit tests for reports/: the result model's status rules, the p-range
// compression, and every renderer (text, JSON, Markdown, JUnit XML, HTML) on
// hand-built reports that mix holding, violated, unknown and skipped
// instances. Each test asserts concrete content: exact lines, parsed JSON
// values, element counts, escaping, and which counterexample is minimal.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "reports/report.hpp"
#include "properties/instance_checker.hpp"
#include "properties/witnesses.hpp"
#include "reports/summary.hpp"

namespace collcheck {
namespace {

using nlohmann::json;

// The special characters every escaping renderer must survive.
const std::string kNasty = "block 2 reduced twice <&>\"'";

Counterexample cx(uint64_t p, std::optional<Rank> rank, std::optional<int> step, std::optional<Block> block,
                  std::string expected, std::string actual, std::string message) {
  Counterexample c;
  c.p = p;
  c.rank = rank;
  c.step = step;
  c.block = block;
  c.expected = std::move(expected);
  c.actual = std::move(actual);
  c.message = std::move(message);
  return c;
}

Verdict holds(const std::string& property, uint64_t checks = 10) {
  Verdict v;
  v.property = property;
  v.checks = checks;
  v.mode = "exact";
  return v;
}

Verdict violated(const std::string& property, Counterexample c, uint64_t checks = 10) {
  Verdict v = holds(property, checks);
  v.fail(std::move(c));
  return v;
}

InstanceResult instance(const std::string& algo, const std::string& variant, uint64_t p, Status s,
                        std::vector<Verdict> verdicts) {
  InstanceResult i;
  i.algorithm = algo;
  i.variant = variant;
  i.collective = "allreduce";
  i.p = p;
  i.status = s;
  i.verdicts = std::move(verdicts);
  i.seconds = 0.5;
  return i;
}

// swing/latency: p=2 holds, p=3 skipped, p=4 and p=6 violate exactly_once,
// p=8 violates causality twice (two partial verdicts) and cost.
// ring (no variant): p=2..4 hold; p=5 unknown.
Report sample() {
  Report r;
  r.tool_version = "0.1.0";
  r.command = "collcheck verify --algo swing,ring --p 2..8";
  r.kind = "verify";
  r.mode = "exact";
  r.seed = 42;
  r.threads = 2;
  r.seconds = 1.25;

  Verdict cost_ok = holds("cost");
  cost_ok.stats = {{"measured_steps", "1"}, {"claimed_steps", "1"}};
  r.instances.push_back(instance("swing", "latency", 2, Status::holds,
                                 {holds("exactly_once"), holds("causality"), cost_ok}));

  InstanceResult skipped = instance("swing", "latency", 3, Status::skipped, {});
  skipped.skip_reason = "p must be even";
  r.instances.push_back(skipped);

  Counterexample doubled = cx(4, 3, 1, 2, "1 contribution", "2 contributions", kNasty);
  doubled.root_cause = RootCause{RootCause::Kind::counted_twice, Rank{0}, 1, Rank{3}, Rank{1},
                                 "rank 3 combined rank 0's contribution to block 2 twice in step 1 " + kNasty};
  r.instances.push_back(instance("swing", "latency", 4, Status::violated,
                                 {violated("exactly_once", doubled), holds("causality"), holds("cost")}));
  r.instances.push_back(instance(
      "swing", "latency", 6, Status::violated,
      {violated("exactly_once", cx(6, 0, 0, 0, "1 contribution", "0 contributions", "block 0 never arrived")),
       holds("causality"), holds("cost")}));

  // Two partial causality verdicts at p=8: the minimal is the first in time,
  // rank 2's at step 0 (an earlier step beats a smaller rank: rank 1's is at
  // step 9); among rank 2's, block 3 beats block 5.
  Verdict causality_a = violated("causality", cx(8, 2, 0, 5, "held", "not held", "rank 2 sent block 5 early"));
  causality_a.fail(cx(8, 2, 0, 3, "held", "not held", "rank 2 sent block 3 early"));
  Verdict causality_b = violated("causality", cx(8, 1, 9, 7, "held", "not held", "rank 1 sent block 7 early"));
  Verdict cost_bad = violated("cost", cx(8, std::nullopt, std::nullopt, std::nullopt, "2 steps", "3 steps",
                                         "the schedule takes one step more than the paper claims"));
  cost_bad.stats = {{"measured_steps", "3"}, {"claimed_steps", "2"}, {"volume", "7"}};
  r.instances.push_back(
      instance("swing", "latency", 8, Status::violated, {holds("exactly_once"), causality_a, causality_b, cost_bad}));

  for (uint64_t p : {2, 3, 4}) r.instances.push_back(instance("ring", "", p, Status::holds, {holds("postcondition")}));
  Verdict unknown = holds("postcondition");
  unknown.status = Status::unknown;
  unknown.mode = "z3";
  r.instances.push_back(instance("ring", "", 5, Status::unknown, {unknown}));

  r.notes = {"Swing paper Table 2 claims 2 steps for p=8"};
  return r;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + needle.size())) ++n;
  return n;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// A small well-formedness check for XML (and for HTML with void elements):
// tags nest and close, attribute values are quoted, and every '&' starts an
// entity. Returns an empty string if fine, else what went wrong.
std::string markup_problem(const std::string& doc, const std::set<std::string>& void_elements = {}) {
  std::vector<std::string> stack;
  size_t i = 0;
  while (i < doc.size()) {
    const char c = doc[i];
    if (c == '&') {
      const size_t semi = doc.find(';', i);
      if (semi == std::string::npos || semi - i > 10) return "bare & at " + std::to_string(i);
      i = semi + 1;
    } else if (c == '>') {
      return "bare > at " + std::to_string(i);
    } else if (c != '<') {
      ++i;
    } else if (doc.compare(i, 2, "<?") == 0 || doc.compare(i, 2, "<!") == 0) {
      i = doc.find('>', i) + 1;
    } else {
      // Scan the tag, honouring quoted attribute values.
      size_t j = i + 1;
      char quote = 0;
      for (; j < doc.size(); ++j) {
        if (quote) {
          if (doc[j] == quote) quote = 0;
          else if (doc[j] == '<') return "raw < inside attribute at " + std::to_string(j);
        } else if (doc[j] == '"' || doc[j] == '\'') {
          quote = doc[j];
        } else if (doc[j] == '>') {
          break;
        } else if (doc[j] == '<') {
          return "raw < inside tag at " + std::to_string(j);
        }
      }
      if (j >= doc.size()) return "unterminated tag";
      std::string tag = doc.substr(i + 1, j - i - 1);
      const bool closing = tag.front() == '/';
      const bool self_closing = tag.back() == '/';
      std::string name = tag.substr(closing ? 1 : 0);
      name = name.substr(0, name.find_first_of(" /\n"));
      if (closing) {
        if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
        stack.pop_back();
      } else if (!self_closing && !void_elements.count(name)) {
        stack.push_back(name);
      }
      i = j + 1;
    }
  }
  return stack.empty() ? "" : "unclosed <" + stack.back() + ">";
}

// --- result model -----------------------------------------------------------

TEST(ReportModel, StatusIsWorstAndSkippedOnlyIfAllSkipped) {
  Report r;
  EXPECT_EQ(r.status(), Status::holds) << "an empty report holds";
  r.instances.push_back(instance("a", "", 3, Status::skipped, {}));
  r.instances.push_back(instance("a", "", 5, Status::skipped, {}));
  EXPECT_EQ(r.status(), Status::skipped);
  r.instances.push_back(instance("a", "", 4, Status::holds, {holds("matching")}));
  EXPECT_EQ(r.status(), Status::holds);
  r.instances.push_back(instance("a", "", 6, Status::unknown, {}));
  EXPECT_EQ(r.status(), Status::unknown);
  r.instances.push_back(instance("a", "", 8, Status::violated, {}));
  EXPECT_EQ(r.status(), Status::violated);
}

TEST(ReportModel, EffectiveStatusSeesViolatedVerdicts) {
  // The status field says holds, but a verdict is violated: never report holds.
  InstanceResult i = instance("a", "", 4, Status::holds, {holds("ports"), violated("matching", cx(4, 0, 0, 0, "", "", "x"))});
  EXPECT_EQ(effective_status(i), Status::violated);
  Report r;
  r.instances.push_back(i);
  EXPECT_EQ(r.status(), Status::violated);
}

TEST(ReportModel, FormatFromString) {
  EXPECT_EQ(format_from_string("text"), Format::text);
  EXPECT_EQ(format_from_string("json"), Format::json);
  EXPECT_EQ(format_from_string("markdown"), Format::markdown);
  EXPECT_EQ(format_from_string("md"), Format::markdown);
  EXPECT_EQ(format_from_string("junit"), Format::junit);
  EXPECT_EQ(format_from_string("html"), Format::html);
  EXPECT_EQ(format_from_string("JSON"), Format::json);
  EXPECT_EQ(format_from_string("xml"), std::nullopt);
  EXPECT_EQ(format_from_string(""), std::nullopt);
  for (Format f : {Format::text, Format::json, Format::markdown, Format::junit, Format::html})
    EXPECT_EQ(format_from_string(to_string(f)), f);
}

TEST(ReportModel, PRangesCompressLikeTheCli) {
  using reports_detail::format_p_list;
  std::vector<uint64_t> ps;
  for (uint64_t p = 1; p <= 64; ++p) ps.push_back(p);
  ps.push_back(128);
  EXPECT_EQ(format_p_list(ps), "1..64, 128");
  EXPECT_EQ(format_p_list({8, 2, 4, 2}), "2, 4, 8");  // unsorted, duplicate
  EXPECT_EQ(format_p_list({1, 3}), "1, 3");
  EXPECT_EQ(format_p_list({5, 6}), "5..6");
  EXPECT_EQ(format_p_list({3, 5, 7, 9}), "3..9:2");
  EXPECT_EQ(format_p_list({2, 4, 8, 16, 32, 33}), "2^1..2^5:pow2, 33");
  EXPECT_EQ(format_p_list({7}), "7");
  EXPECT_EQ(format_p_list({}), "");
}

TEST(ReportModel, StatsPairMeasuredWithClaimed) {
  EXPECT_EQ(reports_detail::format_stats({{"measured_steps", "6"}, {"claimed_steps", "6"}, {"volume", "12"}}),
            "measured steps 6 vs claimed 6, volume=12");
  EXPECT_EQ(reports_detail::format_stats({{"claimed_steps", "6"}}), "claimed_steps=6");
}

// --- text -------------------------------------------------------------------

TEST(TextReport, HeaderGroupsAndResultLine) {
  const std::string out = render(sample(), Format::text);
  const auto ls = lines(out);
  ASSERT_GE(ls.size(), 3u);
  EXPECT_EQ(ls[0], "collcheck 0.1.0 verify: mode=exact seed=42 threads=2 seconds=1.250");
  EXPECT_EQ(ls[1], "command: collcheck verify --algo swing,ring --p 2..8");
  EXPECT_EQ(ls.back(), "RESULT: violated");
  EXPECT_EQ(out.back(), '\n');
  // Groups in (algorithm, variant) order with p-range and counts.
  // ... and the method that decided them, in a word.
  EXPECT_NE(out.find("ring (allreduce): unknown  p=2..5  3 hold, 0 violated, 1 unknown, 0 skipped  [enumerated]\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("swing/latency (allreduce): violated  p=2..4, 6, 8  1 hold, 3 violated, 0 unknown, 1 skipped  "
                     "[enumerated]\n"),
            std::string::npos)
      << out;
  EXPECT_LT(out.find("ring (allreduce)"), out.find("swing/latency"));
  EXPECT_NE(out.find("  postcondition unknown at p=5\n"), std::string::npos);
  EXPECT_NE(out.find("  skipped p=3: p must be even\n"), std::string::npos);
  EXPECT_NE(out.find("notes:\n  - Swing paper Table 2 claims 2 steps for p=8\n"), std::string::npos);
  // Not verbose: no per-instance lines.
  EXPECT_EQ(out.find("    p=2: holds"), std::string::npos);
}

// Statistics several groups have alike (Träff's tables under each Träff
// collective) come once, after the groups, naming them; a group whose
// statistics differ keeps its own under its line.
TEST(TextReport, StatisticsSeveralGroupsShareComeOnce) {
  auto bounds = [](const std::string& max) {
    Verdict v = holds("traff-bounds");
    v.stats["max_violations"] = max;
    return v;
  };
  Report r;
  r.instances.push_back(instance("traff", "broadcast", 9, Status::holds, {bounds("2")}));
  r.instances.push_back(instance("traff-allgather", "allgather", 9, Status::holds, {bounds("2")}));
  r.instances.push_back(instance("traff-reduce", "reduce", 9, Status::holds, {bounds("3")}));
  const std::string out = render(r, Format::text);
  EXPECT_EQ(count(out, "traff-bounds over the sweep: max_violations 2\n"), 1u) << out;
  EXPECT_NE(out.find("traff-bounds over the sweep, the same for 2 groups: traff/broadcast, "
                     "traff-allgather/allgather\n  traff-bounds over the sweep: max_violations 2\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("traff-reduce/reduce (allreduce): holds  p=9  1 hold, 0 violated, 0 unknown, 0 skipped  "
                     "[enumerated]\n  traff-bounds over the sweep: max_violations 3\n"),
            std::string::npos)
      << out;
  EXPECT_LT(out.find("traff-reduce/reduce"), out.find("the same for 2 groups"));
}

// Long statistic lines wrap at 120 columns between words, a long histogram too.
TEST(TextReport, StatisticLinesWrap) {
  Verdict v = holds("traff-bounds");
  std::string hist;
  for (int k = 0; k < 40; ++k) hist += (k ? " " : "") + std::to_string(k) + ":" + std::to_string(1000 + k);
  v.stats["violations_histogram"] = hist;
  v.stats["max_violations"] = "39";
  Report r;
  r.instances.push_back(instance("traff", "broadcast", 9, Status::holds, {v}));
  for (const std::string& line : lines(render(r, Format::text)))
    EXPECT_LE(line.size(), 120u) << line;
  EXPECT_NE(render(r, Format::text, true).find("max_violations 39; violations_histogram " + hist + "\n"),
            std::string::npos);  // --verbose: one line
}

// Colour only when the caller asks (a terminal, no NO_COLOR): the status
// words, nothing else; a coloured report says the same without the codes.
TEST(TextReport, ColourOnTheStatusWordsOnly) {
  const std::string plain = render(sample(), Format::text);
  const std::string colour = render(sample(), Format::text, false, true);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(colour.find("ring (allreduce): \x1b[33munknown\x1b[0m  p=2..5"), std::string::npos) << colour;
  EXPECT_NE(colour.find("swing/latency (allreduce): \x1b[1;31mviolated\x1b[0m  p="), std::string::npos) << colour;
  EXPECT_NE(colour.find("RESULT: \x1b[1;31mviolated\x1b[0m\n"), std::string::npos) << colour;
  EXPECT_EQ(std::regex_replace(colour, std::regex("\x1b\\[[0-9;]*m"), ""), plain);
  for (Format f : {Format::json, Format::markdown, Format::junit, Format::html})
    EXPECT_EQ(render(sample(), f, false, true), render(sample(), f, false, false)) << to_string(f);
}

TEST(TextReport, NamesTheMinimalCounterexample) {
  const std::string out = render(sample(), Format::text);
  // exactly_once fails at p=4 and p=6: p=4 is smaller although its rank is larger.
  EXPECT_NE(out.find("  exactly_once violated at p=4, 6 (2 failed checks)\n"
                     "    minimal counterexample: p=4 rank=3 step=1 block=2\n"
                     "    expected: 1 contribution\n"
                     "    actual:   2 contributions\n"
                     "    message:  " + kNasty + "\n"
                     "    root cause: rank 3 combined rank 0's contribution to block 2 twice in step 1 " + kNasty + "\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("p=6 rank=0 step=0 block=0"), std::string::npos);
  // causality at p=8: step 0 (rank 2) beats step 9 (rank 1), although rank 1 is smaller.
  EXPECT_NE(out.find("  causality violated at p=8 (3 failed checks)\n"
                     "    minimal counterexample: p=8 rank=2 step=0 block=3\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("rank=1 step=9"), std::string::npos);
  // cost: the verdict's stats appear with its counterexample.
  EXPECT_NE(out.find("    minimal counterexample: p=8\n"), std::string::npos);
  EXPECT_NE(out.find("    stats:    measured steps 3 vs claimed 2, volume=7\n"), std::string::npos) << out;
}

TEST(TextReport, MinimalByStepThenRankThenBlock) {
  // One instance, one property, counterexamples that differ in one coordinate
  // each: the first in time wins, then the smallest rank, then block.
  Report r;
  Verdict v = violated("causality", cx(8, 2, 1, 0, "", "", "c"));
  v.merge(violated("causality", cx(8, 2, 0, 5, "", "", "b")));
  v.merge(violated("causality", cx(8, 2, 0, 3, "", "", "a")));
  v.merge(violated("causality", cx(8, 3, 0, 0, "", "", "d")));
  v.merge(violated("causality", cx(8, 1, 1, 0, "", "", "e")));  // smaller rank, later step
  r.instances.push_back(instance("x", "y", 8, Status::violated, {v}));
  const std::string out = render(r, Format::text);
  EXPECT_NE(out.find("minimal counterexample: p=8 rank=2 step=0 block=3\n    message:  a\n"), std::string::npos)
      << out;
}

TEST(TextReport, VerboseListsEveryInstanceRowWithStats) {
  const std::string out = render(sample(), Format::text, /*verbose=*/true);
  EXPECT_NE(out.find("  instances:\n    p=2: holds: exactly_once holds; causality holds; cost holds "
                     "(measured steps 1 vs claimed 1)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    p=3: skipped (p must be even)\n"), std::string::npos);
  EXPECT_NE(out.find("    p=4: violated: exactly_once violated at p=4 rank=3 step=1 block=2; causality holds; "
                     "cost holds\n"),
            std::string::npos)
      << out;
  // Partial verdicts of one property are merged into one entry.
  EXPECT_NE(out.find("    p=8: violated: exactly_once holds; causality violated at p=8 rank=2 step=0 block=3; "
                     "cost violated at p=8 (measured steps 3 vs claimed 2, volume=7)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    p=5: unknown: postcondition unknown\n"), std::string::npos);
  // ring's p = 2..4 hold with the same verdicts: one line, without stats.
  EXPECT_NE(out.find("    p=2..4: holds (3 instances): postcondition holds\n"), std::string::npos) << out;
  EXPECT_EQ(count(out, "    p="), sample().instances.size() - 2);
  EXPECT_EQ(lines(out).back(), "RESULT: violated");
}

TEST(TextReport, ResultLineForEachOverallStatus) {
  Report r;
  EXPECT_EQ(lines(render(r, Format::text)).back(), "RESULT: holds");
  r.instances.push_back(instance("a", "", 3, Status::skipped, {}));
  EXPECT_EQ(lines(render(r, Format::text)).back(), "RESULT: skipped");
  r.instances.push_back(instance("a", "", 4, Status::holds, {holds("ports")}));
  EXPECT_EQ(lines(render(r, Format::text)).back(), "RESULT: holds");
}

TEST(TextReport, DeterministicAndIndependentOfInstanceOrder) {
  const Report a = sample();
  Report b = a;
  std::reverse(b.instances.begin(), b.instances.end());
  EXPECT_EQ(render(a, Format::text, true), render(a, Format::text, true));
  EXPECT_EQ(render(a, Format::text, true), render(b, Format::text, true));
}

// --- JSON -------------------------------------------------------------------

TEST(JsonReport, ParsesAndRoundTripsKeyFields) {
  const Report r = sample();
  const json j = json::parse(render(r, Format::json));
  EXPECT_EQ(j.at("status"), "violated");
  EXPECT_EQ(j.at("tool_version"), "0.1.0");
  EXPECT_EQ(j.at("command"), r.command);
  EXPECT_EQ(j.at("kind"), "verify");
  EXPECT_EQ(j.at("mode"), "exact");
  EXPECT_EQ(j.at("seed").get<uint64_t>(), 42u);
  EXPECT_EQ(j.at("threads").get<int>(), 2);
  EXPECT_DOUBLE_EQ(j.at("seconds").get<double>(), 1.25);
  EXPECT_EQ(j.at("notes"), json::array({"Swing paper Table 2 claims 2 steps for p=8"}));
  EXPECT_EQ(j.at("counts"), (json{{"holds", 4}, {"violated", 3}, {"unknown", 1}, {"skipped", 1}}));

  const json& inst = j.at("instances");
  ASSERT_EQ(inst.size(), r.instances.size());
  for (size_t k = 0; k < inst.size(); ++k) {
    EXPECT_EQ(inst[k].at("algorithm"), r.instances[k].algorithm);
    EXPECT_EQ(inst[k].at("p").get<uint64_t>(), r.instances[k].p);
    EXPECT_EQ(inst[k].at("verdicts").size(), r.instances[k].verdicts.size());
  }

  // p=4: the violated exactly_once verdict with every counterexample field.
  const json& p4 = inst[2];
  EXPECT_EQ(p4.at("status"), "violated");
  EXPECT_TRUE(p4.at("skip_reason").is_null());
  const json& v = p4.at("verdicts")[0];
  EXPECT_EQ(v.at("property"), "exactly_once");
  EXPECT_EQ(v.at("status"), "violated");
  EXPECT_EQ(v.at("checks").get<uint64_t>(), 10u);
  EXPECT_EQ(v.at("violations").get<uint64_t>(), 1u);
  EXPECT_EQ(v.at("mode"), "exact");
  const json& c = v.at("counterexample");
  EXPECT_EQ(c.at("p").get<uint64_t>(), 4u);
  EXPECT_EQ(c.at("rank").get<Rank>(), 3u);
  EXPECT_EQ(c.at("step").get<int>(), 1);
  EXPECT_EQ(c.at("block").get<Block>(), 2u);
  EXPECT_TRUE(c.at("peer").is_null());
  EXPECT_EQ(c.at("expected"), "1 contribution");
  EXPECT_EQ(c.at("actual"), "2 contributions");
  EXPECT_EQ(c.at("message"), kNasty);  // JSON keeps the text verbatim
  EXPECT_EQ(c.at("location"), "p=4 rank=3 step=1 block=2");
  // A holding verdict has a null counterexample; holds keeps its own fields.
  EXPECT_TRUE(p4.at("verdicts")[1].at("counterexample").is_null());
  EXPECT_EQ(p4.at("verdicts")[1].at("status"), "holds");

  // p=8 cost: a counterexample without coordinates has them all null; stats kept.
  const json& cost = inst[4].at("verdicts")[3];
  EXPECT_EQ(cost.at("property"), "cost");
  for (const char* k : {"rank", "step", "block", "peer"}) EXPECT_TRUE(cost.at("counterexample").at(k).is_null()) << k;
  EXPECT_EQ(cost.at("stats").at("measured_steps"), "3");
  EXPECT_EQ(cost.at("stats").at("claimed_steps"), "2");

  // Skipped and unknown instances.
  EXPECT_EQ(inst[1].at("status"), "skipped");
  EXPECT_EQ(inst[1].at("skip_reason"), "p must be even");
  EXPECT_EQ(inst[8].at("status"), "unknown");
  EXPECT_EQ(inst[8].at("verdicts")[0].at("mode"), "z3");
}

TEST(JsonReport, GroupsSummariseWithMinimalCounterexample) {
  const json j = json::parse(render(sample(), Format::json));
  const json& groups = j.at("groups");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].at("algorithm"), "ring");
  EXPECT_EQ(groups[0].at("status"), "unknown");
  EXPECT_EQ(groups[0].at("p_checked"), "2..5");
  const json& swing = groups[1];
  EXPECT_EQ(swing.at("p_checked"), "2..4, 6, 8");
  EXPECT_EQ(swing.at("counts").at("violated").get<int>(), 3);
  ASSERT_EQ(swing.at("failing_properties").size(), 3u);
  const json& eo = swing.at("failing_properties")[0];
  EXPECT_EQ(eo.at("property"), "exactly_once");
  EXPECT_EQ(eo.at("violated_p"), "4, 6");
  EXPECT_EQ(eo.at("counterexample").at("p").get<uint64_t>(), 4u);
  const json& causality = swing.at("failing_properties")[1];
  EXPECT_EQ(causality.at("property"), "causality");
  EXPECT_EQ(causality.at("instances").get<int>(), 1) << "two partial verdicts, one instance";
  EXPECT_EQ(causality.at("violations").get<int>(), 3);
  EXPECT_EQ(causality.at("counterexample").at("rank").get<Rank>(), 2u);
  EXPECT_EQ(causality.at("counterexample").at("step").get<int>(), 0);
  EXPECT_TRUE(causality.at("counterexample").at("root_cause").is_null());
  // The root cause, every field, the text verbatim.
  const json& rc = eo.at("counterexample").at("root_cause");
  EXPECT_EQ(rc, (json{{"kind", "counted-twice"}, {"contributor", 0}, {"step", 1}, {"rank", 3}, {"peer", 1},
                      {"text", "rank 3 combined rank 0's contribution to block 2 twice in step 1 " + kNasty}}));
  EXPECT_EQ(eo.at("instances").get<int>(), 2);
}

TEST(JsonReport, EmptyReportHolds) {
  const json j = json::parse(render(Report{}, Format::json));
  EXPECT_EQ(j.at("status"), "holds");
  EXPECT_TRUE(j.at("instances").empty());
}

// --- JUnit ------------------------------------------------------------------

TEST(JunitReport, ElementCountsAndEscaping) {
  const std::string xml = render(sample(), Format::junit);
  EXPECT_EQ(markup_problem(xml), "") << xml;
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
  EXPECT_EQ(count(xml, "<testsuite "), 2u);
  EXPECT_EQ(count(xml, "<testcase "), 9u);
  EXPECT_EQ(count(xml, "<failure "), 3u);
  EXPECT_EQ(count(xml, "<skipped"), 1u);
  EXPECT_EQ(count(xml, "<error "), 1u);
  EXPECT_NE(xml.find("<testsuites name=\"collcheck verify\" tests=\"9\" failures=\"3\" errors=\"1\" "
                     "skipped=\"1\" time=\"1.250\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"collcheck.swing.latency\" tests=\"5\" failures=\"3\" errors=\"0\" "
                     "skipped=\"1\" time=\"2.500\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"p=4\" classname=\"collcheck.swing.latency\" time=\"0.500\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"p=2\" classname=\"collcheck.ring\" time=\"0.500\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"p must be even\"/>"), std::string::npos);
  // The failure message names the property and the counterexample, escaped.
  EXPECT_NE(xml.find("<failure message=\"exactly_once: p=4 rank=3 step=1 block=2: expected 1 contribution, "
                     "actual 2 contributions: block 2 reduced twice &lt;&amp;&gt;&quot;&apos;\" type=\"violated\">"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<&>"), std::string::npos);
  // Two violated properties at p=8 share one failure element; the two
  // partial causality verdicts are merged into their minimal counterexample.
  EXPECT_NE(xml.find("<failure message=\"causality: p=8 rank=2 step=0 block=3: expected held, actual not held: "
                     "rank 2 sent block 3 early; cost: p=8: expected 2 steps, actual 3 steps: "),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("rank=1 step=9"), std::string::npos);
  // The failure body keeps one line per detail, the root cause too.
  EXPECT_NE(xml.find("type=\"violated\">causality violated (3 of 20 checks failed)\n"
                     "  at p=8 rank=2 step=0 block=3\n"),
            std::string::npos);
  EXPECT_NE(xml.find("\n  root cause: rank 3 combined rank 0&apos;s contribution to block 2 twice in step 1 block 2 "
                     "reduced twice &lt;&amp;&gt;&quot;&apos;\n"),
            std::string::npos)
      << xml;
}

TEST(JunitReport, ControlCharactersAndEmptyReport) {
  Report r;
  r.instances.push_back(
      instance("file:a<b>.json", "", 4, Status::violated, {violated("matching", cx(4, 0, 0, 0, "", "", "tab\there\x01"))}));
  const std::string xml = render(r, Format::junit);
  EXPECT_EQ(markup_problem(xml), "") << xml;
  EXPECT_NE(xml.find("classname=\"collcheck.file:a&lt;b&gt;.json\""), std::string::npos);
  EXPECT_NE(xml.find("tab\\there\\x01"), std::string::npos) << xml;  // escaped visibly, as in every report
  EXPECT_EQ(xml.find('\x01'), std::string::npos);

  const std::string empty = render(Report{}, Format::junit);
  EXPECT_EQ(markup_problem(empty), "");
  EXPECT_NE(empty.find("tests=\"0\""), std::string::npos);
  EXPECT_EQ(count(empty, "<testsuite "), 0u);
}

// --- Markdown ---------------------------------------------------------------

TEST(MarkdownReport, TableRowsCounterexamplesAndNotes) {
  const std::string md = render(sample(), Format::markdown);
  EXPECT_EQ(md.rfind("# collcheck verify report: do not deploy\n", 0), 0u) << md;
  EXPECT_NE(md.find("- result: **violated**\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| algorithm | variant | p checked | status | failing properties |\n|---|---|---|---|---|\n"),
            std::string::npos);
  EXPECT_NE(md.find("| `ring` | - | 2..5 | unknown | - |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| `swing` | `latency` | 2..4, 6, 8 | violated | `exactly_once`, `causality`, `cost` |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### `swing/latency`: `exactly_once`\n\n"
                    "Violated at p=4, 6 (2 instances, 2 failed checks). Minimal counterexample:\n\n"
                    "- location: `p=4 rank=3 step=1 block=2`\n"
                    "- expected: `1 contribution`\n"
                    "- actual: `2 contributions`\n"
                    "- message: block 2 reduced twice \\<\\&\\>\"'\n"
                    "- root cause: rank 3 combined rank 0's contribution to block 2 twice in step 1 block 2 reduced "
                    "twice \\<\\&\\>\"'\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- location: `p=8 rank=2 step=0 block=3`"), std::string::npos);
  EXPECT_NE(md.find("- stats: measured steps 3 vs claimed 2, volume=7\n"), std::string::npos);
  EXPECT_NE(md.find("## Skipped\n\n- `swing/latency` p=3: p must be even\n"), std::string::npos);
  EXPECT_NE(md.find("## Unknown\n\n- `ring` `postcondition`: p=5\n"), std::string::npos);
  EXPECT_NE(md.find("## Notes\n\n- Swing paper Table 2 claims 2 steps for p=8\n"), std::string::npos);
}

TEST(MarkdownReport, PipesAndBackticksCannotBreakTheTable) {
  Report r;
  r.instances.push_back(instance("a|b", "v`1", 4, Status::violated, {violated("x|y", cx(4, 0, 0, 0, "", "", "m"))}));
  const std::string md = render(r, Format::markdown);
  EXPECT_NE(md.find("| `a\\|b` | ``v`1`` | 4 | violated | `x\\|y` |\n"), std::string::npos) << md;
}

// --- HTML -------------------------------------------------------------------

TEST(HtmlReport, SelfContainedEscapedWithChart) {
  const std::string html = render(sample(), Format::html);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_EQ(markup_problem(html, {"meta"}), "") << html;
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // Summary table.
  EXPECT_NE(html.find("<tr><td><code>swing</code></td><td><code>latency</code></td><td>allreduce</td>"
                      "<td>2..4, 6, 8</td><td><span class=\"violated\">violated</span></td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td><code>ring</code></td><td>-</td><td>allreduce</td><td>2..5</td>"), std::string::npos);
  // One bar per property; exactly_once (2 violating instances) is the longest.
  const size_t svg = html.find("<svg xmlns=\"http://www.w3.org/2000/svg\"");
  ASSERT_NE(svg, std::string::npos);
  const std::string chart = html.substr(svg, html.find("</svg>", svg) - svg);
  EXPECT_EQ(count(chart, "<rect "), 4u);  // exactly_once, causality, cost, postcondition
  EXPECT_NE(chart.find("width=\"400\" height=\"16\"><title>exactly_once: 2 violating instances</title>"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find("width=\"200\" height=\"16\"><title>causality: 1 violating instance</title>"),
            std::string::npos);
  EXPECT_NE(chart.find("width=\"0\" height=\"16\"><title>postcondition: 0 violating instances</title>"),
            std::string::npos);
  // Counterexamples, escaped.
  EXPECT_NE(html.find("<tr><th>location</th><td><code>p=4 rank=3 step=1 block=2</code></td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>message</th><td>block 2 reduced twice &lt;&amp;&gt;&quot;&apos;</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>root cause</th><td>rank 3 combined rank 0&apos;s contribution to block 2 twice in "
                      "step 1 block 2 reduced twice &lt;&amp;&gt;&quot;&apos;</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find(kNasty), std::string::npos);
  EXPECT_NE(html.find("<li>Swing paper Table 2 claims 2 steps for p=8</li>"), std::string::npos);
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
}

TEST(HtmlReport, EmptyReportIsStillAPage) {
  const std::string html = render(Report{}, Format::html);
  EXPECT_EQ(markup_problem(html, {"meta"}), "");
  EXPECT_NE(html.find("No instances were checked."), std::string::npos);
  // The heading says the verdict line (nothing checked); the result row the status.
  EXPECT_NE(html.find("<h1>collcheck verify report: <span class=\"skipped\">nothing was checked</span></h1>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><th>result</th><td>holds</td></tr>"), std::string::npos) << html;
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// Histogram stats are summed bucket by bucket and max_ stats maximised over a
// group, in every format that has a summary; malformed values are left out.
TEST(Distributions, SummedOverTheSweepInEveryFormat) {
  auto bounds = [](const std::string& hist, const std::string& max) {
    Verdict v = holds("traff-bounds");
    v.stats["violations_histogram"] = hist;
    v.stats["max_violations"] = max;
    v.stats["recursion_bound"] = "3";  // neither _histogram nor max_: not aggregated
    return v;
  };
  Report r;
  r.instances.push_back(instance("traff", "broadcast", 9, Status::holds, {bounds("0:1 1:6 2:2", "2")}));
  r.instances.push_back(instance("traff", "broadcast", 17, Status::holds, {bounds("0:1 1:10 2:6 3:0", "2")}));
  r.instances.push_back(instance("traff", "broadcast", 18, Status::holds, {bounds("0:2 x 1:3", "7")}));
  const std::string want = "max_violations 7; violations_histogram 0:2 1:16 2:8 3:0";
  EXPECT_NE(render(r, Format::text, false).find("traff-bounds over the sweep: " + want), std::string::npos)
      << render(r, Format::text, false);
  EXPECT_NE(render(r, Format::markdown, false).find("max\\_violations 7; violations\\_histogram 0:2 1:16 2:8 3:0"),
            std::string::npos)
      << render(r, Format::markdown, false);
  EXPECT_NE(render(r, Format::html, false).find(want), std::string::npos);
  const json j = json::parse(render(r, Format::json, false));
  const json& d = j.at("groups").at(0).at("distributions").at("traff-bounds");
  EXPECT_EQ(d.at("violations_histogram"), "0:2 1:16 2:8 3:0");
  EXPECT_EQ(d.at("max_violations"), "7");
  EXPECT_FALSE(d.contains("recursion_bound"));
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// --- witness lists ----------------------------------------------------------

TEST(Witnesses, ListsAreBoundedAndParseBack) {
  WitnessList w;
  for (int r = 0; r < 13; ++r) w.add("p=9 rank " + std::to_string(r));
  EXPECT_EQ(w.items.size(), WitnessList::kListed);
  EXPECT_EQ(w.total(), 13u);
  const std::string s = w.str();
  EXPECT_EQ(s.substr(0, 21), "p=9 rank 0; p=9 rank ");
  EXPECT_EQ(s.substr(s.size() - 22), "p=9 rank 9; and 3 more");
  const auto back = WitnessList::parse(s);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->items, w.items);
  EXPECT_EQ(back->more, 3u);
  EXPECT_EQ(WitnessList::parse("")->total(), 0u);
  EXPECT_FALSE(WitnessList::parse("a; ; b"));
  EXPECT_FALSE(WitnessList::parse("a; and x more"));
}

// A traff-bounds verdict with the witness statistics traff_bounds writes.
Verdict bounds_with_witnesses(uint64_t p, int max_violations, const std::vector<uint64_t>& at_max,
                              const std::vector<uint64_t>& with_violations) {
  Verdict v = holds("traff-bounds");
  v.stats["max_violations"] = std::to_string(max_violations);
  auto list = [&](const std::vector<uint64_t>& ranks) {
    WitnessList w;
    for (uint64_t r : ranks) w.add("p=" + std::to_string(p) + " rank " + std::to_string(r));
    return w.str();
  };
  if (!at_max.empty()) v.stats["witnesses_max_violations"] = list(at_max);
  if (!with_violations.empty()) v.stats["witnesses_violations"] = list(with_violations);
  return v;
}

// The extremal witnesses follow the maximum over the sweep (instances below it
// drop out, ties add up); the plain witness lists of the sweep concatenate in
// p order, bounded; every format names them.
TEST(Witnesses, ExtremalOnesFollowTheMaximumInEveryFormat) {
  Report r;
  r.instances.push_back(instance("traff", "broadcast", 5, Status::holds, {bounds_with_witnesses(5, 1, {1, 2}, {1, 2})}));
  r.instances.push_back(instance("traff", "broadcast", 9, Status::holds, {bounds_with_witnesses(9, 2, {4}, {1, 3, 4})}));
  r.instances.push_back(instance("traff", "broadcast", 8, Status::holds, {bounds_with_witnesses(8, 0, {}, {})}));
  std::vector<uint64_t> many(9);
  for (uint64_t k = 0; k < many.size(); ++k) many[k] = k + 1;
  r.instances.push_back(instance("traff", "broadcast", 17, Status::holds, {bounds_with_witnesses(17, 2, {6, 8}, many)}));
  // A larger maximum without witnesses (hand-made stats) must not keep the smaller maximum's witnesses.
  Report stale = r;
  Verdict top = holds("traff-bounds");
  top.stats["max_violations"] = "3";
  stale.instances.push_back(instance("traff", "broadcast", 40, Status::holds, {top}));

  const std::string max_want = "p=9 rank 4; p=17 rank 6; p=17 rank 8";
  const std::string all_want =
      "p=5 rank 1; p=5 rank 2; p=9 rank 1; p=9 rank 3; p=9 rank 4; p=17 rank 1; p=17 rank 2; p=17 rank 3; "
      "p=17 rank 4; p=17 rank 5; and 4 more";
  // --verbose: whole lists, one line each (what a script reads).
  const std::string text = render(r, Format::text, true);
  EXPECT_NE(text.find("  traff-bounds over the sweep: max_violations 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  traff-bounds over the sweep: witnesses_max_violations: " + max_want + "\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  traff-bounds over the sweep: witnesses_violations: " + all_want + "\n"), std::string::npos)
      << text;
  EXPECT_EQ(render(stale, Format::text).find("witnesses_max_violations"), std::string::npos) << render(stale, Format::text);
  // Without --verbose: the first three witnesses, the count of the rest and
  // where the others are; a list of three or fewer stays whole.
  const std::string brief = render(r, Format::text);
  EXPECT_NE(brief.find("  traff-bounds over the sweep: witnesses_max_violations: " + max_want + "\n"), std::string::npos)
      << brief;
  EXPECT_NE(brief.find("  traff-bounds over the sweep: witnesses_violations: p=5 rank 1; p=5 rank 2; p=9 rank 1;\n"
                       "      and 11 more (--verbose or --format json: the first 10)\n"),
            std::string::npos)
      << brief;

  const std::string md = render(r, Format::markdown);
  EXPECT_NE(md.find("- `traff/broadcast` `traff-bounds`: witnesses\\_max\\_violations: " + max_want + "\n"),
            std::string::npos)
      << md;
  const std::string html = render(r, Format::html);
  EXPECT_NE(html.find("<li><code>traff/broadcast</code> <code>traff-bounds</code>: witnesses_max_violations: " +
                      max_want + "</li>"),
            std::string::npos)
      << html;
  const json j = json::parse(render(r, Format::json));
  const json& d = j.at("groups").at(0).at("distributions").at("traff-bounds");
  EXPECT_EQ(d.at("witnesses_max_violations"), max_want);
  EXPECT_EQ(d.at("witnesses_violations"), all_want);
  const std::string xml = render(r, Format::junit);
  EXPECT_EQ(markup_problem(xml), "") << xml;
  EXPECT_NE(xml.find("<property name=\"traff-bounds.witnesses_max_violations\" value=\"" + max_want + "\"/>"),
            std::string::npos)
      << xml;
}

// --- the verdict line: expected refutations vs unexpected violations --------

// swing/bandwidth holds at p = 2..5; swing/paper-listing1, declared refuted
// on purpose, holds at p = 2 and 4 and is violated at p = 6, skipped at 3, 5.
Report paper_sweep() {
  Report r;
  r.kind = "verify";
  for (uint64_t p = 2; p <= 5; ++p)
    r.instances.push_back(instance("swing", "bandwidth", p, Status::holds, {holds("exactly-once")}));
  for (uint64_t p = 2; p <= 6; ++p) {
    if (p % 2) {
      InstanceResult s = instance("swing", "paper-listing1", p, Status::skipped, {});
      s.skip_reason = "p must be even";
      r.instances.push_back(s);
    } else if (p == 6) {
      r.instances.push_back(instance("swing", "paper-listing1", p, Status::violated,
                                     {violated("exactly-once", cx(6, 0, 2, 0, "once", "twice", "counted twice"))}));
    } else {
      r.instances.push_back(instance("swing", "paper-listing1", p, Status::holds, {holds("exactly-once")}));
    }
  }
  r.expected_refutations = {{"swing", "paper-listing1"}};
  return r;
}

TEST(DeploymentVerdict, ExpectedRefutationsDoNotCryWolf) {
  const Report r = paper_sweep();
  const std::string want =
      "holds for every deployable variant; 1 expected refutation of a paper reading: swing/paper-listing1 (p=6)";
  EXPECT_EQ(reports_detail::deployment_verdict(reports_detail::group_instances(r)).line, want);
  EXPECT_EQ(r.status(), Status::violated) << "the result (and exit code) still count the violation";

  const auto ls = lines(render(r, Format::text));
  ASSERT_GE(ls.size(), 2u);
  EXPECT_EQ(ls[ls.size() - 2], "VERDICT: " + want);
  EXPECT_EQ(ls.back(), "RESULT: violated");
  const std::string text = render(r, Format::text);
  EXPECT_NE(text.find("swing/paper-listing1 (allreduce): violated (expected refutation of a paper reading)  p=2..6"),
            std::string::npos)
      << text;

  const json j = json::parse(render(r, Format::json));
  EXPECT_EQ(j.at("deployment").at("verdict"), "deploy");
  EXPECT_EQ(j.at("deployment").at("line"), want);
  EXPECT_TRUE(j.at("deployment").at("unexpected_violations").empty());
  EXPECT_EQ(j.at("deployment").at("expected_refutations"),
            json::array({json{{"group", "swing/paper-listing1"}, {"p", "6"}, {"instances", 1}}}));
  EXPECT_EQ(j.at("groups").at(1).at("expected_refutation"), true);
  EXPECT_EQ(j.at("groups").at(0).at("expected_refutation"), false);

  const std::string md = render(r, Format::markdown);
  EXPECT_NE(md.find("- verdict: " + want + "\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| `swing` | `paper-listing1` | 2..6 | violated (paper reading, expected to be refuted) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Expected refutations of paper readings\n\n### `swing/paper-listing1`: `exactly-once`"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("## Counterexamples"), std::string::npos) << md;

  const std::string html = render(r, Format::html);
  EXPECT_EQ(markup_problem(html, {"meta"}), "") << html;
  // One voice: the title, the heading and the banner say the verdict line;
  // "violated" (what RESULT says: expected refutations are violations) only
  // in the run table's result row.
  EXPECT_NE(html.find("<div class=\"banner holds\" data-verdict=\"deploy\">Verdict: <strong>holds for every "
                      "deployable variant</strong>" + want.substr(want.find(';')) + ".</div>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<title>collcheck verify report: holds for every deployable variant</title>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<h1>collcheck verify report: <span class=\"holds\">holds for every deployable variant</span></h1>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><th>result</th><td>violated (the expected refutations of paper readings are violations)"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find(">violated</span></h1>"), std::string::npos) << html;
  EXPECT_NE(md.rfind("# collcheck verify report: holds for every deployable variant\n", 0), std::string::npos) << md;
  EXPECT_EQ(html.find("do not deploy"), std::string::npos);
  EXPECT_NE(html.find("<h2>Expected refutations of paper readings</h2>"), std::string::npos);
  EXPECT_EQ(html.find("<h2>Counterexamples</h2>"), std::string::npos);

  const std::string xml = render(r, Format::junit);
  EXPECT_EQ(markup_problem(xml), "") << xml;
  EXPECT_EQ(count(xml, "type=\"expected-refutation\""), 1u) << xml;
  EXPECT_EQ(count(xml, "type=\"violated\""), 0u) << xml;
  EXPECT_NE(xml.find("<failure message=\"expected refutation of a paper reading: exactly-once: p=6 rank=0"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"verdict\" value=\"" + want + "\"/>"), std::string::npos);
}

TEST(DeploymentVerdict, UnexpectedViolationsSayDoNotDeploy) {
  Report r = paper_sweep();
  r.instances[2] = instance("swing", "bandwidth", 4, Status::violated,
                            {violated("exactly-once", cx(4, 1, 0, 0, "once", "twice", "counted twice"))});
  const std::string want =
      "do not deploy: unexpected violations in swing/bandwidth (p=4); 1 expected refutation of a paper reading: "
      "swing/paper-listing1 (p=6)";
  EXPECT_EQ(lines(render(r, Format::text)).end()[-2], "VERDICT: " + want);
  const json j = json::parse(render(r, Format::json));
  EXPECT_EQ(j.at("deployment").at("verdict"), "do-not-deploy");
  EXPECT_EQ(j.at("deployment").at("unexpected_violations"),
            json::array({json{{"group", "swing/bandwidth"}, {"p", "4"}, {"instances", 1}}}));
  const std::string html = render(r, Format::html);
  EXPECT_NE(html.find("<div class=\"banner violated\" data-verdict=\"do-not-deploy\">"), std::string::npos) << html;
  const std::string md = render(r, Format::markdown);
  // Unexpected counterexamples first, then the expected ones.
  EXPECT_LT(md.find("## Counterexamples\n\n### `swing/bandwidth`"), md.find("## Expected refutations of paper readings"))
      << md;
  EXPECT_EQ(count(render(r, Format::junit), "type=\"violated\""), 1u);

  // The same violation in a variant not declared refuted: both are unexpected.
  r.expected_refutations.clear();
  EXPECT_EQ(reports_detail::deployment_verdict(reports_detail::group_instances(r)).line,
            "do not deploy: unexpected violations in swing/bandwidth (p=4), swing/paper-listing1 (p=6)");
}

TEST(DeploymentVerdict, EveryOtherOutcome) {
  using reports_detail::deployment_verdict;
  using reports_detail::group_instances;
  // Only the paper reading: nothing deployable was checked.
  Report only = paper_sweep();
  std::erase_if(only.instances, [](const InstanceResult& i) { return i.variant == "bandwidth"; });
  auto d = deployment_verdict(group_instances(only));
  EXPECT_EQ(d.kind, reports_detail::Deployment::no_deployable_variant);
  EXPECT_EQ(d.line, "no deployable variant checked; 1 expected refutation of a paper reading: swing/paper-listing1 (p=6)");
  // A paper reading that holds wherever it was checked is said so.
  std::erase_if(only.instances, [](const InstanceResult& i) { return i.p == 6; });
  EXPECT_EQ(deployment_verdict(group_instances(only)).line,
            "no deployable variant checked; swing/paper-listing1 (a paper reading expected to be refuted) holds at "
            "every p checked here");
  // Unknown, or refused by the memory guard, in a deployable variant: not proven.
  Report r = paper_sweep();
  r.instances[1] = instance("swing", "bandwidth", 3, Status::skipped, {});
  r.instances[1].skip_reason = std::string(kRefusedPrefix) + " before allocating: needs 9 GiB";
  d = deployment_verdict(group_instances(r));
  EXPECT_EQ(d.kind, reports_detail::Deployment::not_proven);
  EXPECT_EQ(d.line, "not proven: unknown or refused by the memory guard in swing/bandwidth (p=3); 1 expected "
                    "refutation of a paper reading: swing/paper-listing1 (p=6)");
  EXPECT_EQ(d.status(), Status::unknown);
  // Nothing checked at all.
  EXPECT_EQ(deployment_verdict(group_instances(Report{})).line, "nothing was checked: no instances");
  Report skipped;
  skipped.instances.push_back(instance("ring", "", 3, Status::skipped, {}));
  EXPECT_EQ(deployment_verdict(group_instances(skipped)).kind, reports_detail::Deployment::nothing_checked);
  // Long p lists are summarised.
  Report many;
  for (uint64_t p = 3; p < 400; p += 7)
    many.instances.push_back(instance("ring", "", p, Status::violated, {violated("ports", cx(p, 0, 0, 0, "", "", "m"))}));
  EXPECT_EQ(deployment_verdict(group_instances(many)).line, "do not deploy: unexpected violations in ring (p=3..395:7)");
  for (uint64_t p : {1000, 1003, 2222, 3001, 4444, 5000, 6002})
    many.instances.push_back(instance("ring", "", p, Status::violated, {violated("ports", cx(p, 0, 0, 0, "", "", "m"))}));
  EXPECT_EQ(deployment_verdict(group_instances(many)).line, "do not deploy: unexpected violations in ring (64 instances from p=3)");
}

// --- runs of holding instances share a row ----------------------------------

TEST(InstanceRows, HoldingRunsCollapseAcrossSkippedOnes) {
  const Report r = paper_sweep();
  const auto groups = reports_detail::group_instances(r);
  ASSERT_EQ(groups.size(), 2u);
  auto describe_rows = [](const reports_detail::Group& g) {
    std::vector<std::string> out;
    for (const auto& row : reports_detail::instance_rows(g))
      out.push_back(row.p_list() + " " + to_string(effective_status(*row.instances.front())));
    return out;
  };
  EXPECT_EQ(describe_rows(groups[0]), (std::vector<std::string>{"2..5 holds"}));
  EXPECT_EQ(describe_rows(groups[1]), (std::vector<std::string>{"2, 4 holds", "3, 5 skipped", "6 violated"}));

  // A violated instance ends a run; other parameters and other verdicts start their own.
  Report mixed;
  for (uint64_t p : {2, 3, 4, 5, 6, 7}) {
    InstanceResult i = instance("tra", "tra", p, p == 4 ? Status::violated : Status::holds,
                                {p == 4 ? violated("cost", cx(4, 0, 0, 0, "", "", "m")) : holds("cost")});
    mixed.instances.push_back(i);
    i.params = "r=2";
    i.status = Status::holds;
    i.verdicts = {p == 7 ? holds("tra-formulas") : holds("cost")};
    mixed.instances.push_back(i);
  }
  std::vector<std::string> got;
  for (const auto& row : reports_detail::instance_rows(reports_detail::group_instances(mixed)[0]))
    got.push_back(row.p_list() + (row.instances.front()->params.empty() ? "" : " " + row.instances.front()->params));
  EXPECT_EQ(got, (std::vector<std::string>{"2..3", "2..6 r=2", "4", "5..7", "7 r=2"}));
}

TEST(InstanceRows, ALongSweepIsAFewRowsInHtmlAndVerboseText) {
  Report r;
  for (uint64_t p = 1; p <= 4096; ++p)
    r.instances.push_back(instance("swing", "bandwidth", p, p == 77 ? Status::violated : Status::holds,
                                   {p == 77 ? violated("ports", cx(77, 0, 0, 0, "", "", "m")) : holds("ports")}));
  const std::string html = render(r, Format::html);
  EXPECT_EQ(count(html, "<tr class=\"instance\">"), 1u) << "p=77";
  EXPECT_EQ(count(html, "<tr class=\"instances\">"), 2u);
  EXPECT_NE(html.find("<tr class=\"instances\"><td><code>swing/bandwidth</code> p=1..76 (76 instances)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<code>swing/bandwidth</code> p=78..4096 (4019 instances)"), std::string::npos);
  EXPECT_EQ(html.find("not listed here"), std::string::npos);
  const std::string text = render(r, Format::text, /*verbose=*/true);
  EXPECT_EQ(count(text, "\n    p="), 3u) << text;
  EXPECT_NE(text.find("    p=78..4096: holds (4019 instances): ports holds\n"), std::string::npos);
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// --- which method decided each instance -------------------------------------

TEST(DecidedBy, EveryFormatNamesTheMethodPerInstance) {
  Report r;
  const std::string quotient = "quotient: swing-dihedral <g>; certificate: construction & \"z3\"";
  auto with = [](InstanceResult i, std::map<std::string, std::string> stats) {
    i.stats = std::move(stats);
    return i;
  };
  r.instances.push_back(with(instance("swing", "bandwidth", 4, Status::holds, {holds("exactly-once")}),
                             {{"mode", "exact"}, {"method", quotient}}));
  r.instances.push_back(with(instance("swing", "bandwidth", 5, Status::holds, {holds("exactly-once")}),
                             {{"mode", "exact"}}));
  r.instances.push_back(with(instance("swing", "bandwidth", 6, Status::holds, {holds("exactly-once")}),
                             {{"mode", "exact"}, {"method", quotient}}));
  r.instances.push_back(instance("swing", "bandwidth", 7, Status::skipped, {}));
  EXPECT_EQ(reports_detail::decided_by(r.instances[0]), quotient);
  EXPECT_EQ(reports_detail::decided_by(r.instances[1]), "enumerated, exact");
  EXPECT_EQ(reports_detail::decided_by(r.instances[3]), "");

  // Text: the method in a word on the group's line, with how many p each
  // decided; --verbose says which p, with the whole certificate.
  const std::string brief = render(r, Format::text, false);
  EXPECT_NE(brief.find("1 skipped  [quotient 2, enumerated 1]\n"), std::string::npos) << brief;
  EXPECT_EQ(brief.find("decided at"), std::string::npos) << brief;
  EXPECT_EQ(brief.find("swing-dihedral"), std::string::npos) << brief;
  const std::string text = render(r, Format::text, true);
  EXPECT_NE(text.find("  decided at p=4, 6 by " + quotient + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  decided at p=5 by enumerated, exact\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("decided at p=7"), std::string::npos) << text;  // skipped: nothing decided it

  const std::string md = render(r, Format::markdown, false);
  EXPECT_NE(md.find("## Decided by"), std::string::npos) << md;
  EXPECT_NE(md.find("p=5: enumerated, exact"), std::string::npos) << md;

  const std::string html = render(r, Format::html, false);
  EXPECT_NE(html.find("decided at p=4, 6 by quotient: swing-dihedral &lt;g&gt;"), std::string::npos) << html;

  const json j = json::parse(render(r, Format::json, false));
  std::map<uint64_t, json> by_p;
  for (const json& i : j.at("instances")) by_p[i.at("p").get<uint64_t>()] = i.at("decided_by");
  EXPECT_EQ(by_p.at(4), quotient);
  EXPECT_EQ(by_p.at(5), "enumerated, exact");
  EXPECT_TRUE(by_p.at(7).is_null());
}

// --- the instance of a minimal counterexample --------------------------------

// Two torus shapes of one p are two instances: --dims 4,2x2 where only 4
// fails, or 2x4 (holds) beside 4x2 (fails). The minimal counterexample named
// only p ("p=4 rank=0 ..."); it names the shape, as the JSON's instances do.
TEST(MinimalCounterexample, NamesTheInstancesShapeInEveryFormat) {
  for (const auto& [holding, failing, p] : {std::tuple{"dims=2x2", "dims=4", 4}, {"dims=2x4", "dims=4x2", 8}}) {
    SCOPED_TRACE(failing);
    Report r;
    InstanceResult ok = instance("swing", "torus-paper-delta", p, Status::holds, {holds("exactly-once")});
    ok.params = holding;
    InstanceResult bad = instance("swing", "torus-paper-delta", p, Status::violated,
                                  {violated("exactly-once", cx(p, 0, 1, 0, "once", "twice", "m"))});
    bad.params = failing;
    r.instances = {ok, bad};
    const std::string where = "p=" + std::to_string(p) + " " + failing + " rank=0 step=1 block=0";
    const std::string text = render(r, Format::text);
    EXPECT_NE(text.find("    minimal counterexample: " + where + "\n"), std::string::npos) << text;
    const std::string md = render(r, Format::markdown);
    EXPECT_NE(md.find("- location: `" + where + "`\n"), std::string::npos) << md;
    const std::string html = render(r, Format::html);
    EXPECT_NE(html.find("<tr><th>location</th><td><code>" + where + "</code></td></tr>"), std::string::npos) << html;
    EXPECT_EQ(html.find(std::string(holding) + " rank="), std::string::npos) << html;
  }
  // Without params the location is the counterexample's own.
  Report plain;
  plain.instances = {instance("ring", "", 4, Status::violated, {violated("matching", cx(4, 1, 0, 2, "", "", "m"))})};
  EXPECT_NE(render(plain, Format::text).find("minimal counterexample: p=4 rank=1 step=0 block=2\n"), std::string::npos);
}

// --- strings of the input ----------------------------------------------------

TEST(Visible, EscapesWhatIsNotTextAndKeepsTheRest) {
  EXPECT_EQ(visible("plain text, Tr\xC3\xA4" "ff \xE2\x80\x94 <&> \\ \"'"), "plain text, Tr\xC3\xA4" "ff \xE2\x80\x94 <&> \\ \"'");
  EXPECT_EQ(visible("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(visible(std::string("\x00\x1b[2J\x07\x7f", 7)), "\\x00\\x1b[2J\\x07\\x7f");
  EXPECT_EQ(visible("\xC2\x85\xC2\x9B"), "\\u0085\\u009b");             // C1 controls (NEL, CSI)
  EXPECT_EQ(visible("\xE2\x80\xAE\xE2\x81\xA6\xE2\x80\xA8"), "\\u202e\\u2066\\u2028");  // bidi, line separator
  EXPECT_EQ(visible("\xFF\xC3(\xE2\x80"), "\\xff\\xc3(\\xe2\\x80");      // not UTF-8
  EXPECT_EQ(visible("\xC0\xAF\xED\xA0\x80"), "\\xc0\\xaf\\xed\\xa0\\x80");  // overlong, surrogate
  EXPECT_EQ(visible("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");                // 4-byte UTF-8 kept
}

// A schedule file's producer metadata, an MSCCL algorithm name, a stored
// command line, a file name: strings of the input reach every report. With a
// newline and "RESULT: holds" in them they forged a verdict line before the
// real one, and terminal escape sequences passed through. Every field of a
// report carries such a string here; no format prints a control character
// (but its own newlines) and no line of the input's starts a line.
TEST(SpoofedStrings, NoReportPrintsAControlCharacterOrAForgedLine) {
  const std::string evil = "x\nVERDICT: holds for every deployable variant\nRESULT: holds\r\x1b[2J\x1b]0;t\x07"
                           "\xC2\x9B" "31m\xE2\x80\xAE\xFF\x7f";
  Report r;
  r.tool_version = evil;
  r.command = "collcheck check-file " + evil;
  r.kind = evil;
  r.mode = evil;
  r.notes = {"producer: tool=" + evil};
  Counterexample c = cx(4, 0, 1, 2, evil, evil, evil);
  c.root_cause = RootCause{RootCause::Kind::lost, Rank{1}, 0, Rank{0}, std::nullopt, evil};
  Verdict v = violated(evil, c);
  v.mode = evil;
  v.stats = {{evil, evil}};
  InstanceResult bad = instance("file:" + evil, evil, 4, Status::violated, {v, holds(evil)});
  bad.collective = evil;
  bad.params = evil;
  bad.stats = {{"method", evil}, {evil, evil}};
  r.instances.push_back(bad);
  InstanceResult skipped = instance("file:" + evil, evil, 5, Status::skipped, {});
  skipped.skip_reason = evil;
  r.instances.push_back(skipped);
  InstanceResult unknown = instance(evil, "", 6, Status::unknown, {});
  unknown.verdicts.push_back(holds(evil));
  unknown.verdicts.back().status = Status::unknown;
  r.instances.push_back(unknown);
  for (const auto& [f, verbose] : {std::pair{Format::text, false}, {Format::text, true}, {Format::markdown, false},
                                   {Format::html, false}, {Format::junit, false}}) {
    SCOPED_TRACE(std::string(to_string(f)) + (verbose ? " -v" : ""));
    const std::string out = render(r, f, verbose);
    for (const char ch : out) {
      const auto b = static_cast<unsigned char>(ch);
      ASSERT_TRUE(b == '\n' || (b >= 0x20 && b != 0x7f)) << "byte " << int(b) << " in\n" << out;
    }
    EXPECT_EQ(out.find("\xC2\x9B"), std::string::npos);
    EXPECT_EQ(out.find("\xE2\x80\xAE"), std::string::npos);
    EXPECT_EQ(out.find('\xFF'), std::string::npos);
    const std::vector<std::string> ls = lines(out);
    std::vector<std::string> verdict_lines;
    for (const std::string& l : ls)
      if (l.rfind("VERDICT:", 0) == 0 || l.rfind("RESULT:", 0) == 0) verdict_lines.push_back(l);
    if (f == Format::text) {  // the renderer's own two lines, last
      ASSERT_EQ(verdict_lines.size(), 2u) << out;
      EXPECT_EQ(verdict_lines[0].rfind("VERDICT: do not deploy", 0), 0u) << out;
      EXPECT_EQ(verdict_lines[1], "RESULT: violated");
      EXPECT_EQ(ls.back(), "RESULT: violated");
    } else {
      EXPECT_TRUE(verdict_lines.empty()) << out;
    }
    EXPECT_NE(out.find("RESULT: holds"), std::string::npos) << "the string is shown, escaped";
  }
  // JSON escapes control characters itself (\u001b, \n).
  const std::string js = render(r, Format::json);
  EXPECT_EQ(js.find('\x1b'), std::string::npos);
  EXPECT_EQ(json::parse(js).at("notes").at(0).get<std::string>().rfind("producer: tool=x\nVERDICT", 0), 0u);
}

}  // namespace
}  // namespace collcheck
