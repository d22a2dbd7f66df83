#include "properties/stat_aggregation.hpp"

#include <stdexcept>

#include "properties/family_property.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

StatDeclarations::StatDeclarations(std::initializer_list<PropertyStats> properties)
    : StatDeclarations(std::vector<PropertyStats>(properties)) {}

StatDeclarations::StatDeclarations(const std::vector<PropertyStats>& properties) {
  for (const PropertyStats& ps : properties)
    for (const StatDecl& d : ps.stats) {
      const std::string where = std::string(ps.property) + " statistic '" + std::string(d.name) + "'";
      if (!decls_.emplace(std::pair{std::string(ps.property), std::string(d.name)}, Entry{d.how, std::string(d.of)})
               .second)
        throw std::logic_error(where + " is declared twice");
      if ((d.how == Aggregate::witnesses_of_max) != !d.of.empty())
        throw std::logic_error(where + ": a witnesses_of_max statistic names its max statistic, no other does");
    }
  for (const auto& [key, e] : decls_)
    if (e.how == Aggregate::witnesses_of_max && how(key.first, e.of) != Aggregate::max)
      throw std::logic_error(key.first + " statistic '" + key.second + "' follows '" + e.of +
                             "', which is not a declared max statistic");
}

Aggregate StatDeclarations::how(const std::string& property, const std::string& stat) const {
  auto it = decls_.find({property, stat});
  return it == decls_.end() ? Aggregate::none : it->second.how;
}

std::string StatDeclarations::max_of(const std::string& property, const std::string& stat) const {
  auto it = decls_.find({property, stat});
  return it == decls_.end() ? std::string() : it->second.of;
}

std::vector<std::string> StatDeclarations::witnesses_of(const std::string& property, const std::string& stat) const {
  std::vector<std::string> out;
  for (auto it = decls_.lower_bound({property, std::string()}); it != decls_.end() && it->first.first == property; ++it)
    if (it->second.how == Aggregate::witnesses_of_max && it->second.of == stat) out.push_back(it->first.second);
  return out;
}

// Each family property declares its own (FamilyProperty::stats, e.g.
// properties/traff/traff_properties.cpp); the generic properties have none.
const StatDeclarations& declared_stats() {
  static const StatDeclarations d = [] {
    std::vector<PropertyStats> all;
    for (const Family& f : families())
      for (const FamilyProperty& p : family_properties(f.id))
        if (!p.stats.empty()) all.push_back({p.name, p.stats});
    return StatDeclarations(all);
  }();
  return d;
}

}  // namespace collcheck
