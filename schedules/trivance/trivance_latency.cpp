#include "schedules/trivance/trivance_latency.hpp"

#include "schedules/check.hpp"
#include "schedules/fold.hpp"
#include "schedules/translation_equivariant.hpp"

namespace collcheck {
namespace trivance {
uint64_t paper_last_distance(uint64_t n) { return (pow3(ceil_log3(n)) - n + 1) / 2; }
uint64_t corrected_last_distance(uint64_t n) { return (n - pow3(floor_log3(n)) + 1) / 2; }
}  // namespace trivance

TrivanceLatencyRing::TrivanceLatencyRing(uint64_t n, uint64_t last_distance)
    : spec_{Collective::allreduce, n, 1, 0}, s_(trivance::ceil_log3(n)), last_(last_distance) {}

uint64_t TrivanceLatencyRing::distance(int k) const {
  if (k == s_ - 1 && !trivance::is_pow3(spec_.p)) return last_;
  return trivance::pow3(k);
}

void TrivanceLatencyRing::rank_step(Rank r, int k, RankStep& out) const {
  out.clear();
  if (k < 0 || k >= s_) return;
  const uint64_t n = spec_.p;
  const uint64_t d = distance(k) % n;
  const Rank left = static_cast<Rank>((r + n - d) % n);
  const Rank right = static_cast<Rank>((r + d) % n);
  const BlockSet all = BlockSet::single(0);
  // Listed as printed: one transfer per port, even where both peers coincide.
  out.sends.push_back({left, all, Combine::reduce});
  out.sends.push_back({right, all, Combine::reduce});
  out.recvs.push_back({left, all, Combine::reduce});
  out.recvs.push_back({right, all, Combine::reduce});
}

std::unique_ptr<Schedule> fold3_onto(uint64_t n, std::unique_ptr<Schedule> inner) {
  if (inner->p() == n) return inner;
  return std::make_unique<FoldedSchedule>(n, std::move(inner), 2);
}

// TrivanceLatencyRing reads r only as r -+ d (mod n), so it is circulant for
// every n and distance rule: certified as translation equivariant, blocks
// fixed (one block), tested against the direct generator at every rank
// (translation_equivariant_test.cpp: every n <= 200, 255 and 256; a fold's
// core there).
std::unique_ptr<Schedule> trivance_latency_certified(uint64_t n, uint64_t last_distance) {
  return translation_equivariant(
      std::make_unique<TrivanceLatencyRing>(n, last_distance), 0,
      "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + the latency "
      "rule reads r only as r -+ d mod n (trivance_latency.hpp), tested against the direct generator at every rank "
      "for every n <= 200, 255 and 256 (the folds' cores 3^t <= 243)");
}

std::unique_ptr<Schedule> make_trivance_latency(uint64_t n) {
  const uint64_t m = trivance::pow3(trivance::floor_log3(n));
  return fold3_onto(n, trivance_latency_certified(m, 0));
}

std::unique_ptr<Schedule> make_trivance_latency_paper(uint64_t n) {
  return trivance_latency_certified(n, trivance::paper_last_distance(n));
}

}  // namespace collcheck
