// The ring family: ring reduce-scatter + ring allgather (Patarasuk and
// Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
// workstations", 2009), on a ring (p only) and on an r x c torus over two
// edge-disjoint Hamiltonian cycles (--dims; Swing NSDI'24 Sec. 2.3.1).
#include "schedules/family.hpp"
#include "schedules/ring/ring_allreduce.hpp"
#include "schedules/ring/ring_hamiltonian.hpp"
#include "schedules/torus_cost.hpp"

namespace collcheck {
namespace {

using family::any_p;

VariantInfo ring_bandwidth() {
  VariantInfo v;
  v.name = "bandwidth";
  v.summary = "ring reduce-scatter + ring allgather";
  v.reference = "Patarasuk & Yuan 2009; Swing NSDI'24 Sec. 2.3.1";
  v.violates = any_p;
  v.make = [](const InstanceParams& i) { return make_ring_allreduce_certified(i.p); };
  v.symmetry = SymmetryGroup::translations;
  v.claim = [](const InstanceParams& i) {
    return Claim{static_cast<int>(2 * (i.p - 1)), 2 * (i.p - 1), "2(p-1)", "2(p-1) blocks of n/p",
                 "Sec. 2.3.1"};
  };
  return v;
}

// Table 2's RING row: Lambda = 2p / log2 p (measured 2(p-1) / log2 p: at
// most), Psi = 1 (measured (p-1)/p: at most), Xi = 1 ("each link is still used
// by at most one communication per direction": equal); Trivance Table 2 /
// Table 1: Theta = 1 (at most, measured (p-1)/p).
TorusCostClaim ring_torus_cost(const InstanceParams& i) {
  namespace tc = torus_cost;
  TorusCostClaim c;
  c.row = "Swing NSDI'24 Table 2, RING; Trivance Tables 1 and 2, Ring";
  c.values.push_back(tc::at_most("Lambda", "2p / log2 p", 2.0 * i.p / tc::log2p(i), "measured 2(p-1) / log2 p"));
  c.values.push_back(tc::at_most("Psi", "1", 1, "measured (p-1)/p"));
  c.values.push_back(tc::equal("Xi", "1", 1));
  c.values.push_back(tc::at_most("Theta", "1", 1, "measured (p-1)/p"));
  return c;
}

VariantInfo ring_torus_hamiltonian() {
  VariantInfo v;
  v.name = "torus-hamiltonian";
  v.summary = "four rings (two edge-disjoint Hamiltonian cycles, each both ways) on an r x c torus, 1/4 of the vector "
              "each; the cycles are collcheck's construction (ring_hamiltonian.hpp), the paper cites one";
  v.reference = "Swing NSDI'24 Sec. 2.3.1";
  v.restriction = "--dims rxc with r = c k and gcd(r, c - 1) = 1 (Sec. 2.3.1)";
  v.options = {"dims"};
  v.family_properties = {"torus-deficiency"};
  v.violates = [](const InstanceParams& i) { return hamiltonian_ring_problem(i.dims, i.p); };
  v.make = [](const InstanceParams& i) { return std::make_unique<HamiltonianRing>(i.dims); };
  v.claim = [](const InstanceParams& i) {
    return Claim{static_cast<int>(2 * (i.p - 1)), 4 * 2 * (i.p - 1), "2(p-1)", "4 rings x 2(p-1) blocks of m/(4p)",
                 "Swing NSDI'24 Sec. 2.3.1"};
  };
  v.torus_cost = ring_torus_cost;
  v.kind = 1;
  return v;
}

}  // namespace

Family ring_family() {
  return {FamilyId::ring, {family::algorithm(FamilyId::ring, 0, "ring", Collective::allreduce, "ring allreduce",
                                             {ring_bandwidth(), ring_torus_hamiltonian()})}};
}

}  // namespace collcheck
