#include "properties/catalog.hpp"

namespace collcheck {

const std::vector<PropertyInfo>& property_catalog() {
  static const std::vector<PropertyInfo> c = {
      {prop::matching, "every send has a receive at the peer in the same step with the same blocks and combine mode, and vice versa; no self-sends; peers in range", true},
      {prop::ports, "at most k sends and k receives per rank per step (k-port model; k from the algorithm)", true},
      {prop::causality, "a rank only sends blocks it holds; a copy never replaces a value with one of fewer contributions; no reduce into a block the receiver does not hold; no copy racing another receive into the same block", true},
      {prop::exactly_once, "no contribution is ever combined into a block twice (multiplicity, not reachability)", true},
      {prop::postcondition, "when the schedule ends every required (rank, block) holds exactly the collective's result", true},
      {prop::cost, "measured steps and per-rank volume equal the algorithm's claimed formulas", true},
      {prop::swing_hops, "Swing: at step s every rank talks to a peer at ring distance delta(s) (Sec. 3.1.1)", false},
      {prop::swing_torus_ports, "Swing on a torus: every send runs along one torus dimension, and the 2D collectives leave each node on 2D distinct ports (dimension, direction; minimal routing, a tie at d/2 broken by the algorithm's own sign) at every step of a square torus and in the first D log2(d_min) steps of a non-square one (Sec. 4.1, 4.2); later port sharing is measured", false},
      {prop::torus_deficiency, "algorithms on a torus (--dims): the link-level cost their paper prints, measured on the schedule's own transfers routed on the torus links (topology/link_load.hpp: minimal dimension-ordered routing, a d/2 tie by the algorithm's sign): Lambda = steps / log2 p, Psi = D sum_s (the most a node sends / its ports), Xi = sum_s (largest link load) / that sum (Swing NSDI'24 Table 2), Theta = D sum_s (largest link load) (Trivance Table 2); each printed value judged equal, at most, or reported with why (properties/topology/torus_deficiency.hpp)", false},
      {prop::traff_conditions, "Träff: the four correctness conditions of Sec. 2 on every rank's receive/send tables (Algorithms 2-6; check-file --schedule-format traff-table for tables from a file)", false},
      {prop::traff_bounds, "Träff: at most q-1 recursive ALLBLOCKS calls per rank (Lemma 5) and at most 4 send-schedule violations (Theorem 3), with their distributions", false},
      {prop::alltoall_delivery, "TRA/TRA2: a buffer simulation of the paper's three phases on every rank, with tokens naming source rank and block index, delivers block i of rank j as block j of rank i, every token exactly once; K and D counted per round", false},
      {prop::tra_formulas, "TRA/TRA2: the paper's Propositions 1-4 (K, D, Prop. 4's h per round) and Sec. IV's K1, K2 as printed equal the simulation's counts (K1, K2 judged with Q and N; the printed P reading is reported as a stat)", false},
      {prop::trivance_coverage, "Trivance: after reducing step k every node holds data from exactly the ring neighbourhood of radius R_k = (3^(k+1)-1)/2 (Lemma 4.2) and uses both ports in every step (judged for n a power of three; other n: radius per step measured); on a torus (trivance-torus) the product of per-dimension windows, collective c on dimension (c+j) mod D (Fig. 5), both ports of that dimension (judged for equal sides 3^k)", false},
  };
  return c;
}

}  // namespace collcheck
