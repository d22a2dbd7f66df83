#include "properties/flow/flow_common.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "properties/catalog.hpp"
#include "properties/causality.hpp"
#include "properties/matching.hpp"
#include "properties/ports.hpp"
#include "properties/postcondition.hpp"

namespace collcheck::flow {

void step_local_checks(const StepView& sv, const StepHook::RankCheck& hook, VerdictTls& tls,
                       std::vector<uint64_t>& volume, int& last_active) {
  const std::vector<RankStep>& ops = *sv.ops;
  bool active = false;
  for (Rank r = 0; r < sv.p && !active; ++r) active = !ops[r].empty();
  if (active) last_active = sv.step;
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(sv.p)), [&](const auto& rr) {
    Verdicts& v = tls.local();
    for (Rank r = rr.begin(); r != rr.end(); ++r) {
      check_matching(sv, r, v[kMatching]);
      check_ports(sv, r, v[kPorts]);
      check_receive_races(sv, r, v[kCausality]);
      if (hook) hook(sv, r, v[kHook]);
      for (const Transfer& t : ops[r].sends) volume[r] += t.blocks.size();
    }
  });
}

void canonical_receive_order(const std::vector<Transfer>& recvs, std::vector<const Transfer*>& order) {
  order.clear();
  for (const Transfer& t : recvs) order.push_back(&t);
  if (order.size() > 1)
    std::stable_sort(order.begin(), order.end(), [](const Transfer* a, const Transfer* b) {
      return std::tie(a->peer, a->combine) < std::tie(b->peer, b->combine);
    });
}

std::string slot_property(int slot, const StepHook& hook) {
  switch (slot) {
    case kMatching: return prop::matching;
    case kPorts: return prop::ports;
    case kCausality: return prop::causality;
    case kExactlyOnce: return prop::exactly_once;
    case kPostcondition: return prop::postcondition;
    default: return hook.property;
  }
}

CostMeasurement measured_cost(const std::vector<uint64_t>& volume, int last_active) {
  CostMeasurement cost;
  cost.steps = last_active + 1;
  for (Rank r = 0; r < volume.size(); ++r) {
    cost.total_volume += volume[r];
    if (volume[r] > cost.max_volume) {
      cost.max_volume = volume[r];
      cost.max_volume_rank = r;
    }
  }
  return cost;
}

Verdicts merged(VerdictTls& tls) {
  Verdicts out;
  for (auto& local : tls)
    for (int i = 0; i < kSlots; ++i) out[i].merge(local[i]);
  return out;
}

std::vector<uint64_t> fingerprint_weights(uint64_t seed, uint64_t p) {
  auto splitmix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  std::vector<uint64_t> w(p);
  for (uint64_t r = 0; r < p; ++r) w[r] = splitmix(seed ^ (r * 0x2545F4914F6CDD1DULL)) % kFingerprintPrime;
  return w;
}

void judge_exact_cell(Verdict& v, const CollectiveSpec& spec, uint64_t p, Rank r, int last_step, Block b,
                      const uint64_t* c, size_t bits, const std::vector<uint64_t>& full) {
  Requirement req = spec.required(r, b);
  if (req.kind == Requirement::Kind::none) return;
  ++v.checks;
  const bool doubled = c[bits] != 0;
  if (!doubled && req.kind == Requirement::Kind::all_ranks && std::equal(c, c + bits, full.begin())) return;
  if (!doubled && req.kind == Requirement::Kind::single_origin) {  // exactly the origin's bit: O(p / 64)
    const size_t w = req.origin / 64;
    bool exact = c[w] == uint64_t{1} << (req.origin % 64);
    for (size_t i = 0; i < bits && exact; ++i) exact = i == w || c[i] == 0;
    if (exact) return;
  }
  std::vector<Rank> missing, extra;
  for (uint64_t x = 0; x < p; ++x) {
    bool has = (c[x / 64] >> (x % 64)) & 1;
    bool need = req.kind == Requirement::Kind::all_ranks || x == req.origin;
    if (need && !has && missing.size() < 9) missing.push_back(static_cast<Rank>(x));
    if (!need && has && extra.size() < 9) extra.push_back(static_cast<Rank>(x));
  }
  report_wrong_cell(v, req, p, r, last_step, b, missing, extra, doubled);
}

void report_wrong_cell(Verdict& v, const Requirement& req, uint64_t p, Rank r, int last_step, Block b,
                       const std::vector<Rank>& missing, const std::vector<Rank>& extra, bool doubled) {
  if (missing.empty() && extra.empty() && !doubled) return;
  if (v.counted_beyond_minimal(Counterexample::at(p, r, last_step, b))) return;
  std::string expected = req.kind == Requirement::Kind::all_ranks ? "all " + std::to_string(p) + " contributions"
                                                                  : "block from rank " + std::to_string(req.origin);
  std::string actual;
  if (!missing.empty()) actual += "missing ranks " + describe_ranks(missing);
  if (!extra.empty()) actual += std::string(actual.empty() ? "" : "; ") + "unexpected ranks " + describe_ranks(extra);
  if (doubled) actual += std::string(actual.empty() ? "" : "; ") + "some contribution counted more than once";
  postcondition_wrong(v, p, r, last_step, b, expected, actual);
}

}  // namespace collcheck::flow
