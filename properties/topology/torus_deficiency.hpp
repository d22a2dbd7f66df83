#pragma once
// torus-deficiency: the link-level cost a paper prints for an algorithm on a
// torus, compared with what its own schedule measures on the routed links.
//
// Measured   : topology/link_load.hpp on TorusTopology(dims) (minimal,
//              dimension-ordered routing; the d/2 tie by the schedule's own
//              sign): Lambda = steps / log2 p, Psi = D sum_s P_s, Xi = sum_s L_s
//              / sum_s P_s (Swing NSDI'24 Sec. 2.2, Table 2), Theta = D sum_s L_s
//              (Trivance Sec. 2.1, App. B, Table 2).
// Claims     : the variant's TorusCostClaim (VariantInfo::torus_cost, declared
//              by its family next to the variant): each printed value judged
//              `equal` (|measured - printed| <= 1e-9 relative), `at_most`
//              (measured <= printed: a limit "p -> infinity" approached from
//              below, a rounded printed value with half its last digit added,
//              or an approximation such as 2p for 2(p-1)), or only reported
//              beside the measured one with the reason (a printed value that
//              models something else, or is garbled as printed).
// Stats      : lambda, psi, xi, theta (measured, 4 decimals), and for each
//              printed value "<name>_printed" = "<value> (<formula>)".
// Not applicable (holds vacuously, says so): a variant without a printed row,
// or an instance without a torus shape.
#include <vector>

#include "properties/family_property.hpp"
#include "properties/verdict.hpp"
#include "schedules/family.hpp"
#include "topology/link_load.hpp"

namespace collcheck {

// Judges `claim` against `measured` (the cost of schedule `s` on `dims`).
Verdict judge_torus_cost(const TorusCostClaim& claim, const LinkCost& measured, uint64_t p);

// Measures `s` on the torus `dims` and judges `claim`; `tie_source` as in
// measure_link_cost (a mutant passes the schedule it was made from).
Verdict torus_deficiency(const Schedule& s, const std::vector<uint32_t>& dims, const TorusCostClaim& claim,
                         const Schedule* tie_source = nullptr);

// The property as the torus families wire it (swing, recursive-doubling,
// ring, bucket, trivance-torus): the variant's torus_cost at the instance.
FamilyProperty torus_deficiency_property();

}  // namespace collcheck
