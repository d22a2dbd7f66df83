#include "schedules/fold.hpp"

#include "schedules/check.hpp"

namespace collcheck {

FoldedSchedule::FoldedSchedule(uint64_t p, std::unique_ptr<Schedule> inner)
    : spec_(inner->spec()), inner_(std::move(inner)) {
  COLLCHECK_CHECK(inner_->p() < p && p <= 2 * inner_->p(), "fold needs p' < p <= 2p'");
  spec_.p = p;
}

void FoldedSchedule::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  const uint64_t pp = inner_->p();
  const uint64_t extra = spec_.p - pp;
  const BlockSet all = BlockSet::range(0, spec_.nblocks);
  const int last = num_steps() - 1;
  if (s == 0 || s == last) {
    const Combine c = (s == 0) ? Combine::reduce : Combine::copy;
    const bool folds_in = (s == 0);  // step 0: extra -> partner; last: partner -> extra
    if (r >= pp) {
      Rank partner = static_cast<Rank>(r - pp);
      (folds_in ? out.sends : out.recvs).push_back({partner, all, c});
    } else if (r < extra) {
      Rank ex = static_cast<Rank>(r + pp);
      (folds_in ? out.recvs : out.sends).push_back({ex, all, c});
    }
    return;
  }
  if (r < pp) inner_->rank_step(r, s - 1, out);
}

std::unique_ptr<Schedule> fold_onto(uint64_t p, std::unique_ptr<Schedule> inner) {
  if (inner->p() == p) return inner;
  return std::make_unique<FoldedSchedule>(p, std::move(inner));
}

}  // namespace collcheck
