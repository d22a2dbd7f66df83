#pragma once
// trivance-coverage on a torus: Lemma 4.2 of the Trivance paper
// (the Trivance paper, Sec. 4.2, App. A) per dimension, with
// Sec. 5's dimension switching (Fig. 5), checked on the schedule's own
// transfers. trivance_coverage() (trivance_coverage.hpp) dispatches here for a
// TrivanceTorus; the catalog name is the same, "trivance-coverage".
//
// Statement  : on a torus n_0 x .. x n_{D-1} with all sides equal to one power
//              of three (Fig. 5's 9x9; the paper's domain):
//               (a) collective c in (reduce-scatter) step j talks along
//                   dimension (c + j) mod D only ("both collectives switch
//                   dimensions", "each collective is mapped to a distinct
//                   dimension in every step");
//               (b) it uses both ports of that dimension: two distinct send
//                   peers and two distinct receive peers (every step, the
//                   allgather too);
//               (c) after step j every node v holds, for collective c, data
//                   from exactly the nodes u with torus distance
//                   |u_e - v_e| <= R(k_e) in every dimension e, where k_e is the
//                   number of steps j' <= j with (c + j') mod D = e and
//                   R(k) = (3^k - 1) / 2 (Lemma 4.2's R_{k-1}; R(0) = 0): the
//                   product of the per-dimension ring windows.
// Simulation : one p-bit set per (collective, node), D_c(v) |= D_c(q) for every
//              reducing receipt from q (a copy replaces), steps in order. The
//              collective of a transfer is its first block / (nblocks / D)
//              (latency: block c; bandwidth: blocks c*p..), or, for a
//              TrivanceTorus, asked directly (no block sets are built).
//              Allgather (copy-only) steps are not coverage steps.
// Elsewhere  : other shapes (unequal sides, sides not powers of three) are
//              measured only: the property holds vacuously and reports stats.
// Stats      : covered_per_step (the fewest nodes any node holds for collective
//              0 after each reducing step, and after the latency fold's
//              copy-back steps), claimed_covered_per_step (judged
//              shapes: prod_e (2 R(k_e) + 1)), port_collision_rank_steps (rank-
//              steps where two collectives use one dimension: collcheck's
//              unequal-side schedule, see schedules/trivance/trivance_torus.hpp),
//              idle_port_rank_steps (a collective talks to fewer than two
//              distinct peers in a dimension of side >= 3).
// Limit      : D * p^2 bits; p <= 2^14 (larger: skipped).
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {

Verdict trivance_torus_coverage(const Schedule& s, const std::vector<uint32_t>& dims);

}  // namespace collcheck
