#pragma once
// Folding: the usual way to run a p'-rank allreduce on p > p' ranks
// (Thakur, Rabenseifner, Gropp 2005; Swing paper Sec. 2.3.2 "Non-power-of-two").
//
// Steps      : 1 + inner + 1. Step 0: every extra rank x >= p' sends its whole
//              vector to rank x mod p' (reduce). Steps 1..inner: the inner
//              schedule on ranks 0..p'-1. Last step: rank x mod p' copies the
//              result back to x. With p <= 2p' each core rank has at most one
//              extra rank (i and p'+i); Trivance's and Bruck's latency
//              schedules fold onto 3^t with up to two (p <= 3p': i, p'+i,
//              2p'+i; fold3_onto, trivance_latency.hpp), receiving both in
//              step 0 and sending both back in the last.
//              If p == p' the inner schedule is returned unchanged (no extra steps).
// Volume     : inner volume + (extras of i) * nblocks for core rank i;
//              nblocks for the extra ranks.
// Idle ranks: at steps 0 and last only the core ranks with an extra rank and
//              the extra ranks have a transfer; ranks p'..p-1 have none at
//              steps 1..inner (the fold composition,
//              properties/flow/fold_composition.hpp, relies on both;
//              fold_composition_test.cpp checks them at every rank).
// Restrictions: p' <= p <= (k + 1) p' for at most k extra ranks per core rank.
#include <memory>

#include "schedules/int_math.hpp"  // pow2_floor, for the callers that fold onto 2^k
#include "schedules/schedule.hpp"

namespace collcheck {

class FoldedSchedule final : public Schedule {
 public:
  // At most `per_core` extra ranks per core rank: p <= (per_core + 1) p'.
  FoldedSchedule(uint64_t p, std::unique_ptr<Schedule> inner, int per_core = 1);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return inner_->num_steps() + 2; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  // With two extra ranks per core rank, at least 2 (both arrive in step 0).
  int ports() const override { return per_core_ > 1 && inner_->ports() < per_core_ ? per_core_ : inner_->ports(); }
  // The schedule on ranks 0..p'-1 (steps 1..inner steps of this one).
  const Schedule& inner() const { return *inner_; }
  ScheduleShape shape() const override { return {ScheduleShape::Kind::folded, nullptr, inner_.get(), false}; }
  // The most extra ranks one core rank may have (the constructor's bound).
  int per_core() const { return per_core_; }

 private:
  CollectiveSpec spec_;
  std::unique_ptr<Schedule> inner_;
  int per_core_;
};

// Returns `inner` itself when p == inner->p(), a FoldedSchedule otherwise.
std::unique_ptr<Schedule> fold_onto(uint64_t p, std::unique_ptr<Schedule> inner);

}  // namespace collcheck
