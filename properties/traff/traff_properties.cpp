// The Träff family's properties (properties/family_property.hpp):
// traff-conditions and traff-bounds, both on the circulant receive/send
// tables of p, computed once per instance (FamilyContext::shared) and timed
// (stat tables_seconds on the instance's first family verdict).
#include <chrono>

#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "properties/traff/traff_bounds.hpp"
#include "properties/traff/traff_conditions.hpp"
#include "properties/traff/traff_tables.hpp"

namespace collcheck {
namespace {

const traff::Tables& tables(FamilyContext& ctx) {
  return ctx.shared<traff::Tables>([&] {
    const auto start = std::chrono::steady_clock::now();
    traff::Tables t = traff::compute_tables(ctx.params.p);
    ctx.front_stats["tables_seconds"] =
        std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return t;
  });
}

}  // namespace

std::vector<FamilyProperty> traff_properties() {
  FamilyProperty conditions;
  conditions.name = prop::traff_conditions;
  conditions.check = [](FamilyContext& ctx) { return traff_conditions(tables(ctx)); };
  FamilyProperty bounds;
  bounds.name = prop::traff_bounds;
  bounds.check = [](FamilyContext& ctx) { return traff_bounds(tables(ctx)); };
  bounds.stats = kTraffBoundsStats;
  return {conditions, bounds};
}

}  // namespace collcheck
