#include "schedules/bruck/bruck_allreduce.hpp"

#include "schedules/trivance/trivance_bandwidth.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "schedules/translation_equivariant.hpp"

namespace collcheck {

BruckLatencyRing::BruckLatencyRing(uint64_t n)
    : spec_{Collective::allreduce, n, 1, 0}, s_(trivance::ceil_log3(n)) {}

void BruckLatencyRing::rank_step(Rank r, int k, RankStep& out) const {
  out.clear();
  if (k < 0 || k >= s_) return;
  const uint64_t n = spec_.p;
  const BlockSet all = BlockSet::single(0);
  for (uint64_t j = 1; j <= 2; ++j) {
    const uint64_t d = (j * trivance::pow3(k)) % n;
    out.recvs.push_back({static_cast<Rank>((r + d) % n), all, Combine::reduce});
    out.sends.push_back({static_cast<Rank>((r + n - d) % n), all, Combine::reduce});
  }
}

std::unique_ptr<Schedule> make_bruck_allreduce_latency(uint64_t n) {
  const uint64_t m = trivance::pow3(trivance::floor_log3(n));
  // BruckLatencyRing reads r only as r + j 3^k (mod m): circulant, certified
  // as translation equivariant with one fixed block.
  return fold3_onto(
      n, translation_equivariant(
             std::make_unique<BruckLatencyRing>(m), 0,
             "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + the "
             "whole-vector rule reads r only as r -+ j 3^k mod n (bruck_allreduce.hpp), tested against the direct "
             "generator at every rank for every core 3^t <= 243 (translation_equivariant_test.cpp)"));
}

std::unique_ptr<Schedule> make_bruck_allreduce_bandwidth(uint64_t n) {
  const int s = trivance::ceil_log3(n);
  std::vector<std::vector<OffsetRoutingRing::Move>> steps(s);
  for (int k = 0; k < s; ++k) {
    const uint64_t step = trivance::pow3(k);
    for (uint64_t j = 1; j <= 2; ++j) {
      OffsetRoutingRing::Move mv{(j * step) % n, {}};
      for (uint64_t c = j * step; c < n; c += 3 * step) mv.offsets.push_back(c);
      if (!mv.offsets.empty()) steps[k].push_back(std::move(mv));
    }
  }
  return std::make_unique<OffsetRoutingRing>(n, std::move(steps), true, 2);
}

}  // namespace collcheck
