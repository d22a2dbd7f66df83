// Verdict statistics aggregate over a sweep as their property declares
// (properties/stat_aggregation.hpp), never by the shape of their names:
//  * a statistic with a new name and a declared aggregation (max, histogram,
//    witnesses, witnesses of a max) is aggregated, through the same summary
//    every renderer prints (before the declarations, only names starting with
//    "max_"/"witnesses_" or ending in "_histogram" were, so none of these);
//  * an undeclared statistic is per instance only, even when its name looks
//    like an aggregating one ("max_...", "..._histogram", "witnesses_..."),
//    in every format (before, a suffix match was aggregated silently);
//  * a malformed declaration is refused;
//  * every statistic traff-bounds and tra-formulas declare is one they really
//    set (a renamed statistic would otherwise silently stop aggregating).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/stat_aggregation.hpp"
#include "properties/tra/tra_formulas.hpp"
#include "properties/traff/traff_bounds.hpp"
#include "properties/witnesses.hpp"
#include "reports/report.hpp"
#include "reports/summary.hpp"

namespace collcheck {
namespace {

using nlohmann::json;
using reports_detail::group_instances;
using reports_detail::PropertySummary;

InstanceResult instance(uint64_t p, const std::string& property, std::map<std::string, std::string> stats) {
  Verdict v;
  v.property = property;
  v.checks = 1;
  v.mode = "exact";
  v.stats = std::move(stats);
  InstanceResult i;
  i.algorithm = "demo";
  i.variant = "v";
  i.collective = "allreduce";
  i.p = p;
  i.status = Status::holds;
  i.verdicts = {v};
  return i;
}

const PropertySummary& summary_of(const std::vector<reports_detail::Group>& groups, const std::string& property) {
  for (const PropertySummary& ps : groups.at(0).properties)
    if (ps.property == property) return ps;
  throw std::logic_error("no summary for " + property);
}

// Names no suffix rule ever matched, declared for a property of their own.
constexpr StatDecl kDemoStats[] = {
    {"longest_chain", Aggregate::max},
    {"chain_lengths", Aggregate::histogram},
    {"who_is_slow", Aggregate::witnesses},
    {"who_has_the_longest_chain", Aggregate::witnesses_of_max, "longest_chain"},
};

TEST(StatAggregation, ANewNameAggregatesAsDeclared) {
  const StatDeclarations decls = {{"demo-property", kDemoStats}};
  Report r;
  r.instances.push_back(instance(4, "demo-property",
                                 {{"longest_chain", "2"}, {"chain_lengths", "1:3 2:1"},
                                  {"who_is_slow", "p=4 rank 1"}, {"who_has_the_longest_chain", "p=4 rank 3"},
                                  {"per_instance_note", "7"}}));
  r.instances.push_back(instance(8, "demo-property",
                                 {{"longest_chain", "5"}, {"chain_lengths", "1:4 5:1"},
                                  {"who_is_slow", "p=8 rank 2"}, {"who_has_the_longest_chain", "p=8 rank 6"},
                                  {"per_instance_note", "9"}}));
  r.instances.push_back(instance(16, "demo-property",
                                 {{"longest_chain", "5"}, {"chain_lengths", "2:2"},
                                  {"who_has_the_longest_chain", "p=16 rank 0"}}));
  const auto groups = group_instances(r, decls);
  const PropertySummary& ps = summary_of(groups, "demo-property");
  const std::map<std::string, std::string> want = {
      {"longest_chain", "5"},
      {"chain_lengths", "1:7 2:3 5:1"},
      {"who_is_slow", "p=4 rank 1; p=8 rank 2"},
      // p = 4 reached only 2: its witness dropped out; p = 8 and 16 tie at 5.
      {"who_has_the_longest_chain", "p=8 rank 6; p=16 rank 0"},
  };
  EXPECT_EQ(ps.distribution, want);
  EXPECT_EQ(ps.kind("longest_chain"), Aggregate::max);
  EXPECT_EQ(ps.kind("chain_lengths"), Aggregate::histogram);
  EXPECT_EQ(ps.kind("who_is_slow"), Aggregate::witnesses);
  EXPECT_EQ(ps.kind("who_has_the_longest_chain"), Aggregate::witnesses_of_max);
  EXPECT_EQ(ps.kind("per_instance_note"), Aggregate::none);

  // The same statistics of a property that does not declare them: per instance only.
  Report other = r;
  for (InstanceResult& i : other.instances) i.verdicts[0].property = "undeclaring-property";
  const auto other_groups = group_instances(other, decls);
  EXPECT_TRUE(summary_of(other_groups, "undeclaring-property").distribution.empty());
}

// Undeclared statistics whose names the old suffix rules matched, on a
// property that declares nothing, and on traff-bounds next to its declared
// ones: no format shows them over the sweep.
TEST(StatAggregation, AnUndeclaredStatisticIsNotAggregatedWhateverItsName) {
  Report r;
  for (uint64_t p : {5, 9}) {
    const std::string n = std::to_string(p);
    r.instances.push_back(instance(p, "demo-undeclared",
                                   {{"max_latency", n}, {"latency_histogram", n + ":1"},
                                    {"witnesses_latency", "p=" + n + " rank 0"}}));
    r.instances.back().verdicts.push_back(r.instances.back().verdicts[0]);
    Verdict& bounds = r.instances.back().verdicts.back();
    bounds.property = "traff-bounds";
    bounds.stats["max_violations"] = n;
  }
  const json j = json::parse(render(r, Format::json));
  const json& d = j.at("groups").at(0).at("distributions");
  EXPECT_FALSE(d.contains("demo-undeclared")) << d.dump();
  ASSERT_TRUE(d.contains("traff-bounds")) << d.dump();
  EXPECT_EQ(d.at("traff-bounds"), json({{"max_violations", "9"}})) << d.dump();  // declared by traff-bounds
  for (Format f : {Format::text, Format::markdown, Format::html, Format::junit}) {
    const std::string out = render(r, f, true);
    EXPECT_EQ(out.find("latency_histogram 5:1"), std::string::npos) << out;
    EXPECT_EQ(out.find("max_latency 9"), std::string::npos) << out;
    EXPECT_EQ(out.find("demo-undeclared.max_latency"), std::string::npos) << out;
    EXPECT_EQ(out.find("witnesses_latency: p=5 rank 0"), std::string::npos) << out;
  }
}

TEST(StatAggregation, MalformedDeclarationsAreRefused) {
  constexpr StatDecl twice[] = {{"a", Aggregate::max}, {"a", Aggregate::histogram}};
  EXPECT_THROW(StatDeclarations({{"x", twice}}), std::logic_error);
  constexpr StatDecl follows_nothing[] = {{"w", Aggregate::witnesses_of_max, "m"}};
  EXPECT_THROW(StatDeclarations({{"x", follows_nothing}}), std::logic_error);
  constexpr StatDecl follows_histogram[] = {{"h", Aggregate::histogram}, {"w", Aggregate::witnesses_of_max, "h"}};
  EXPECT_THROW(StatDeclarations({{"x", follows_histogram}}), std::logic_error);
  constexpr StatDecl no_max_named[] = {{"w", Aggregate::witnesses_of_max}};
  EXPECT_THROW(StatDeclarations({{"x", no_max_named}}), std::logic_error);
  constexpr StatDecl of_on_max[] = {{"m", Aggregate::max, "m"}};
  EXPECT_THROW(StatDeclarations({{"x", of_on_max}}), std::logic_error);
  // The max statistic must be the same property's.
  constexpr StatDecl m[] = {{"m", Aggregate::max}};
  constexpr StatDecl w[] = {{"w", Aggregate::witnesses_of_max, "m"}};
  EXPECT_THROW(StatDeclarations({{"x", m}, {"y", w}}), std::logic_error);
  EXPECT_NO_THROW(declared_stats());
}

// Every declared statistic of a property, set by that property somewhere in
// a small sweep.
void expect_all_declared_are_set(std::span<const StatDecl> decls, const std::set<std::string>& seen,
                                 const char* property) {
  for (const StatDecl& d : decls)
    EXPECT_TRUE(seen.count(std::string(d.name))) << property << " declares '" << d.name << "' but never sets it";
}

TEST(StatAggregation, TraffBoundsSetsEveryStatisticItDeclares) {
  std::set<std::string> seen;
  for (uint64_t p = 1; p <= 40; ++p)
    for (const auto& [k, v] : traff_bounds(traff::compute_tables(p)).stats) seen.insert(k);
  expect_all_declared_are_set(kTraffBoundsStats, seen, "traff-bounds");
}

TEST(StatAggregation, TraFormulasSetsEveryStatisticItDeclares) {
  std::set<std::string> seen;
  for (uint64_t P = 2; P <= 12; ++P)
    for (uint64_t r = 2; r <= P; ++r) {
      a2a::Instance in;
      in.p = P;
      in.r = r;
      for (const auto& [k, v] : tra_formulas(a2a::simulate(in)).stats) seen.insert(k);
      if (P % 2 == 0) {  // TRA2 with two processes per node
        a2a::Instance two;
        two.two_layer = true;
        two.p = P;
        two.q = 2;
        two.n = P / 2;
        two.r1 = 2;
        two.r2 = 2;
        for (const auto& [k, v] : tra_formulas(a2a::simulate(two)).stats) seen.insert(k);
      }
    }
  expect_all_declared_are_set(kTraFormulasStats, seen, "tra-formulas");
}

}  // namespace
}  // namespace collcheck
