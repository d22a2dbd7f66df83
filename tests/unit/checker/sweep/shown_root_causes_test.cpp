// trace_shown_root_causes (checker/sweep/sweep.hpp): a sweep checked without
// tracing root causes, then traced only where a group shows its minimal
// counterexample, must render the text, Markdown and HTML reports exactly as
// a sweep that traced every refuted instance does; JSON (every instance's)
// differs only by the untraced counterexamples' missing root causes, and the
// verdicts never change.
//
// Also shown: the comparison is not vacuous (the sweeps carry root causes in
// what the reports show), an untraced sweep without the post-pass shows none
// (so the post-pass is what puts them there), and a report the post-pass
// does not belong to (another request's instances) is left alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker/sweep/sweep.hpp"
#include "reports/report.hpp"

namespace collcheck {
namespace {

SweepRequest request(const std::string& algo, const std::vector<uint64_t>& ps, bool trace) {
  SweepRequest req;
  req.targets = resolve_targets(algo, "all");
  req.ps = ps;
  req.skip_restricted = true;
  req.progress = false;
  req.check.trace_root_causes = trace;
  return req;
}

Report sweep(const SweepRequest& req) {
  Report r = run_sweep(req);
  r.seconds = 0;  // the one field that differs between two runs
  for (InstanceResult& i : r.instances) i.seconds = 0;
  r.tool_version = "test";
  r.command = "collcheck verify ...";
  return r;
}

size_t traced(const Report& r) {
  size_t n = 0;
  for (const InstanceResult& i : r.instances)
    for (const Verdict& v : i.verdicts) n += v.counterexample && v.counterexample->root_cause ? 1 : 0;
  return n;
}

std::vector<uint64_t> range(uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> ps;
  for (uint64_t p = lo; p <= hi; ++p) ps.push_back(p);
  return ps;
}

void expect_same_shown_reports(const std::string& algo, const std::vector<uint64_t>& ps) {
  const Report all = sweep(request(algo, ps, true));
  const Report shown = sweep(request(algo, ps, false));
  ASSERT_EQ(all.instances.size(), shown.instances.size());
  // Not vacuous: refuted instances with traced counterexamples, more of them
  // than the shown ones.
  ASSERT_GT(traced(shown), 0u) << algo;
  ASSERT_GT(traced(all), traced(shown)) << algo;
  for (const char* format : {"text", "markdown", "html"}) {
    const Format f = *format_from_string(format);
    EXPECT_EQ(render(all, f, false), render(shown, f, false)) << algo << " " << format;
    EXPECT_EQ(render(all, f, true), render(shown, f, true)) << algo << " " << format << " verbose";
  }
  // Every instance's verdicts equal; a traced counterexample of the shown
  // sweep is the same as the full sweep's.
  for (size_t k = 0; k < all.instances.size(); ++k) {
    const auto &a = all.instances[k], &b = shown.instances[k];
    ASSERT_EQ(a.verdicts.size(), b.verdicts.size());
    for (size_t j = 0; j < a.verdicts.size(); ++j) {
      const Verdict &x = a.verdicts[j], &y = b.verdicts[j];
      EXPECT_EQ(x.status, y.status);
      EXPECT_EQ(x.checks, y.checks);
      EXPECT_EQ(x.violations, y.violations);
      ASSERT_EQ(x.counterexample.has_value(), y.counterexample.has_value());
      if (!x.counterexample) continue;
      EXPECT_EQ(x.counterexample->location(), y.counterexample->location());
      EXPECT_EQ(x.counterexample->actual, y.counterexample->actual);
      if (y.counterexample->root_cause) {
        ASSERT_TRUE(x.counterexample->root_cause.has_value());
        EXPECT_EQ(x.counterexample->root_cause->text, y.counterexample->root_cause->text);
        EXPECT_EQ(x.counterexample->root_cause->kind, y.counterexample->root_cause->kind);
      }
    }
  }
}

TEST(ShownRootCauses, SwingEveryVariantRendersAsTracingEveryInstance) {
  // Both parities, the quotient (even p) and enumeration (odd p, the
  // composition) paths, exact and fingerprint mode (p > 1024).
  std::vector<uint64_t> ps = range(1, 70);
  for (uint64_t p : {1030, 1031, 2047, 2050}) ps.push_back(p);
  expect_same_shown_reports("swing", ps);
}

TEST(ShownRootCauses, TrivanceEveryVariantRendersAsTracingEveryInstance) {
  expect_same_shown_reports("trivance", range(1, 40));
}

TEST(ShownRootCauses, WithoutThePostPassNothingIsTraced) {
  SweepRequest req = request("swing", range(1, 40), false);
  req.run_here = [](size_t) { return true; };  // a shard: run_sweep leaves the tracing to whoever merges
  Report r = run_sweep(req);
  EXPECT_EQ(traced(r), 0u);
  req.run_here = nullptr;
  trace_shown_root_causes(r, req);
  EXPECT_GT(traced(r), 0u);
}

TEST(ShownRootCauses, AnotherRequestsReportIsLeftAlone) {
  SweepRequest req = request("swing", range(1, 40), false);
  req.run_here = [](size_t) { return true; };
  Report r = run_sweep(req);
  SweepRequest other = request("swing", range(1, 41), false);
  trace_shown_root_causes(r, other);  // 41 p values: not this report's instances
  EXPECT_EQ(traced(r), 0u);
}

}  // namespace
}  // namespace collcheck
