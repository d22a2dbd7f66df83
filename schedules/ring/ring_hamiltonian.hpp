#pragma once
// Ring allreduce on an r x c 2D torus over two edge-disjoint Hamiltonian
// cycles, four rings at once (one per cycle and direction).
//
// Algorithm  : Swing NSDI'24 Sec. 2.3.1: "the four rings that run in parallel
//              are mapped into two edge-disjoint Hamiltonian cycles (one per
//              direction) [HammingMesh] so that each link is still used by at
//              most one communication per direction", possible "only if r = c
//              k, k >= 1 and the greatest common divisor between r and c - 1 is
//              1". The construction is not printed; collcheck's (rows r along
//              dimension 0, columns c along dimension 1, f(i) = c - 1 - (i mod c)):
//   H1: along row i rightwards from column f(i-1) to f(i), then down one row.
//       It visits a whole row per pass because f(i) = f(i-1) - 1, and closes
//       after r rows exactly when c | r.
//   H2: the other two links of every node: c - 1 steps down, one right,
//       repeated; a single cycle exactly when the walk (m (c-1) mod r, m mod c)
//       first returns at m = r: c | r and gcd(r, c - 1) = 1.
//   So the construction exists exactly under the paper's condition, and
//   anything else is refused with it (the tests check both cycles visit every
//   node and share no link, on every shape up to 16 x 16).
// Rings      : 0 = H1 forward, 1 = H1 backward, 2 = H2 forward, 3 = H2
//              backward; ring k carries blocks k p .. k p + p - 1 (1/4 of the
//              vector), the ring reduce-scatter + allgather of
//              ring_allreduce.hpp along its cycle order.
// Steps      : 2(p - 1); volume 4 rings x 2(p-1) blocks of m/(4p).
// Example    : 4x4: H1 from node 0: 0 1 2 3 7 4 5 6 10 11 8 9 13 14 15 12 ...
//              (tests/mutation/properties/torus_deficiency_mutation_test.cpp
//              checks both cycles on every allowed shape up to 16x16).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

// Why the paper's condition does not hold for `dims` (nullopt if it does).
std::optional<std::string> hamiltonian_ring_problem(const std::vector<uint32_t>& dims, uint64_t p);

// The two cycles as node orders (cycle[0] = H1, cycle[1] = H2), from node 0.
std::vector<std::vector<Rank>> hamiltonian_cycles(uint32_t r, uint32_t c);

class HamiltonianRing final : public Schedule {
 public:
  explicit HamiltonianRing(std::vector<uint32_t> dims);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return spec_.p > 1 ? static_cast<int>(2 * (spec_.p - 1)) : 0; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return 4; }
  int64_t route_tie(Rank r, int s, size_t send) const override;

 private:
  CollectiveSpec spec_;
  std::vector<std::vector<Rank>> order_;     // [cycle][position] -> node
  std::vector<std::vector<uint64_t>> pos_;   // [cycle][node] -> position
};

}  // namespace collcheck
