#pragma once
// How a verdict statistic (Verdict::stats) aggregates over a sweep. A property
// declares the statistics that aggregate, next to the code that sets them
// (e.g. kTraffBoundsStats in properties/traff/traff_bounds.hpp), and wires the
// declaration with the property (FamilyProperty::stats,
// properties/family_property.hpp); declared_stats() collects them all. The report summary
// (reports/summary.hpp) aggregates by the declaration, never by the shape of
// a statistic's name: an undeclared statistic is per instance only (printed
// with its verdict, never summed, maximised or merged), whatever its name.
// The declaration is looked up by (property, statistic) name, so it also
// applies to verdicts read back from a results store or another MPI rank.
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace collcheck {

enum class Aggregate {
  none,              // per instance only (every undeclared statistic)
  max,               // a whole decimal integer: the sweep's maximum
  histogram,         // "B:N B:N ..." (integer buckets and counts): summed bucket by bucket
  witnesses,         // a WitnessList (properties/witnesses.hpp): the sweep's lists in p order, bounded
  witnesses_of_max,  // a WitnessList of the max statistic `of`: the witnesses of the instances reaching the sweep's maximum
};

struct StatDecl {
  std::string_view name;
  Aggregate how = Aggregate::none;
  std::string_view of = {};  // witnesses_of_max only: the name of its max statistic (same property)
};

// One property's declared statistics.
struct PropertyStats {
  std::string_view property;
  std::span<const StatDecl> stats;
};

class StatDeclarations {
 public:
  // Throws std::logic_error for a statistic declared twice, a
  // witnesses_of_max without a declared max statistic `of`, or an `of` on
  // another kind.
  StatDeclarations(std::initializer_list<PropertyStats> properties);
  explicit StatDeclarations(const std::vector<PropertyStats>& properties);

  // Aggregate::none if `stat` of `property` is not declared.
  Aggregate how(const std::string& property, const std::string& stat) const;
  // The max statistic a witnesses_of_max statistic follows ("" for any other).
  std::string max_of(const std::string& property, const std::string& stat) const;
  // The witnesses_of_max statistics that follow the max statistic `stat`.
  std::vector<std::string> witnesses_of(const std::string& property, const std::string& stat) const;

 private:
  struct Entry {
    Aggregate how;
    std::string of;
  };
  std::map<std::pair<std::string, std::string>, Entry> decls_;  // (property, statistic)
};

// Every family property's declaration (FamilyProperty::stats).
const StatDeclarations& declared_stats();

}  // namespace collcheck
