#pragma once
// Folding: the usual way to run a p'-rank allreduce on p > p' ranks
// (Thakur, Rabenseifner, Gropp 2005; Swing paper Sec. 2.3.2 "Non-power-of-two").
//
// Steps      : 1 + inner + 1. Step 0: rank p'+i sends its whole vector to rank
//              i (reduce), for i < p - p'. Steps 1..inner: the inner schedule on
//              ranks 0..p'-1. Last step: rank i copies the result back to p'+i.
//              If p == p' the inner schedule is returned unchanged (no extra steps).
// Volume     : inner volume + nblocks for ranks 0..p-p'-1; nblocks for the extra ranks.
// Idle ranks: at steps 0 and last only ranks i and p'+i (i < p - p') have
//              a transfer; ranks p'..p-1 have none at steps 1..inner (the
//              fold composition, properties/flow/fold_composition.hpp, relies
//              on both; fold_composition_test.cpp checks them at every rank).
// Restrictions: p' <= p <= 2p' (each extra rank needs its own partner).
#include <memory>

#include "schedules/int_math.hpp"  // pow2_floor, for the callers that fold onto 2^k
#include "schedules/schedule.hpp"

namespace collcheck {

class FoldedSchedule final : public Schedule {
 public:
  FoldedSchedule(uint64_t p, std::unique_ptr<Schedule> inner);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return inner_->num_steps() + 2; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return inner_->ports(); }
  // The schedule on ranks 0..p'-1 (steps 1..inner steps of this one).
  const Schedule& inner() const { return *inner_; }

 private:
  CollectiveSpec spec_;
  std::unique_ptr<Schedule> inner_;
};

// Returns `inner` itself when p == inner->p(), a FoldedSchedule otherwise.
std::unique_ptr<Schedule> fold_onto(uint64_t p, std::unique_ptr<Schedule> inner);

}  // namespace collcheck
