// The TRA family's properties (properties/family_property.hpp):
// alltoall-delivery and tra-formulas share one simulation per instance
// (FamilyContext::shared); it moves data only if alltoall-delivery is
// selected (else it counts).
#include <stdexcept>

#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "properties/tra/alltoall_delivery.hpp"
#include "properties/tra/tra_formulas.hpp"

namespace collcheck {
namespace {

const a2a::Simulation& simulation(FamilyContext& ctx) {
  return ctx.shared<a2a::Simulation>([&] {
    std::string why;
    const auto in = a2a::resolve(ctx.variant, ctx.params, &why);
    if (!in) throw std::invalid_argument("TRA properties on variant " + ctx.variant.name + ": " + why);
    return a2a::simulate(*in, ctx.is_selected(prop::alltoall_delivery));
  });
}

}  // namespace

std::vector<FamilyProperty> tra_properties() {
  FamilyProperty delivery;
  delivery.name = prop::alltoall_delivery;
  delivery.check = [](FamilyContext& ctx) { return simulation(ctx).delivery; };
  FamilyProperty formulas;
  formulas.name = prop::tra_formulas;
  formulas.check = [](FamilyContext& ctx) { return tra_formulas(simulation(ctx)); };
  formulas.stats = kTraFormulasStats;
  return {delivery, formulas};
}

}  // namespace collcheck
