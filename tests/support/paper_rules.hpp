#pragma once
// Shared by tests/regression/schedules/paper_rules_test.cpp and
// tests/slow/schedules/paper_rules_sweep_test.cpp: sweep the registry and compare the
// set of failing p and failing properties with what docs/findings/swing.md states.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checker/sweep/sweep.hpp"
#include "schedules/swing/swing_math.hpp"

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
      // All-to-all has p^2 blocks (p^3 cells of flow state): the generic
      // checker goes to 128 here; alltoall-delivery covers every (P, r) up to
      // 1024 (bench/bench_tra.cpp, docs/performance.md).
      const uint64_t cap = a.collective == Collective::alltoall ? std::min<uint64_t>(max_p, 128) : max_p;
      Report r = sweep(a.name, v.name, cap);
      for (const auto& i : r.instances)
        EXPECT_TRUE(i.status == Status::holds || i.status == Status::skipped) << "p=" << i.p;
    }
}

// docs/findings/swing.md ("What collcheck found in the Swing paper"), items 1-5
// and 9. Every
// set below is exact (a property that starts or stops failing at some p fails
// the test), except the properties an entry lists as unpinned, whose p set has
// no closed form (measured lists: tests/regression/schedules/paper_rules_test.cpp).
inline void expect_paper_rules_fail_as_documented(uint64_t max_p) {
  auto pow2 = [](uint64_t p) { return swing::is_pow2(p); };
  // The largest power of two below p (p >= 2).
  auto floor_pow2 = [](uint64_t p) { return std::bit_floor(p - 1); };
  // Where a rank's peer-index sets list its own block: 2^k < p < 4/3 2^k
  // (schedules/swing/swing_bandwidth.hpp). Every rule that sends each block once
  // sends p blocks instead of p-1 there unless it skips the own block (cost).
  auto own_listed = [&](uint64_t p) { return !pow2(p) && 3 * p < 4 * floor_pow2(p); };
  struct Expect {
    std::string variant;
    // For each p the variant accepts: the set of properties that must fail.
    std::function<std::set<std::string>(uint64_t)> failing;
    std::set<std::string> unpinned = {};  // may fail or hold at any p
  };
  std::vector<Expect> expects = {
      // Double counts reach every final value: exactly-once (at the reduce)
      // and postcondition (the result), in both modes; 14 instead of 10
      // blocks per rank at p = 6 (cost).
      {"paper-listing1",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         return {"exactly-once", "postcondition", "cost"};
       }},
      // Contributions are lost at every even non-power of two
      // (postcondition). With 2^k < p < 2^(k+1): the volume exceeds 2(p-1)
      // blocks exactly when p < 4/3 * 2^k (81 p in 1..512: 10, 18..20,
      // 34..42, 66..84, 130..170, 258..340), and a copy carries fewer
      // contributions than its receiver holds (count-based causality)
      // exactly when also p > 7/6 * 2^k (42 p in 1..512: 10, 20, 38..42,
      // 76..84, 150..170, 300..340). Elsewhere each allgather copy replaces
      // a partial result with a different one of at least the same size:
      // wrong data, but not a causality violation.
      {"paper-laststep",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         const uint64_t k2 = floor_pow2(p);
         std::set<std::string> f = {"postcondition"};
         if (own_listed(p)) f.insert("cost");
         if (own_listed(p) && 6 * p > 7 * k2) f.insert("causality");
         return f;
       }},
      // The same without the own block: only the lost contributions remain.
      {"paper-laststep-skip-own",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         return {"postcondition"};
       }},
      // Listing 1's printed call (powers of two only): each rank sends more
      // than p-1 reduce-scatter blocks (cost) from p = 4, and the mirrored
      // allgather copies stale partials over complete blocks (causality,
      // postcondition).
      {"paper-listing1-printed",
       [&](uint64_t p) -> std::set<std::string> {
         if (p <= 2) return {};
         return {"causality", "cost", "postcondition"};
       }},
      // The later-step rule fails only where a rank lists its own block: its
      // partial returns to it (exactly-once, postcondition) and it sends p
      // blocks (cost). Elsewhere it is the default `bandwidth`.
      {"paper-later",
       [&](uint64_t p) -> std::set<std::string> {
         if (!own_listed(p)) return {};
         return {"exactly-once", "postcondition", "cost"};
       }},
      // The earlier-step rule strands contributions at every even non-power
      // of two (postcondition); with the own block sent, also cost where it is
      // listed. Some allgather copies then also carry fewer contributions than
      // their receiver holds (causality), at an irregular set of p.
      {"paper-earlier",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         if (own_listed(p)) return {"postcondition", "cost"};
         return {"postcondition"};
       },
       {"causality"}},
      {"paper-earlier-skip-own",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         return {"postcondition"};
       },
       {"causality"}},
      {"paper-odd",
       [&](uint64_t p) -> std::set<std::string> {
         std::set<std::string> f;
         if (pow2(p - 1)) f.insert("postcondition");
         if (p >= 7) f.insert("ports");
         return f;
       }},
      // paper-odd's failures, and where a ring rank of p-1 lists its own
      // block, paper-later's at p-1: its partial returns to it (exactly-once,
      // postcondition) and it sends one block more (cost).
      {"paper-odd-later",
       [&](uint64_t p) -> std::set<std::string> {
         std::set<std::string> f;
         if (pow2(p - 1)) f.insert("postcondition");
         if (p >= 7) f.insert("ports");
         if (own_listed(p - 1)) f.insert({"exactly-once", "postcondition", "cost"});
         return f;
       }},
      // Odd p: pi is not an involution (matching), data is lost
      // (postcondition). Even non-powers of two: double counts
      // (exactly-once) that reach the result (postcondition).
      {"paper-latency",
       [&](uint64_t p) -> std::set<std::string> {
         if (pow2(p)) return {};
         if (p % 2) return {"matching", "postcondition"};
         return {"exactly-once", "postcondition"};
       }},
  };
  for (const Expect& e : expects) {
    SCOPED_TRACE("swing/" + e.variant);
    Report r = sweep("swing", e.variant, max_p);
    size_t judged = 0;
    for (const auto& i : r.instances) {
      if (i.status == Status::skipped) continue;
      ++judged;
      std::set<std::string> failed;
      for (const auto& v : i.verdicts)
        if (v.status == Status::violated && !e.unpinned.count(v.property)) failed.insert(v.property);
      EXPECT_EQ(failed, e.failing(i.p)) << "p=" << i.p;
    }
    EXPECT_GT(judged, 0u) << "every instance was skipped";
  }
  // Every refuted Swing ring variant has its failures pinned here (the torus
  // readings, which take --dims, in tests/regression/schedules/swing/swing_torus_cli_test.cpp).
  for (const auto& v : find_algorithm("swing")->variants) {
    if (v.expected_to_hold || v.takes("dims")) continue;
    bool pinned = false;
    for (const Expect& e : expects) pinned |= e.variant == v.name;
    EXPECT_TRUE(pinned) << "swing/" << v.name << " is refuted but its failing p are not pinned";
  }
}

// The p in 1..max_p at which `property` of swing/`variant` is violated.
inline std::set<uint64_t> failing_ps(const std::string& variant, const std::string& property, uint64_t max_p) {
  std::set<uint64_t> out;
  for (const auto& i : sweep("swing", variant, max_p).instances)
    for (const auto& v : i.verdicts)
      if (v.property == property && v.status == Status::violated) out.insert(i.p);
  return out;
}

}  // namespace collcheck
