#pragma once
// swing-torus-ports: Swing's multiport claim on a torus, judged on the links
// the schedule's own transfers use.
//
// Statement  : Sec. 4.1: "each of the 2D allreduce uses a different port at
//              each step" (plain collectives start on different dimensions,
//              mirrored ones run in the opposite direction). Sec. 4.2: on a
//              non-square torus this holds for the first D log2(d_min) steps;
//              afterwards "it does not use all the available ports" (several
//              collectives share a port), which is measured, not judged.
// Ports      : a node has 2D ports, (dimension d, direction + or -). A send
//              to q must change exactly one coordinate d (else it is not a
//              transfer along a torus line: violation). Its port is the first
//              hop of minimal dimension-ordered routing along d: + if the
//              forward distance o = (q_d - x_d) mod n is below n/2, - if
//              above. Tie-break at o = n/2 (every step on a side of 2): the
//              direction of the algorithm's own signed offset (+rho or -rho,
//              SwingTorus::signed_offset), so the plain and the mirrored
//              collective of a side-2 dimension use its two parallel links.
// Collective : send i of a rank-step is collective i (SwingTorus emits one
//              send per collective, in order); a rank-step with another count
//              of sends is a violation.
// Judged     : every rank, every step (the allgather reuses the reduce-scatter's
//              links in reverse order): two sends on one port at a plan step
//              below SwingTorus::square_phase_steps() are a violation named
//              (rank, step, port, collectives).
// Stats      : shared_port_rank_steps (rank-steps where some port carries two
//              collectives, at any step), square_phase_steps,
//              max_collectives_per_port.
// Schedules that are not a SwingTorus (or its quotient wrapper, SwingEquivariant
// on a torus): not applicable (holds vacuously, says so).
#include "properties/verdict.hpp"
#include "schedules/schedule.hpp"
#include "schedules/swing/swing_torus.hpp"

namespace collcheck {

Verdict swing_torus_ports(const Schedule& s);
// The transfers of `s` (e.g. a mutant of `torus`, materialized) judged with
// `torus`'s shape, collectives, phase and tie-break.
// `s` as a view of `torus` (a mutant of it, or its quotient wrapper);
// rank_zero_only: `s` is equivariant under the torus-swing-dihedral group, so
// rank 0 is judged and the counts scaled by p.
Verdict swing_torus_ports(const Schedule& s, const SwingTorus& torus, bool rank_zero_only = false);

}  // namespace collcheck
