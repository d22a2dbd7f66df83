#include "schedules/ring/ring_allreduce.hpp"

#include "schedules/parametric/rule_arith.hpp"
#include "schedules/ring/ring_rule.hpp"
#include "schedules/translation_equivariant.hpp"

namespace collcheck {
namespace {

class RingAllreduce final : public Schedule {
 public:
  explicit RingAllreduce(uint64_t p) : spec_{Collective::allreduce, p, rule_blocks(p), 0} {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override {
    rule::Concrete a;
    return static_cast<int>(ring_rule::num_steps(a, static_cast<int64_t>(spec_.p)));
  }
  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    if (s < 0 || s >= num_steps()) return;
    // The rule of ring_rule.hpp, the code its parametric certificate reads.
    rule::Concrete a;
    const auto st = ring_rule::step(a, static_cast<int64_t>(spec_.p), int64_t{r}, int64_t{s});
    const Combine c = st.reduce ? Combine::reduce : Combine::copy;
    out.add_send(static_cast<Rank>(st.right), c).blocks.insert(static_cast<Block>(st.give));  // recycled storage
    out.add_recv(static_cast<Rank>(st.left), c).blocks.insert(static_cast<Block>(st.take));
  }

 private:
  static uint32_t rule_blocks(uint64_t p) {
    rule::Concrete a;
    return static_cast<uint32_t>(ring_rule::num_blocks(a, static_cast<int64_t>(p)));
  }
  CollectiveSpec spec_;
};

}  // namespace

std::optional<uint64_t> ring_allreduce_rule_p(const Schedule& s) {
  if (dynamic_cast<const RingAllreduce*>(&s)) return s.p();
  if (const auto* eq = dynamic_cast<const TranslationEquivariant*>(&s))
    if (dynamic_cast<const RingAllreduce*>(&eq->direct())) return s.p();
  return std::nullopt;
}

std::unique_ptr<Schedule> make_ring_allreduce(uint64_t p) { return std::make_unique<RingAllreduce>(p); }

std::unique_ptr<Schedule> make_ring_allreduce_certified(uint64_t p) {
  return translation_equivariant(
      make_ring_allreduce(p), 1,
      "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + the ring rule "
      "reads r only as r + c mod p, peers and blocks alike (ring_allreduce.hpp), tested against the direct generator "
      "at every rank for p <= 200 and 255, 256");
}

}  // namespace collcheck
