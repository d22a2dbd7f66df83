// The Bruck allreduce family: Bruck et al.'s allreduce on a ring with two
// ports, the baseline of the Trivance paper (Trivance: Latency-Optimal
// AllReduce by Shortcutting Multiport Networks, Sec. 2.4). Its claims share
// Trivance's ternary claim shapes (schedules/trivance/trivance_family.hpp).
// No instance option besides p.
#include "schedules/bruck/bruck_allreduce.hpp"
#include "schedules/family.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"
#include "schedules/trivance/trivance_family.hpp"

namespace collcheck {
namespace {

using family::any_p;
using trivance::two_phase_claim;
using trivance::whole_vector_claim;

const char* const kBruckRef =
    "Trivance: Latency-Optimal AllReduce by Shortcutting Multiport Networks, Sec. 2.4 'Bruck', Table 1, App. B.1; "
    "Bruck et al. 1994";

VariantInfo bruck_allreduce_latency() {
  VariantInfo v;
  v.name = "latency";
  v.summary = "whole vector from r + 3^k and r + 2*3^k (one direction); n not a power of three folds onto "
              "3^floor(log3 n)";
  v.reference = kBruckRef;
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_bruck_allreduce_latency(i.p); };
  v.symmetry = SymmetryGroup::translations;  // the core's (3^t; a fold around it otherwise)
  v.claim = [](const InstanceParams& i) { return whole_vector_claim(i.p, "Trivance paper Sec. 2.4, Table 1"); };
  return v;
}

VariantInfo bruck_allreduce_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "reduce-scatter moving contributions by the base-3 digits of (b - u) mod n times 3^k, allgather "
              "reversed; every n";
  v.reference = kBruckRef;
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return offset_routing_certified(make_bruck_allreduce_bandwidth(i.p)); };
  v.symmetry = SymmetryGroup::translations;  // offset_routing_certified
  v.claim = [](const InstanceParams& i) {
    return two_phase_claim(i.p, "Trivance paper Sec. 2.4 (2 log3 n steps, 2m per node); for n not a power of "
                                "three derived by collcheck");
  };
  return v;
}

}  // namespace

Family bruck_family() {
  return {FamilyId::bruck,
          {family::algorithm(FamilyId::bruck, 0, "bruck-allreduce", Collective::allreduce,
                             "Bruck's allreduce on a ring with two ports (distances 3^k and 2*3^k), the Trivance "
                             "paper's baseline",
                             {bruck_allreduce_latency(), bruck_allreduce_bandwidth()})}};
}

}  // namespace collcheck
