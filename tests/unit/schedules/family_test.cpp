// The typed family interface (schedules/family.hpp, properties/family_property.hpp,
// smt/query_registry.hpp):
//  * every family's resolve gives the typed parameters the paper's rules give
//    (expected values derived here from the rules, with other code than the
//    family's), and the generators build exactly those instances;
//  * the registry is the list of families: every algorithm and variant
//    carries its family's id, no two families declare the same algorithm;
//  * every family property a variant declares is implemented by its family
//    and in the catalog, every implemented one is declared by some variant
//    (reachable from verify), and the plan verify runs has them all;
//  * every SMT query applies to some registered variant (reachable from
//    prove), a family's queries only to that family's algorithms;
//  * the capabilities (traff-table format, analyze) are where the CLI used to
//    compare names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/tra/tra2.hpp"
#include "schedules/tra/tra_family.hpp"
#include "schedules/traff/traff_family.hpp"
#include "schedules/translation_equivariant.hpp"
#include "schedules/trivance/trivance_family.hpp"
#include "smt/query_registry.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

using test::registered_algorithm;
using test::registered_variant;

// ceil(sqrt(x)) by floating point, corrected: independent of the families' loops.
uint64_t isqrt_ceil(uint64_t x) {
  auto s = static_cast<uint64_t>(std::llround(std::sqrt(static_cast<double>(x))));
  while (s * s < x) ++s;
  while (s > 0 && (s - 1) * (s - 1) >= x) --s;
  return s;
}

// Fan et al. Sec. III-B: the optimal radix sqrt(P), rounded up, at least 2.
TEST(FamilyResolve, TraRadixRule) {
  for (uint64_t p = 1; p <= 300; ++p) {
    InstanceParams ip{p};
    const uint64_t rule = std::max<uint64_t>(2, isqrt_ceil(p));
    EXPECT_EQ(tra::resolve(registered_variant("tra", "tra"), ip)->radix, rule) << p;
    EXPECT_EQ(tra::resolve(registered_variant("tra", "bruck"), ip)->radix, 2u) << p;
    EXPECT_EQ(tra::resolve(registered_variant("tra", "spread-out"), ip)->radix, p) << p;
    if (p >= 2) {
      // The generator runs the resolved radix.
      auto tra = [&](const char* v) {
        return dynamic_cast<const Tra&>(translation_direct(*registered_variant("tra", v).make(ip))).radix();
      };
      EXPECT_EQ(tra("tra"), rule) << p;
      EXPECT_EQ(tra("bruck"), 2u) << p;
      EXPECT_EQ(tra("spread-out"), p) << p;
    }
  }
  InstanceParams given{20};
  given.radix = 5;
  EXPECT_EQ(tra::resolve(registered_variant("tra", "tra"), given)->radix, 5u);
  EXPECT_FALSE(tra::resolve(registered_variant("swing", "bandwidth"), given).has_value());
}

// TRA2's defaults: Q the largest divisor of P with Q^2 <= P, N = P/Q,
// r1 = ceil(sqrt Q) and r2 = ceil(sqrt N), each at least 2 and at most the
// phase's size (0 for a phase of one).
TEST(FamilyResolve, Tra2Defaults) {
  for (uint64_t p = 1; p <= 300; ++p) {
    uint64_t q = 1;
    for (uint64_t d = 1; d * d <= p; ++d)
      if (p % d == 0) q = d;
    const uint64_t n = p / q;
    auto r = [](uint64_t m) -> uint64_t { return m < 2 ? 0 : std::min(m, std::max<uint64_t>(2, isqrt_ceil(m))); };
    for (const char* v : {"tra2", "paper-literal", "paper-formulas"}) {
      const auto t = tra::resolve(registered_variant("tra2", v), InstanceParams{p});
      ASSERT_TRUE(t.has_value());
      EXPECT_TRUE(t->two_layer);
      EXPECT_EQ(t->ppn, q) << p;
      EXPECT_EQ(t->nodes, n) << p;
      EXPECT_EQ(t->r1, r(q)) << p;
      EXPECT_EQ(t->r2, r(n)) << p;
      EXPECT_EQ(t->paper_literal(), std::string(v) == "paper-literal");
    }
    const auto schedule = registered_variant("tra2", "tra2").make(InstanceParams{p});
    const auto& made = dynamic_cast<const Tra2&>(translation_direct(*schedule));  // wrapped on N x Q
    EXPECT_EQ(made.q(), q) << p;
    EXPECT_EQ(made.n(), n) << p;
    if (q >= 2) {
      EXPECT_EQ(made.r1(), r(q)) << p;
    }
    if (n >= 2) {
      EXPECT_EQ(made.r2(), r(n)) << p;
    }
  }
  InstanceParams given{24, 0, 0, 3, 2, 6};  // Q = 6, N = 4, r1 = 3, r2 = 2
  const auto t = tra::resolve(registered_variant("tra2", "tra2"), given);
  EXPECT_EQ(t->ppn, 6u);
  EXPECT_EQ(t->nodes, 4u);
  EXPECT_EQ(t->r1, 3u);
  EXPECT_EQ(t->r2, 2u);
}

// Träff: --n is the number of blocks per rank, 8 by default; Trivance: the
// paper's n is the number of nodes, p.
TEST(FamilyResolve, TraffBlocksAndTrivanceNodes) {
  for (uint64_t p = 1; p <= 20; ++p) {
    InstanceParams ip{p};
    EXPECT_EQ(traff::resolve(ip).blocks, 8u);
    EXPECT_EQ(trivance::resolve(ip).nodes, p);
    for (const AlgorithmInfo& a : traff_family().algorithms)
      for (const VariantInfo& v : a.variants) {
        if (v.violates(ip)) continue;
        // Every Träff collective has n blocks per rank (p*n for the all-to-all shapes).
        const uint64_t nb = v.make(ip)->num_blocks();
        EXPECT_TRUE(nb == 8 || nb == 8 * p) << a.name << "/" << v.name << " p=" << p << ": " << nb;
      }
    ip.blocks = 3;
    EXPECT_EQ(traff::resolve(ip).blocks, 3u);
    EXPECT_EQ(registered_variant("traff", "broadcast").make(ip)->num_blocks(), 3u);
  }
}

TEST(Families, RegistryIsTheListOfFamilies) {
  std::set<std::string> names;
  std::set<FamilyId> ids;
  size_t count = 0;
  for (const Family& f : families()) {
    EXPECT_TRUE(ids.insert(f.id).second) << to_string(f.id) << " listed twice";
    EXPECT_FALSE(f.algorithms.empty()) << to_string(f.id);
    for (const AlgorithmInfo& a : f.algorithms) {
      EXPECT_TRUE(names.insert(a.name).second) << a.name << " declared by two families";
      EXPECT_EQ(a.family, f.id) << a.name;
      for (const VariantInfo& v : a.variants) EXPECT_EQ(v.family, f.id) << a.name << "/" << v.name;
      ++count;
    }
  }
  EXPECT_EQ(ids.size(), 8u);
  ASSERT_EQ(registry().size(), count);
  size_t i = 0;
  for (const Family& f : families())
    for (const AlgorithmInfo& a : f.algorithms) EXPECT_EQ(registry()[i++].name, a.name);
}

// Typed identity: within a family, (algorithm kind) and (variant kind) tell
// apart what the family's own code must tell apart.
TEST(Families, KindsAreDistinctWhereTheFamilyUsesThem) {
  std::set<int> tra_kinds;
  for (const AlgorithmInfo& a : tra_family().algorithms)
    for (const VariantInfo& v : a.variants) EXPECT_TRUE(tra_kinds.insert(v.kind).second) << v.name;
  std::set<int> algo_kinds;
  for (const Family& f : families()) {
    algo_kinds.clear();
    for (const AlgorithmInfo& a : f.algorithms) EXPECT_TRUE(algo_kinds.insert(a.kind).second) << a.name;
  }
}

TEST(FamilyProperties, DeclaredImplementedAndReachable) {
  std::set<std::string> catalog;
  for (const PropertyInfo& p : property_catalog())
    if (!p.generic) catalog.insert(p.name);
  std::set<std::string> declared_anywhere;
  for (const Family& f : families()) {
    std::set<std::string> declared;
    for (const AlgorithmInfo& a : f.algorithms)
      for (const VariantInfo& v : a.variants)
        for (const std::string& name : v.family_properties) {
          declared.insert(name);
          EXPECT_NE(find_family_property(f.id, name), nullptr) << a.name << "/" << v.name << ": " << name;
          EXPECT_TRUE(catalog.count(name)) << name << " is not in the catalog";
        }
    for (const FamilyProperty& p : family_properties(f.id)) {
      EXPECT_TRUE(declared.count(p.name)) << to_string(f.id) << ": " << p.name << " is declared by no variant";
      EXPECT_NE(static_cast<bool>(p.check), static_cast<bool>(p.step_hook)) << p.name << ": exactly one of check, step_hook";
    }
    declared_anywhere.insert(declared.begin(), declared.end());
  }
  // Every algorithm-specific catalog property belongs to some family.
  EXPECT_EQ(declared_anywhere, catalog);
}

// What verify plans for a variant is what it declares (all selected).
TEST(FamilyProperties, PlanRunsEveryDeclaredProperty) {
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      const FamilyPlan plan = plan_family_properties(v, InstanceParams{4}, CheckOptions{});
      std::vector<std::string> want = v.family_properties;
      std::vector<std::string> got = plan.names();
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want) << a.name << "/" << v.name;
    }
  EXPECT_TRUE(static_cast<bool>(family_step_hook(registered_variant("swing", "bandwidth"), InstanceParams{8})));
  EXPECT_FALSE(static_cast<bool>(family_step_hook(registered_variant("ring", "bandwidth"), InstanceParams{8})));
}

TEST(FamilyProperties, SharedStateIsComputedOnce) {
  const VariantInfo& v = registered_variant("traff", "broadcast");
  FamilyContext ctx(v, InstanceParams{8}, {});
  int made = 0;
  ctx.shared<int>([&] { return ++made; });
  ctx.shared<int>([&] { return ++made; });
  EXPECT_EQ(made, 1);
  const auto out = check_family_properties({prop::traff_conditions, prop::traff_bounds}, v, InstanceParams{8});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].stats.count("tables_seconds"));  // the tables were computed (once) for the first
  EXPECT_FALSE(out[1].stats.count("tables_seconds"));
}

TEST(FamilyQueries, EveryQueryIsReachableAndFamilyQueriesStayInTheirFamily) {
  for (const smt::Query& q : smt::queries()) {
    std::set<FamilyId> fams;
    for (const AlgorithmInfo& a : registry())
      for (const VariantInfo& v : a.variants)
        if (q.applies_to(a, v)) fams.insert(a.family);
    EXPECT_FALSE(fams.empty()) << q.name << " applies to no registered variant";
    const bool generic = q.name == "smt-step-lower-bound" || q.name == "smt-translation-validation";
    if (!generic) {
      EXPECT_EQ(fams.size(), 1u) << q.name;
    }
  }
  auto applies = [](const std::string& query, const char* algo, const char* variant) {
    for (const smt::Query& q : smt::queries())
      if (q.name == query) return q.applies_to(registered_algorithm(algo), registered_variant(algo, variant));
    ADD_FAILURE() << "no query " << query;
    return false;
  };
  EXPECT_TRUE(applies("smt-tra-route", "tra", "bruck"));
  EXPECT_FALSE(applies("smt-tra-route", "tra2", "tra2"));
  EXPECT_TRUE(applies("smt-trivance-peers", "trivance", "latency"));
  EXPECT_FALSE(applies("smt-trivance-peers", "trivance-torus", "latency"));
  EXPECT_TRUE(applies("smt-traff-tables", "traff-reduce", "reduce"));
  EXPECT_FALSE(applies("smt-step-lower-bound", "traff-allgather", "allgather"));
  EXPECT_FALSE(applies("smt-step-lower-bound", "tra2", "tra2"));
  EXPECT_TRUE(applies("smt-step-lower-bound", "tra", "tra"));
}

TEST(Families, CapabilitiesReplaceNameChecks) {
  std::vector<std::string> tables, analysed;
  for (const AlgorithmInfo& a : registry()) {
    if (a.capabilities.traff_table_format) tables.push_back(a.name);
    if (a.capabilities.analysis) analysed.push_back(a.name);
  }
  EXPECT_EQ(tables, std::vector<std::string>{"traff"});
  EXPECT_EQ(analysed, std::vector<std::string>{"tra"});
}

}  // namespace
}  // namespace collcheck
