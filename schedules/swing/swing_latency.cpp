#include "schedules/swing/swing_latency.hpp"

#include "schedules/fold.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck {

SwingLatencyRing::SwingLatencyRing(uint64_t p)
    : spec_{Collective::allreduce, p, 1, 0}, L_(swing::ceil_log2(p)) {}

void SwingLatencyRing::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= L_) return;
  Rank q = swing::pi(r, s, spec_.p);
  out.add_send(q, Combine::reduce).blocks.insert(0);  // recycled storage: no allocation once warm
  out.add_recv(q, Combine::reduce).blocks.insert(0);
}

std::unique_ptr<Schedule> make_swing_latency(uint64_t p) {
  return fold_onto(p, swing_equivariant(std::make_unique<SwingLatencyRing>(pow2_floor(p)), BlockAction::fixed));
}

std::unique_ptr<Schedule> make_swing_latency_paper(uint64_t p) {
  return swing_equivariant(std::make_unique<SwingLatencyRing>(p), BlockAction::fixed);
}

}  // namespace collcheck
