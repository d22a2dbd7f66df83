#include "properties/topology/torus_deficiency.hpp"

#include <cmath>

#include "properties/catalog.hpp"

namespace collcheck {

namespace {

double measured_value(const LinkCost& m, const std::string& name) {
  if (name == "Lambda") return m.lambda;
  if (name == "Psi") return m.psi;
  if (name == "Xi") return m.xi;
  if (name == "Theta") return m.theta;
  return std::nan("");
}

}  // namespace

Verdict judge_torus_cost(const TorusCostClaim& claim, const LinkCost& m, uint64_t p) {
  Verdict v;
  v.property = prop::torus_deficiency;
  v.mode = "exact";
  v.stats["lambda"] = fixed_decimals(m.lambda);
  v.stats["psi"] = fixed_decimals(m.psi);
  v.stats["xi"] = fixed_decimals(m.xi);
  v.stats["theta"] = fixed_decimals(m.theta);
  v.stats["row"] = claim.row;
  for (const PrintedCost& c : claim.values) {
    const double got = measured_value(m, c.name);
    std::string printed = fixed_decimals(c.value) + " (" + c.formula + ")";
    if (c.judge == PrintedCost::Judge::reported) printed += "; not judged: " + c.note;
    else if (!c.note.empty()) printed += "; " + c.note;
    v.stats[c.name + "_printed"] = printed;
    if (c.judge == PrintedCost::Judge::reported) continue;
    ++v.checks;
    const bool ok = c.judge == PrintedCost::Judge::equal
                        ? std::abs(got - c.value) <= 1e-9 * std::max(1.0, std::abs(c.value))
                        : got <= c.value + 1e-9;
    if (ok) continue;
    Counterexample x = Counterexample::at(p, std::nullopt);
    x.expected = c.name + (c.judge == PrintedCost::Judge::equal ? " = " : " <= ") + fixed_decimals(c.value) + " (" +
                 claim.row + ": " + c.formula + (c.note.empty() ? "" : "; " + c.note) + ")";
    x.actual = fixed_decimals(got) + " measured on the routed links" +
               (m.worst_step >= 0 ? " (most congested: step " + std::to_string(m.worst_step) + ", " + m.worst_link + ")"
                                  : "");
    v.fail(std::move(x));
  }
  return v;
}

Verdict torus_deficiency(const Schedule& s, const std::vector<uint32_t>& dims, const TorusCostClaim& claim,
                         const Schedule* tie_source) {
  if (dims.empty() || claim.values.empty() || s.p() < 2) {
    Verdict v;
    v.property = prop::torus_deficiency;
    v.mode = "exact";
    v.stats["applies"] = dims.empty() ? "no (no torus shape)" : claim.values.empty() ? "no (no printed row)" : "no (p < 2)";
    return v;
  }
  const TorusTopology torus(dims);
  return judge_torus_cost(claim, measure_link_cost(s, torus, tie_source), s.p());
}

FamilyProperty torus_deficiency_property() {
  FamilyProperty f;
  f.name = prop::torus_deficiency;
  f.memory = [](const InstanceParams& ip) { return torus_link_cost_memory(ip.p, ip.dims.size()); };
  f.check = [](FamilyContext& ctx) {
    const TorusCostClaim claim = ctx.variant.torus_cost ? ctx.variant.torus_cost(ctx.params) : TorusCostClaim{};
    return torus_deficiency(*ctx.variant.make(ctx.params), ctx.params.dims, claim);
  };
  return f;
}

}  // namespace collcheck
