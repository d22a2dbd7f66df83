#pragma once
// Link-level cost of a schedule on a topology, measured on its own transfers:
// every send is routed (topology.hpp) and loads each directed
// link on its route with its blocks, as a fraction of the vector m.
//
// Per step s:  P_s = the most any node sends, over the ports the schedule
//                    claims (Schedule::ports(): 2D for Swing's, the bucket's
//                    and the Hamiltonian ring's 2D collectives, 1 for the
//                    single-port recursive doubling): the bytes on a port if
//                    the algorithm spreads them evenly;
//              L_s = the largest load on any directed link (forwarded
//                    messages and links shared by several collectives included).
// Swing NSDI'24 Sec. 2.2, T(n) = alpha log2 p Lambda + beta (n / D) Psi Xi:
//   Lambda = steps / log2 p
//   Psi    = D sum_s P_s             (the port's bytes against the optimal n / D)
//   Xi     = sum_s L_s / sum_s P_s   (how much the busiest links slow it down)
// Trivance (Sec. 2.1, App. B): sum_k m_k c_k "with respect to the ideal cost
// of m beta / D" on a torus:
//   Theta  = D sum_s L_s  (= Psi Xi: the two papers' models agree on the product)
// A single-port algorithm's P_s is its whole message, so Psi = D log2 p for the
// latency-optimal recursive doubling, as Table 2 prints it.
#include <cstdint>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"
#include "topology/topology.hpp"

namespace collcheck {

struct LinkCost {
  int steps = 0;
  double lambda = 0, psi = 0, xi = 0, theta = 0;
  double sum_port = 0, sum_link = 0;     // sum_s P_s, sum_s L_s
  std::vector<double> port, link;        // P_s, L_s per step
  int worst_step = -1;                   // the step with the largest L_s / P_s (-1: none)
  std::string worst_link;                // a link carrying L_s there
};

// `tie_source` gives route_tie (default: s itself; a mutant passes the
// schedule it was made from). Throws std::invalid_argument if s.p() differs
// from the topology's node count.
LinkCost measure_link_cost(const Schedule& s, const Topology& t, const Schedule* tie_source = nullptr);

// A cost as reports and statistics print it: `digits` decimals ("1.1846").
std::string fixed_decimals(double x, int digits = 4);

// Bytes measure_link_cost allocates when it enumerates every rank of a
// schedule on p nodes and `links` directed links (for the memory guard): a
// volume per node, the totals per link and (torus) the blocks per link, and
// each worker thread's per-link scratch (`torus`: difference arrays). The
// quotient of an equivariant torus schedule allocates none of it.
uint64_t enumerated_link_cost_memory(uint64_t p, uint64_t links, bool torus);
// The same on a torus of p nodes and D dimensions (2 D p directed links).
uint64_t torus_link_cost_memory(uint64_t p, size_t dimensions);

}  // namespace collcheck
