#include "checker/sweep/cost_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "properties/instance_checker.hpp"
#include "properties/parametric_decider.hpp"
#include "properties/plan/decision_plan.hpp"
#include "schedules/int_math.hpp"

namespace collcheck {

bool runs_exact(uint64_t p, const CheckOptions& o) {
  switch (o.exactness) {
    case Exactness::exact: return true;
    case Exactness::fingerprint: return false;
    case Exactness::automatic: return p <= o.exact_max_p;
  }
  return false;
}

namespace {
struct IntervalProbe {
  bool uses = false;
  int ports = 1;
};
// Probes t at the largest allowed p in [256, ceiling]; ceiling = the
// instance's p rounded down to a power of two, at most 4096 (so a request for
// small p never builds a large schedule), cached per (variant, shapes,
// bookkeeping, ceiling). A schedule that cannot be built there counts as not
// using intervals.
IntervalProbe probe_intervals(const SweepTarget& t, const CheckOptions& o, uint64_t p_hint) {
  if (o.bookkeeping == Bookkeeping::dense || o.exactness == Exactness::exact || p_hint < 256) return {};
  const uint64_t ceiling = std::min<uint64_t>(4096, std::bit_floor(p_hint));
  static std::mutex m;
  static std::map<std::tuple<const VariantInfo*, std::vector<uint32_t>, Bookkeeping, uint64_t>, IntervalProbe> cache;
  const auto key = std::make_tuple(t.variant, t.params(1, 0).dims, o.bookkeeping, ceiling);
  std::lock_guard<std::mutex> lock(m);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  IntervalProbe out;
  CheckOptions probe = o;
  probe.exactness = Exactness::fingerprint;
  probe.max_memory = 0;
  for (uint64_t p = ceiling; p >= 256; --p)
    if (const uint32_t r = t.all_radices ? 2 : 0; !t.variant->violates(t.params(p, r))) {
      try {
        auto s = t.variant->make(t.params(p, r));
        out = {planned_method(*s, probe).method == MethodId::intervals, s->ports()};
      } catch (const std::exception&) {
        out = {};
      }
      break;
    }
  cache[key] = out;
  return out;
}
}  // namespace

bool target_uses_intervals(const SweepTarget& t, const CheckOptions& o, uint64_t p) {
  return probe_intervals(t, o, p).uses;
}

namespace {
bool quotient_takes(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o);
}  // namespace

// The dense limit does not bind where the certified quotient takes the
// instance: rank 0's row, as p-bit sets or, beyond the budget, runs of
// ranks, or on a torus as boxes.
std::optional<std::string> projected_refusal(const SweepTarget& t, uint64_t p, uint64_t nblocks,
                                             const CheckOptions& o) {
  // An all-to-all enumerated exactly keeps only its held cells: no dense limit.
  const bool held = t.algorithm->collective == Collective::alltoall && runs_exact(p, o) &&
                    o.bookkeeping != Bookkeeping::dense && nblocks == sat_mul(p, p);
  if (auto why = held ? std::nullopt : infeasible(p, nblocks, o)) return why;
  if (!runs_exact(p, o) && sat_mul(p, nblocks) > (uint64_t{1} << 32) && o.bookkeeping == Bookkeeping::automatic &&
      !probe_intervals(t, o, p).uses && !quotient_takes(t, p, 0, o))
    return "p * nblocks = " + std::to_string(sat_mul(p, nblocks)) +
           " (rank, block) cells exceed the dense checker's limit of 2^32, and the transfers are too scattered for "
           "interval bookkeeping to pay";
  return std::nullopt;
}

namespace {
// Whether the variant builds a schedule the certified quotient takes at p
// (an EquivariantSchedule under a 1D group; or under a torus group with its
// boxes within the memory budget), and the words of one cell of rank 0's
// row under a torus group (0 under a 1D group). Under a 1D group that
// depends on p's parity and on p being a power of two (Swing: even p, or
// powers of two; odd p fold), and whether the grouped quotient decides on
// p's size (one class per bit width), so one schedule per such class is built and
// the answer cached: an estimate over 1..2^21 must not build two million
// schedules. On a torus it depends on the shape (Trivance latency: sides
// 3^k), which is the cache key there. A model only: check_schedule decides
// for itself when it runs.
struct QuotientTake {
  bool takes = false;
  uint64_t box_words = 0;
  bool grouped = false;  // the grouped quotient or a fold composition over it (properties/flow/group_quotient.hpp)
  bool fold = false;     // the schedule is a fold (schedules/fold.hpp)
  bool pairs = false;    // an all-to-all's (source, destination) pairs: rank 0's held cells only
  bool parametric = false;  // a parametric certificate decides it (properties/parametric_decider.hpp)
};
// Odd p whose ring of p - 1 ranks is a power of two, or lists a rank's own
// block (2^k < p - 1 < 4/3 2^k), are decided differently by Swing's own
// odd-p scheme (swing_odd_composition_expected): their own cache classes.
int odd_class(uint64_t p) {
  if (p % 2 == 0 || p < 3) return 0;
  const uint64_t m = p - 1;
  return 1 + (std::has_single_bit(m) ? 1 : 0) + (3 * m < 4 * std::bit_floor(m) ? 2 : 0);
}

QuotientTake quotient_take(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o) {
  if (!o.use_symmetry || o.exactness == Exactness::fingerprint || !o.any_generic_selected()) return {};
  const bool torus = on_torus(t.variant->symmetry);
  const InstanceParams ip = t.params(p, radix);
  static std::mutex m;
  using Key = std::tuple<const VariantInfo*, uint32_t, Rank, uint32_t, bool, bool, std::vector<uint32_t>, uint64_t,
                         int, const ParametricDecider*>;
  static std::map<Key, QuotientTake> cache;
  // A torus group without --dims (recursive doubling's hypercube of p,
  // TRA2's N x Q): the shape follows from p, keyed by its bit width.
  const int width = torus && ip.dims.empty() ? std::bit_width(p) : 0;
  const Key key = torus ? Key{t.variant, t.blocks, t.root, radix, false, width && std::has_single_bit(p), ip.dims,
                              o.memory_budget, width, o.parametric}
                        : Key{t.variant, t.blocks, t.root, radix, p % 2 == 0, std::has_single_bit(p), {},
                              static_cast<uint64_t>(std::bit_width(p)), odd_class(p), o.parametric};
  std::lock_guard<std::mutex> lock(m);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  QuotientTake take;
  try {
    const auto s = t.variant->make(ip);
    // Whether the grouped quotient decides or declines (more than 255
    // contribution sets) depends on p, not only on its class, and not
    // monotonically: Swing's paper-earlier and paper-laststep readings stay
    // within 255 at p = 2^k + 2 and exceed it at most other even p from
    // p = 3000 on. So the plan asks it at the middle of the class's even
    // non-powers of two, 3 2^(w-2), not at the first p asked (2^k + 2 in
    // the calibration).
    std::unique_ptr<Schedule> at_mid;
    if (const int w = std::bit_width(p); !torus && p % 2 == 0 && !std::has_single_bit(p) && w >= 3) {
      const uint64_t mid = uint64_t{3} << (w - 2);
      if (mid != p && !t.variant->violates(t.params(mid, radix))) try {
          at_mid = t.variant->make(t.params(mid, radix));
        } catch (const std::exception&) {  // then p itself answers
        }
    }
    const PlannedMethod pm = planned_method(*s, o, at_mid.get());
    take.takes = decides_from_rank_zero(pm.method);
    take.parametric = pm.method == MethodId::parametric_certificate;
    take.grouped = builds_on_grouped_quotient(pm.method);
    take.fold = pm.fold;
    take.pairs = pm.pairs;
    take.box_words = pm.cell_words;
  } catch (const std::exception&) {
    take = {};
  }
  if (cache.size() > 100000) cache.clear();  // tori: one entry per shape drawn
  cache.emplace(key, take);
  return take;
}

bool quotient_takes(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o) {
  return quotient_take(t, p, radix, o).takes;
}
}  // namespace

bool rank_zero_decides(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o) {
  return o.any_generic_selected() && quotient_take(t, p, radix, o).takes;
}

InstanceWork instance_work(const SweepTarget& t, uint64_t p, uint32_t radix, uint64_t nblocks, const CheckOptions& o,
                           std::optional<bool> grouped) {
  InstanceWork w;
  const InstanceParams ip = t.params(p, radix);
  const Claim c = t.variant->claim(ip);
  w.nblocks = nblocks;
  w.exact = runs_exact(p, o);
  w.words = w.exact ? (p + 63) / 64 + 1 : 2;
  const double dp = static_cast<double>(p);
  const double steps = std::max(c.steps, 1);
  w.rank_steps = dp * steps;
  w.cell_words = (dp * nblocks + dp * static_cast<double>(c.volume_blocks)) * static_cast<double>(w.words);
  const IntervalProbe probe = w.exact ? IntervalProbe{} : probe_intervals(t, o, std::max<uint64_t>(p, 256));
  // Below p = 256 dense cells are cheaper (and chosen) unless intervals are asked for.
  w.intervals = !w.exact && probe.uses && (p >= 256 || o.bookkeeping == Bookkeeping::intervals);
  if (w.intervals) {
    const double P = 2 + 2 * steps, T = 2.0 * probe.ports;
    w.cell_words = std::min(w.cell_words, 2 * dp * (2 * P + steps * (T * P + 2 * T)));
  }
  if (!o.any_generic_selected()) w.cell_words = 0;  // only algorithm-specific properties: no flow simulation
  // The certified quotient: rank 0 and its peers' steps, and rank 0's row
  // of cells touched once per block it holds or receives, each cell p bits
  // (ceil(p/64) + 1 words) or, where those would not fit, about log2 p runs
  // (a few words of work each); on a torus a box (a bit set per side).
  QuotientTake q = w.cell_words > 0 ? quotient_take(t, p, radix, o) : QuotientTake{};
  if (grouped && q.takes && !q.fold && !q.pairs && !q.parametric && q.box_words == 0) q.grouped = *grouped;  // observed
  if (q.parametric) {
    // A parametric certificate: the proof once per process (not modelled),
    // then a few counts per instance, whatever p.
    w.parametric = w.quotient = true;
    w.intervals = false;
    w.rank_steps = 0;
    w.cell_words = 0;
    return w;
  }
  if (q.grouped) {
    // The grouped quotient (or a fold over it): one pass over the blocks
    // rank 0 moves (2 * volume) and a few p-bit masks mapped per step.
    w.quotient = w.grouped = true;
    w.grouped_fold = q.fold;
    w.intervals = false;
    w.rank_steps = 8 * steps;
    w.cell_words = 2 * static_cast<double>(c.volume_blocks) + 4 * steps * (dp / 64 + 1);
    return w;
  }
  if (q.pairs) {
    // An all-to-all: rank 0's held cells only (its own p, the p it is judged
    // on, and the blocks it sends and receives), a hash-map operation each,
    // not its row of p * p.
    w.quotient = true;
    w.intervals = false;
    w.rank_steps = 8 * steps + dp / 64;
    w.cell_words = 8 * (2 * dp + 2 * static_cast<double>(c.volume_blocks));
    return w;
  }
  if (q.takes) {
    w.quotient = true;
    // Runs of ranks first (plan/methods/cell_quotient_method.cpp), p-bit sets where they outgrow them.
    w.quotient_runs = q.box_words == 0;
    w.intervals = false;
    w.rank_steps = 8 * steps + dp / 64;
    const double cell = q.box_words     ? static_cast<double>(q.box_words)
                        : w.quotient_runs ? 4 * (2 + std::log2(dp))
                                          : static_cast<double>((p + 63) / 64 + 1);
    w.cell_words = (static_cast<double>(nblocks) + static_cast<double>(c.volume_blocks)) * cell;
  }
  return w;
}

InstanceWork instance_work(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o) {
  return instance_work(t, p, radix, t.variant->make(t.params(p, radix))->num_blocks(), o);
}

uint64_t instance_memory_bytes(uint64_t p, uint64_t nblocks, const CheckOptions& o) {
  const uint64_t cell_bytes = (runs_exact(p, o) ? (p + 63) / 64 + 1 : 2) * 8;
  const uint64_t per_block = std::max<uint64_t>(1, p * cell_bytes);
  const uint64_t chunk = std::clamp<uint64_t>(o.memory_budget / per_block, 1, std::max<uint32_t>(nblocks, 1));
  const uint64_t state = per_block * chunk;
  return 2 * state + 256 * p;
}

}  // namespace collcheck
