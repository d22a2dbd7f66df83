#include "properties/swing/swing_hop_distance.hpp"

#include "schedules/swing/swing_math.hpp"

namespace collcheck {

void check_swing_hops(const StepView& sv, Rank r, const swing::HopClaim& claim, Verdict& v) {
  if (r >= claim.ring) return;
  const RankStep& mine = sv.at(r);
  for (const auto* list : {&mine.sends, &mine.recvs}) {
    for (const Transfer& t : *list) {
      if (t.peer >= claim.ring) continue;
      ++v.checks;
      uint64_t d = swing::ring_distance(r, t.peer, claim.ring);
      if (d == claim.distance) continue;
      Counterexample c;
      c.p = sv.p;
      c.rank = r;
      c.step = sv.step;
      c.peer = t.peer;
      c.expected = "ring distance " + std::to_string(claim.distance);
      c.actual = "ring distance " + std::to_string(d);
      c.message = "peer is not at Swing's hop distance delta(s) on the ring of " + std::to_string(claim.ring);
      v.fail(std::move(c));
    }
  }
}

}  // namespace collcheck
