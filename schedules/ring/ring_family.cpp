// The ring family: ring reduce-scatter + ring allgather (Patarasuk and
// Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
// workstations", 2009). No instance option besides p.
#include "schedules/family.hpp"
#include "schedules/ring/ring_allreduce.hpp"

namespace collcheck {
namespace {

using family::any_p;

VariantInfo ring_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "ring reduce-scatter + ring allgather";
  v.reference = "Patarasuk & Yuan 2009; Swing NSDI'24 Sec. 2.3.1";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_ring_allreduce(i.p); };
  v.claim = [](const InstanceParams& i) {
    return Claim{static_cast<int>(2 * (i.p - 1)), 2 * (i.p - 1), "2(p-1)", "2(p-1) blocks of n/p",
                 "Sec. 2.3.1"};
  };
  return v;
}

}  // namespace

Family ring_family() {
  return {FamilyId::ring, {family::algorithm(FamilyId::ring, 0, "ring", Collective::allreduce, "ring allreduce",
                                             {ring_bandwidth()})}};
}

}  // namespace collcheck
