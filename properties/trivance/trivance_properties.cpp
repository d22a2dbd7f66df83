// The Trivance family's properties (properties/family_property.hpp):
// trivance-coverage on the variant's own schedule (ring or torus); it keeps
// two p x p bitsets (p <= 2^16), which the memory guard is told.
#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "properties/topology/torus_deficiency.hpp"
#include "properties/trivance/trivance_coverage.hpp"

namespace collcheck {

std::vector<FamilyProperty> trivance_properties() {
  FamilyProperty coverage;
  coverage.name = prop::trivance_coverage;
  coverage.memory = [](const InstanceParams& ip) -> uint64_t {
    const uint64_t p = ip.p;
    return p <= (uint64_t{1} << 16) ? 2 * p * ((p + 63) / 64) * 8 : 0;
  };
  coverage.check = [](FamilyContext& ctx) { return trivance_coverage(*ctx.variant.make(ctx.params)); };
  return {coverage, torus_deficiency_property()};
}

}  // namespace collcheck
