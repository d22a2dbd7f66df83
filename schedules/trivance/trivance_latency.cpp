#include "schedules/trivance/trivance_latency.hpp"

#include "schedules/check.hpp"

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

namespace {
class Fold3Schedule final : public Schedule {
 public:
  Fold3Schedule(uint64_t n, std::unique_ptr<Schedule> inner) : spec_(inner->spec()), inner_(std::move(inner)) {
    COLLCHECK_CHECK(inner_->p() < n && n <= 3 * inner_->p(), "fold3 needs m < n <= 3m");
    spec_.p = n;
  }
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return inner_->num_steps() + 2; }
  int ports() const override { return inner_->ports() < 2 ? 2 : inner_->ports(); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    const uint64_t m = inner_->p();
    const uint64_t n = spec_.p;
    const BlockSet all = BlockSet::range(0, spec_.nblocks);
    const int last = num_steps() - 1;
    if (s == 0 || s == last) {
      const bool in = (s == 0);
      const Combine c = in ? Combine::reduce : Combine::copy;
      if (r >= m) {
        (in ? out.sends : out.recvs).push_back({static_cast<Rank>(r % m), all, c});
      } else {
        for (uint64_t x = r + m; x < n && x < r + 3 * m; x += m)
          (in ? out.recvs : out.sends).push_back({static_cast<Rank>(x), all, c});
      }
      return;
    }
    if (r < m) inner_->rank_step(r, s - 1, out);
  }

 private:
  CollectiveSpec spec_;
  std::unique_ptr<Schedule> inner_;
};
}  // namespace

std::unique_ptr<Schedule> fold3_onto(uint64_t n, std::unique_ptr<Schedule> inner) {
  if (inner->p() == n) return inner;
  return std::make_unique<Fold3Schedule>(n, std::move(inner));
}

std::unique_ptr<Schedule> make_trivance_latency(uint64_t n) {
  const uint64_t m = trivance::pow3(trivance::floor_log3(n));
  return fold3_onto(n, std::make_unique<TrivanceLatencyRing>(m, 0));
}

std::unique_ptr<Schedule> make_trivance_latency_paper(uint64_t n) {
  return std::make_unique<TrivanceLatencyRing>(n, trivance::paper_last_distance(n));
}

}  // namespace collcheck
