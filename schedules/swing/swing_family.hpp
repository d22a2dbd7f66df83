#pragma once
// The Swing family's typed interface (schedules/family.hpp): its variant
// kinds and the hop-distance claim of Sec. 3.1.1 per variant and step.
// The ring variants take no instance option besides p; the torus variants
// take --dims.
#include <cstdint>
#include <optional>

#include "schedules/family.hpp"

namespace collcheck::swing {

// VariantInfo::kind of the Swing variants: the shape of their Swing steps.
enum class VariantKind {
  bandwidth,             // reduce-scatter + allgather, odd p folded onto p-1
  bandwidth_contiguous,  // the same, p a power of two
  paper_reading,         // the readings of Listing 1 that send every path (even p, no fold)
  paper_reading_dedup,   // the readings that de-duplicate repeated blocks (Sec. 3.2 / App. A.2)
  paper_odd,             // Sec. 3.2's extra node: the ring of p-1
  latency,               // one phase, non-powers of two folded onto 2^floor(log2 p)
  paper_latency,         // Eq. 2 at every p
  torus,                 // Sec. 4.1-4.2 on a D-dimensional torus (--dims): no ring hop claim
};

// Swing's hop-distance claim: at `step`, ranks below `ring` talk to peers at
// ring distance `distance` on a ring of `ring` ranks.
struct HopClaim {
  uint64_t ring = 0;
  uint64_t distance = 0;
};

// The claim of variant `v` at `step` (nullopt: no claim at that step, e.g. a
// fold step, or `v` is not a Swing variant).
std::optional<HopClaim> hop_claim(const VariantInfo& v, const InstanceParams& ip, int step);

// How variant `v`'s schedule at instance `ip` uses Eq. 2 (the peer function
// pi of Sec. 3.1): on a ring of `ring` ranks (p, or the core a fold keeps:
// p-1 for odd p, 2^floor(log2 p) for the latency fold; 0: no ring, the torus
// variants), and whether every path of pi is sent (no de-duplication of a
// block two steps list: Listing 1 as such, or any power of two, where the
// paths are unique). The SMT queries about Eq. 2 on p ranks model an instance
// only where ring == p (smt/swing/swing_queries.cpp).
struct Eq2Use {
  uint64_t ring = 0;
  bool every_path = false;
};
Eq2Use eq2_use(const VariantInfo& v, const InstanceParams& ip);

}  // namespace collcheck::swing
