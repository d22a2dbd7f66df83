#pragma once
// Property "swing-hop-distance" (Swing NSDI'24 Sec. 3.1.1): at Swing step s
// every rank talks to a peer at ring distance delta(s) (reduced modulo the
// ring: min(delta mod m, m - delta mod m)). The claim per step comes from the
// Swing family (swing::hop_claim, schedules/swing/swing_family.hpp); transfers involving ranks outside the ring (fold or
// extra-node transfers) are not Swing steps and are not judged.
#include "properties/step_view.hpp"
#include "properties/verdict.hpp"
#include "schedules/swing/swing_family.hpp"

namespace collcheck {

void check_swing_hops(const StepView& sv, Rank r, const swing::HopClaim& claim, Verdict& v);

}  // namespace collcheck
