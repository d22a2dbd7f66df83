#include "schedules/fold.hpp"

#include "schedules/check.hpp"

namespace collcheck {

FoldedSchedule::FoldedSchedule(uint64_t p, std::unique_ptr<Schedule> inner, int per_core)
    : spec_(inner->spec()), inner_(std::move(inner)), per_core_(per_core) {
  COLLCHECK_CHECK(per_core >= 1 && inner_->p() < p && p <= static_cast<uint64_t>(per_core + 1) * inner_->p(),
                  "fold needs p' < p <= (per_core + 1) p'");
  spec_.p = p;
}

void FoldedSchedule::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  const uint64_t pp = inner_->p();
  const uint64_t p = spec_.p;
  const BlockSet all = BlockSet::range(0, spec_.nblocks);
  const int last = num_steps() - 1;
  if (s == 0 || s == last) {
    const Combine c = (s == 0) ? Combine::reduce : Combine::copy;
    const bool folds_in = (s == 0);  // step 0: extra -> partner; last: partner -> extra
    if (r >= pp) {
      const Rank partner = static_cast<Rank>(r % pp);
      (folds_in ? out.sends : out.recvs).push_back({partner, all, c});
    } else {
      for (uint64_t x = r + pp; x < p; x += pp)  // its extra ranks, in increasing order
        (folds_in ? out.recvs : out.sends).push_back({static_cast<Rank>(x), all, c});
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
