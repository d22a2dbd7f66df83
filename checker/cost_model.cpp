#include "checker/cost_model.hpp"

#include <algorithm>

namespace collcheck {

bool runs_exact(uint64_t p, const CheckOptions& o) {
  switch (o.exactness) {
    case Exactness::exact: return true;
    case Exactness::fingerprint: return false;
    case Exactness::automatic: return p <= o.exact_max_p;
  }
  return false;
}

InstanceWork instance_work(const SweepTarget& t, uint64_t p, uint32_t radix, uint32_t nblocks, const CheckOptions& o) {
  InstanceWork w;
  const InstanceParams ip = t.params(p, radix);
  const Claim c = t.variant->claim(ip);
  w.nblocks = nblocks;
  w.exact = runs_exact(p, o);
  w.words = w.exact ? (p + 63) / 64 + 1 : 2;
  const double dp = static_cast<double>(p);
  w.rank_steps = dp * std::max(c.steps, 1);
  w.cell_words = (dp * nblocks + dp * static_cast<double>(c.volume_blocks)) * static_cast<double>(w.words);
  if (!o.any_generic_selected()) w.cell_words = 0;  // only algorithm-specific properties: no flow simulation
  return w;
}

InstanceWork instance_work(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o) {
  return instance_work(t, p, radix, t.variant->make(t.params(p, radix))->num_blocks(), o);
}

uint64_t instance_memory_bytes(uint64_t p, uint32_t nblocks, const CheckOptions& o) {
  const uint64_t cell_bytes = (runs_exact(p, o) ? (p + 63) / 64 + 1 : 2) * 8;
  const uint64_t per_block = std::max<uint64_t>(1, p * cell_bytes);
  const uint64_t chunk = std::clamp<uint64_t>(o.memory_budget / per_block, 1, std::max<uint32_t>(nblocks, 1));
  const uint64_t state = per_block * chunk;
  return 2 * state + 256 * p;
}

}  // namespace collcheck
