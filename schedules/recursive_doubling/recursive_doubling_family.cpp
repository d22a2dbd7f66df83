// The recursive-doubling family: the latency-optimal recursive doubling
// allreduce and Rabenseifner's bandwidth-optimal reduce-scatter + allgather
// (Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
// Operations in MPICH", 2005), the Swing paper's baselines. No instance
// option besides p.
#include "schedules/family.hpp"
#include "schedules/fold.hpp"
#include "schedules/recursive_doubling/recursive_doubling.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck {
namespace {

using family::any_p;

VariantInfo recdoub_latency() {
  VariantInfo v;
  v.name = "latency";
  v.summary = "whole-vector exchange with r XOR 2^s; non-powers of two fold";
  v.reference = "Thakur et al. 2005; Swing NSDI'24 Sec. 2.3.2";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_recursive_doubling_latency(i.p); };
  v.claim = [](const InstanceParams& i) {
    int k = floor_log2(i.p);
    if (swing::is_pow2(i.p)) return Claim{k, static_cast<uint64_t>(k), "log2 p", "log2 p vectors", "Sec. 2.3.2"};
    return Claim{k + 2, static_cast<uint64_t>(k + 1), "log2 p' + 2", "log2 p' + 1 vectors",
                 "Sec. 2.3.2 non-power-of-two fold"};
  };
  return v;
}

VariantInfo recdoub_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "Rabenseifner: recursive-halving reduce-scatter + recursive-doubling allgather; non-powers of two fold";
  v.reference = "Rabenseifner 2004; Thakur et al. 2005; Swing NSDI'24 Sec. 2.3.3";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_rabenseifner(i.p); };
  v.claim = [](const InstanceParams& i) {
    uint64_t pp = pow2_floor(i.p);
    int k = floor_log2(i.p);
    if (pp == i.p) return Claim{2 * k, 2 * (i.p - 1), "2 log2 p", "2(p-1) blocks of n/p", "Sec. 2.3.3"};
    return Claim{2 * k + 2, 2 * (pp - 1) + pp, "2 log2 p' + 2", "3p'-2 blocks of n/p'",
                 "Sec. 2.3.3 non-power-of-two fold"};
  };
  return v;
}

}  // namespace

Family recursive_doubling_family() {
  return {FamilyId::recursive_doubling,
          {family::algorithm(FamilyId::recursive_doubling, 0, "recursive-doubling", Collective::allreduce,
                             "recursive doubling allreduce (latency) and Rabenseifner's reduce-scatter + allgather "
                             "(bandwidth)",
                             {recdoub_latency(), recdoub_bandwidth()})}};
}

}  // namespace collcheck
