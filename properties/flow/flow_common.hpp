#pragma once
// Internal to the flow engines (dense_simulation.cpp, flow_rotation.cpp, ...):
// the verdict slots of check_schedule, the step-local checks that every
// simulation mode runs on every rank, and the exact-mode final judgement of
// one (rank, block) cell. Not a public interface.
#include <tbb/enumerable_thread_specific.h>

#include <array>
#include <cstdint>
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "properties/causality.hpp"
#include "properties/cost.hpp"
#include "properties/instance_checker.hpp"
#include "properties/step_view.hpp"
#include "properties/verdict.hpp"
#include "schedules/registry.hpp"

namespace collcheck::flow {

enum Slot { kMatching, kPorts, kCausality, kExactlyOnce, kPostcondition, kHook, kSlots };
using Verdicts = std::array<Verdict, kSlots>;
using VerdictTls = tbb::enumerable_thread_specific<Verdicts>;

// Matching, ports, receive races (causality c), the step hook's check of
// this step (if any; into slot kHook) and the per-rank send volume, for
// every rank of one step, in parallel. Sets last_active = sv.step if any
// rank has a transfer.
void step_local_checks(const StepView& sv, const StepHook::RankCheck& hook, VerdictTls& tls,
                       std::vector<uint64_t>& volume, int& last_active);

// The order in which a rank's receives are applied: by peer, then combine,
// never the order the schedule lists them, so that the verdict does not
// depend on listing order (write races are flagged by causality); receives
// with the same peer and combine keep their listed order. `order` is
// refilled with pointers into `recvs`.
void canonical_receive_order(const std::vector<Transfer>& recvs, std::vector<const Transfer*>& order);

// Steps (last active + 1), total and largest per-rank send volume.
CostMeasurement measured_cost(const std::vector<uint64_t>& volume, int last_active);

// The per-thread partial verdicts of a simulation, merged.
Verdicts merged(VerdictTls& tls);
// The property a slot's verdict judges (the catalog's name; the step hook's
// own for kHook), for messages written before assemble() names them.
std::string slot_property(int slot, const StepHook& hook);

// Fingerprint arithmetic (dense_simulation.cpp's dense cells and
// flow_interval.cpp's pieces share it, so both modes see the same weights):
// a contribution count and a sum of one random weight per rank in the prime
// field 2^61 - 1.
inline constexpr uint64_t kFingerprintPrime = (uint64_t{1} << 61) - 1;
inline uint64_t addmod(uint64_t a, uint64_t b) {
  uint64_t s = a + b;  // both < 2^61, no overflow
  return s >= kFingerprintPrime ? s - kFingerprintPrime : s;
}
// The weight of every rank 0..p-1 for a seed (splitmix64 of seed and rank).
std::vector<uint64_t> fingerprint_weights(uint64_t seed, uint64_t p);

// Exact cells: `bits` words of a bitset over contributing ranks, then one flag
// word that is non-zero once the value contains some contribution more than
// once (it propagates through reduces and copies, so the postcondition sees
// it).
struct ExactCells {
  uint64_t p;
  size_t bits;
  size_t words;
  explicit ExactCells(uint64_t p_) : p(p_), bits((p_ + 63) / 64), words(bits + 1) {}
  // Cells start zeroed (empty); init only adds the initial contributor.
  void init(uint64_t* c, std::optional<Rank> who) const {
    if (who) c[*who / 64] |= uint64_t{1} << (*who % 64);
  }
  bool empty(const uint64_t* c) const {
    uint64_t any = 0;  // branch-free so that the loop vectorizes
    for (size_t i = 0; i < bits; ++i) any |= c[i];
    return any == 0;
  }
  uint64_t count(const uint64_t* c) const {
    uint64_t n = 0;
    for (size_t i = 0; i < bits; ++i) n += static_cast<uint64_t>(std::popcount(c[i]));
    return n;
  }
  bool multiple(const uint64_t* c) const { return c[bits] != 0; }
  // Reduce `in` into `c`; returns the lowest rank counted twice, if any.
  // `held` tells whether `c` held anything before (one pass over memory).
  std::optional<Rank> reduce(uint64_t* c, const uint64_t* in, bool& held) const {
    uint64_t both = 0, any = 0;
    for (size_t i = 0; i < bits; ++i) {
      both |= c[i] & in[i];
      any |= c[i];
    }
    held = any != 0;
    std::optional<Rank> twice;
    if (both) {
      for (size_t i = 0; i < bits && !twice; ++i)
        if (uint64_t w = c[i] & in[i]) twice = static_cast<Rank>(i * 64 + std::countr_zero(w));
    }
    for (size_t i = 0; i < bits; ++i) c[i] |= in[i];
    c[bits] |= in[bits] | (twice ? 1 : 0);
    return twice;
  }
  // Copy `in` over `c`; describes the loss if the copy has fewer
  // contributions than `c` (the same count-based rule as fingerprint mode, so
  // the verdict never depends on the mode).
  std::optional<std::string> copy(uint64_t* c, const uint64_t* in) const {
    uint64_t gone = 0;  // fast path: `in` contains everything `c` holds
    for (size_t i = 0; i < bits; ++i) gone |= c[i] & ~in[i];
    if (!gone) {
      std::copy(in, in + words, c);
      return std::nullopt;
    }
    uint64_t had = count(c), got = count(in);
    std::copy(in, in + words, c);
    if (got >= had) return std::nullopt;
    return copy_loss_text(had, got);
  }
};

// Reports a wrong final cell at (r, b) as the postcondition property says it:
// `missing` / `extra` the first few ranks (at most 9 each), `doubled` when
// some contribution was counted more than once.
void report_wrong_cell(Verdict& v, const Requirement& req, uint64_t p, Rank r, int last_step, Block b,
                       const std::vector<Rank>& missing, const std::vector<Rank>& extra, bool doubled);

// Exact mode's final judgement of one cell (a bitset over `bits` words plus
// the "counted more than once" flag word), as the postcondition property.
// `full` is the all-ranks bitset.
void judge_exact_cell(Verdict& v, const CollectiveSpec& spec, uint64_t p, Rank r, int last_step, Block b,
                      const uint64_t* cell, size_t bits, const std::vector<uint64_t>& full);

}  // namespace collcheck::flow
