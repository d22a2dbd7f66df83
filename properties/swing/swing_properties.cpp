// The Swing family's properties (properties/family_property.hpp):
// swing-hop-distance, a step hook: at every step the family's claim
// (swing::hop_claim, schedules/swing/swing_family.hpp) is judged on every
// rank by check_swing_hops; swing-torus-ports, after the engine, on the
// torus variants' own schedules (swing_torus_ports.hpp).
#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "properties/swing/swing_hop_distance.hpp"
#include "properties/swing/swing_torus_ports.hpp"
#include "properties/topology/torus_deficiency.hpp"
#include "schedules/swing/swing_family.hpp"

namespace collcheck {

std::vector<FamilyProperty> swing_properties() {
  FamilyProperty hops;
  hops.name = prop::swing_hops;
  // `v` is a registry variant (static storage); the hook keeps a pointer.
  hops.step_hook = [](const VariantInfo& v, const InstanceParams& ip) {
    StepHook h;
    h.property = prop::swing_hops;
    // check_swing_hops judges a rank by ring distances on a ring of
    // claim.ring ranks; when that ring is the instance's (no fold step: a
    // claim at step 0 on p ranks, the same ring at every step), every
    // isometry of Z_p preserves the verdict at a rank (p = 1: nothing to judge).
    const std::optional<swing::HopClaim> first = swing::hop_claim(v, ip, 0);
    h.invariant_under_ring_isometries = (first && first->ring == ip.p) || ip.p == 1;
    // Every claim of one instance is on one ring (swing_family.cpp): the
    // instance's, or a fold's core whose first step is step 1.
    if (const std::optional<swing::HopClaim> core = first ? first : swing::hop_claim(v, ip, 1)) h.isometry_ring = core->ring;
    h.at_step = [vp = &v, ip](int step) -> StepHook::RankCheck {
      const std::optional<swing::HopClaim> claim = swing::hop_claim(*vp, ip, step);
      if (!claim) return {};
      return [c = *claim](const StepView& sv, Rank r, Verdict& out) { check_swing_hops(sv, r, c, out); };
    };
    return h;
  };
  FamilyProperty ports;
  ports.name = prop::swing_torus_ports;
  ports.check = [](FamilyContext& ctx) { return swing_torus_ports(*ctx.variant.make(ctx.params)); };
  return {hops, ports, torus_deficiency_property()};
}

}  // namespace collcheck
