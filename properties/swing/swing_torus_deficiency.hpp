#pragma once
// swing-torus-deficiency: the latency, bandwidth and congestion deficiencies
// of Swing on a torus (Sec. 2.2, Table 2) measured on the schedule's own
// transfers, routed on the torus links, and compared with Table 2.
//
// Model      : Sec. 2.2: T(n) = alpha log2 p Lambda + beta (n / D) Psi Xi.
//              Every send moves along its one dimension by minimal routing
//              (torus_hop_direction; the tie at d/2 by the algorithm's sign),
//              loading each directed link on its path with its blocks (as a
//              fraction of the vector n). Per step s: P_s = the most any node
//              sends, over 2D (its bytes spread evenly over its 2D ports: what
//              the algorithm transmits, Sec. 2.2's Psi), L_s = the largest load
//              on any link (forwarding and ports shared by several collectives
//              included: Xi).
//                Lambda = steps / log2 p
//                Psi    = D sum_s P_s      (bytes per port against n / D)
//              So port sharing on a non-square torus shows in Xi, as Sec. 4.2
//              says ("no difference in latency and bandwidth deficiency, the
//              congestion deficiency increases").
//                Xi     = sum_s L_s / sum_s P_s
//              For the bandwidth-optimal Swing on a square torus this is Sec.
//              4.1's bandwidth term (n / 2D) beta sum_s delta(sigma(s)) /
//              2^(s+1), reduce-scatter and allgather, divided by n beta / D.
// Claims     : Table 2, SWING (B): Lambda = 2, Psi = 1 (measured: (p-1)/p, so
//              judged as <= 1), Xi = 1.19, 1.03, 1.008 for D = 2, 3, 4 "for p ->
//              infinity (since the congestion deficiency increases with p)":
//              judged as measured <= printed + half a unit of its last printed
//              digit, on square tori with D in 2..4. SWING (L): Lambda = 1
//              judged. Its Psi and Xi are reported beside the printed ones, not
//              judged: Table 2's Psi = D log2 p models one port carrying the
//              whole vector (Sec. 4.1's 2D-way split measures log2 p / 2), and
//              Sec. 4.1's "Xi = D sum_{s < log2 p} delta(s) <= (4/3) D p^(1/p)"
//              is garbled as printed (a p-th root, and delta(s) summed over all
//              log2 p steps where each dimension only reaches sigma < log2 p / D);
//              Psi and Xi of the model above multiply to the bandwidth term
//              instead. Sec. 3.1.1 prints Lambda = log2(p)/2 for 2 log2 p steps,
//              against Table 2's 2 (judged: 2).
// Stats      : lambda, psi, xi (measured, 4 decimals), and the printed values.
// Schedules that are not a SwingTorus: not applicable (holds vacuously, says so).
#include "properties/verdict.hpp"
#include "schedules/schedule.hpp"
#include "schedules/swing/swing_torus.hpp"

namespace collcheck {

struct TorusDeficiencies {
  double lambda = 0, psi = 0, xi = 0;
};
// The measured deficiencies of `s` on `torus`'s shape (s may be a mutant).
TorusDeficiencies measure_torus_deficiencies(const Schedule& s, const SwingTorus& torus);

Verdict swing_torus_deficiency(const Schedule& s);

}  // namespace collcheck
