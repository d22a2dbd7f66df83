#pragma once
// Shared by tests/regression/paper_rules_test.cpp and
// tests/slow/paper_rules_sweep_test.cpp: sweep the registry and compare the
// set of failing p and failing properties with what README.md states.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "checker/sweep.hpp"
#include "schedules/swing_math.hpp"

namespace collcheck {

inline Report sweep(const std::string& algo, const std::string& variant, uint64_t max_p) {
  SweepRequest req;
  req.targets = resolve_targets(algo, variant);
  for (uint64_t p = 1; p <= max_p; ++p) req.ps.push_back(p);
  req.skip_restricted = true;
  req.progress = false;
  return run_sweep(req);
}

inline void expect_correct_variants_hold(uint64_t max_p) {
  for (const auto& a : registry())
    for (const auto& v : a.variants) {
      if (!v.expected_to_hold) continue;
      SCOPED_TRACE(a.name + "/" + v.name);
      Report r = sweep(a.name, v.name, max_p);
      for (const auto& i : r.instances)
        EXPECT_TRUE(i.status == Status::holds || i.status == Status::skipped) << "p=" << i.p;
    }
}

// README.md, "What collcheck found", item 7.
inline void expect_paper_rules_fail_as_documented(uint64_t max_p) {
  auto pow2 = [](uint64_t p) { return swing::is_pow2(p); };
  struct Expect {
    std::string variant;
    // For each p the variant accepts: the set of properties that must fail.
    std::function<std::set<std::string>(uint64_t)> failing;
  };
  std::vector<Expect> expects = {
      {"paper-listing1",
       [&](uint64_t p) { return pow2(p) ? std::set<std::string>{} : std::set<std::string>{"exactly-once", "cost"}; }},
      {"paper-laststep",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         return {"causality", "postcondition"};  // cost too at some p: checked as a subset below
       }},
      {"paper-odd",
       [&](uint64_t p) -> std::set<std::string> {
         std::set<std::string> f;
         if (pow2(p - 1)) f.insert("postcondition");
         if (p >= 7) f.insert("ports");
         return f;
       }},
      {"paper-latency",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         if (p % 2) return {"matching", "postcondition"};
         return {"exactly-once"};
       }},
  };
  for (const Expect& e : expects) {
    SCOPED_TRACE("swing/" + e.variant);
    Report r = sweep("swing", e.variant, max_p);
    for (const auto& i : r.instances) {
      if (i.status == Status::skipped) continue;
      std::set<std::string> failed;
      for (const auto& v : i.verdicts)
        if (v.status == Status::violated) failed.insert(v.property);
      std::set<std::string> want = e.failing(i.p);
      if (e.variant == "paper-laststep") failed.erase("cost");  // README: cost fails at some of them
      EXPECT_EQ(failed, want) << "p=" << i.p;
    }
  }
}

}  // namespace collcheck
