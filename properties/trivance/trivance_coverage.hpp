#pragma once
// trivance-coverage: Lemma 4.2 of the Trivance paper (Sec. 4.2, proof in
// App. A), checked on the schedule's own transfers.
//
// Statement  : after step k every node r holds data originating from exactly
//              the nodes within ring distance R_k = (3^(k+1) - 1) / 2 (capped
//              at floor(n/2)), and (Sec. 4, "full and uniform utilization")
//              every node uses both ports, sending to two distinct peers and
//              receiving from two distinct peers, in every step, for n >= 3.
// Simulation : one bitset per rank, D(r) = the nodes whose data reached r
//              through the reducing transfers of steps 0..k (D(r) |= D(q)
//              before the step, for every receipt from q). For the latency
//              variant (one block, the whole vector) this is exactly what r
//              holds. For the bandwidth variant it is the union over blocks
//              along the reduce-scatter, which is the pattern Lemma 4.2 speaks
//              of ("identical to the Reduce-Scatter phase"); the allgather
//              copies are not coverage steps and are not checked (per-block
//              contents are the generic postcondition's job).
// Where      : the lemma and the port check are judged only for n a power of
//              three (Lemma 4.2, Theorem 4.3: n = 3^s); for other n the
//              property holds vacuously and reports what it measured (a
//              latency fold onto 3^t: not measured, only stated).
// Stats      : radius_per_step (the largest R with the whole ball of radius R
//              covered at every rank, per reducing step), claimed_radius_per_step,
//              one_port_rank_steps (rank-steps using fewer than 2 ports).
// Limit      : n <= 2^16 (n^2 bits); larger n are skipped, except for a
//              circulant ring schedule (certified TranslationEquivariant:
//              Trivance's bandwidth readings, Bruck's bandwidth allreduce),
//              which is simulated on rank 0 alone (D(r) = D(0) + r) for
//              every n, with the rank-by-rank loop's verdict.
// Torus      : for a TrivanceTorus (Sec. 5) it runs trivance_torus_coverage
//              (trivance_torus_coverage.hpp): the product of per-dimension
//              windows, Fig. 5's dimension switching, both ports per dimension.
#include "properties/verdict.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {

Verdict trivance_coverage(const Schedule& s);

}  // namespace collcheck
