#include "schedules/ring/ring_allreduce.hpp"

#include "schedules/translation_equivariant.hpp"

namespace collcheck {
namespace {

class RingAllreduce final : public Schedule {
 public:
  explicit RingAllreduce(uint64_t p) : spec_{Collective::allreduce, p, static_cast<uint32_t>(p), 0} {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return spec_.p > 1 ? static_cast<int>(2 * (spec_.p - 1)) : 0; }
  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    const int64_t p = static_cast<int64_t>(spec_.p);
    if (s < 0 || s >= num_steps()) return;
    auto mod = [p](int64_t x) { return static_cast<Block>(((x % p) + p) % p); };
    const int64_t x = r;  // signed: r - 1 must not wrap around
    Rank right = static_cast<Rank>(mod(x + 1)), left = static_cast<Rank>(mod(x - 1));
    const bool rs = s < p - 1;
    const int64_t t = rs ? s : s - (p - 1);
    const Combine c = rs ? Combine::reduce : Combine::copy;
    Block give = rs ? mod(x - t) : mod(x + 1 - t);
    Block take = rs ? mod(x - t - 1) : mod(x - t);
    out.add_send(right, c).blocks.insert(give);  // recycled storage: no allocation per transfer
    out.add_recv(left, c).blocks.insert(take);
  }

 private:
  CollectiveSpec spec_;
};

}  // namespace

std::unique_ptr<Schedule> make_ring_allreduce(uint64_t p) { return std::make_unique<RingAllreduce>(p); }

std::unique_ptr<Schedule> make_ring_allreduce_certified(uint64_t p) {
  return translation_equivariant(
      make_ring_allreduce(p), 1,
      "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + the ring rule "
      "reads r only as r + c mod p, peers and blocks alike (ring_allreduce.hpp), tested against the direct generator "
      "at every rank for p <= 200 and 255, 256");
}

}  // namespace collcheck
