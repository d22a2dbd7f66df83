#pragma once
// Bounded witness lists, the verdict statistics declared Aggregate::witnesses
// or witnesses_of_max (properties/stat_aggregation.hpp; e.g. traff-bounds'
// "witnesses_violations": which (p, rank) pairs have send-schedule
// violations, in which rounds). A list names at most kListed witnesses and
// counts the rest:
//     "p=17 rank 1 (round 4); p=17 rank 2 (round 4); and 14 more"
// Items must not contain "; ". Reports merge the lists of a sweep in p order
// (reports/summary.hpp): a witnesses_of_max list follows its max statistic
// (the witnesses of the instances that reach the sweep's maximum), any other
// concatenates.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collcheck {

struct WitnessList {
  static constexpr size_t kListed = 10;
  std::vector<std::string> items;  // the first kListed witnesses, in order
  uint64_t more = 0;               // witnesses beyond them

  uint64_t total() const { return items.size() + more; }
  void add(std::string item);            // keeps at most kListed items, counts the rest
  void append(const WitnessList& other);  // other's witnesses after this list's
  std::string str() const;                // "" for no witness
  // The list str() wrote; nullopt for text of another shape.
  static std::optional<WitnessList> parse(const std::string& s);
};

}  // namespace collcheck
