#pragma once
// What every torus algorithm shares (trivance-torus, Swing on tori): the
// shape check, row-major node numbering (as MPI_Cart_create: rank(v) =
// (..(v_0 n_1 + v_1) n_2 + ..)) and the round-robin dimension plan.
#include <optional>
#include <string>
#include <vector>

#include "schedules/block_set.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {

// Why `dims` is not a torus of p nodes (nullopt if it is): empty, a side < 1,
// more than `max_dims` dimensions (16 for a shape a user gives, as --dims;
// the group actions take the hypercube 2 x .. x 2 of recursive doubling, one
// side per bit, up to 31 sides of 2), a product above 2^31, or a product != p.
std::optional<std::string> torus_shape_problem(const std::vector<uint32_t>& dims, uint64_t p, size_t max_dims = 16);

// "4x4": a shape as --dims spells it.
std::string dims_label(const std::vector<uint32_t>& dims);

// Row-major rank stride of each dimension: rank(v) = sum_d v_d stride[d].
std::vector<uint64_t> torus_strides(const std::vector<uint32_t>& dims);

// Row-major coordinates of rank r, and back.
std::vector<uint32_t> torus_coords(const std::vector<uint32_t>& dims, Rank r);
Rank torus_rank(const std::vector<uint32_t>& dims, const std::vector<uint32_t>& x);

// Inserts base + rank(a) into `out` for every node a of the product of
// per_dim[0] x .. x per_dim[D-1] (coordinate sets per dimension, each sorted),
// with `stride` = torus_strides(dims): a block per node of a sub-torus (the
// blocks Swing's and the bucket's torus schedules send).
void insert_product_blocks(const std::vector<std::vector<uint32_t>>& per_dim, const std::vector<uint64_t>& stride,
                           uint64_t base, BlockSet& out);

// The direction (+1 / -1) of the first hop from coordinate x to y != x on a
// ring of n along minimal routing: +1 if (y - x) mod n < n/2, -1 if above;
// at exactly n/2 (two minimal paths) the sign of `tie` (the offset the
// algorithm applied, e.g. Swing's signed rho): +1 if tie >= 0 (no preference: +1).
int torus_hop_direction(uint64_t x, uint64_t y, uint64_t n, int64_t tie);
// The number of hops of that minimal route: min(o, n - o).
uint64_t torus_hop_distance(uint64_t x, uint64_t y, uint64_t n);

// One step of one collective: step `ring_step` of dimension `dim` (its
// sigma), or idle (dim < 0).
struct TorusStep {
  int dim = -1;
  int ring_step = -1;
};

// The dimension plan: plan[c][j] for D collectives, collective c starting on
// dimension c, and T = sum S_d steps given S_d per dimension: round robin
// from dimension c, a dimension whose S_d steps are done skipped. With every
// S_d equal, plan[c][j] = ((c + j) mod D, floor(j / D)): the omega(s) and
// sigma(s) of Swing's Sec. 4.1 and Trivance's Sec. 5.
std::vector<std::vector<TorusStep>> torus_round_robin_plan(const std::vector<int>& ring_steps);

// For each collective c and plan step j, how many steps of each dimension e
// the collective has done before j: progress[c][j][e] (idle steps count none).
std::vector<std::vector<std::vector<int>>> torus_plan_progress(const std::vector<std::vector<TorusStep>>& plan,
                                                                int dimensions);

}  // namespace collcheck
