#pragma once
// Recursive doubling allreduce, latency-optimal, and Rabenseifner's
// reduce-scatter + allgather (the "bandwidth-optimal recursive doubling").
//
// Algorithm  : Thakur, Rabenseifner, Gropp, "Optimization of collective
//              communication operations in MPICH", IJHPCA 2005; Swing paper
//              Sec. 2.3.2 and 2.3.3.
// latency    : step s, rank r exchanges its whole vector with r XOR 2^s.
//              Steps log2 p; volume log2 p vectors (1 block).
// rabenseifner: p blocks. Reduce-scatter by recursive halving: step s
//              (s = 0..k-1, k = log2 p) pairs r with r XOR 2^(k-1-s); r keeps
//              the half of its current block range that contains its own
//              block r and sends the other half. Allgather by recursive
//              doubling mirrors it with copies. Steps 2 log2 p; volume
//              2(p-1) blocks of n/p.
// Non-power-of-two p: both fold onto the largest power of two p' (fold.hpp):
//              2 extra steps; the vector is split into p' blocks.
// Symmetry   : the cores are equivariant under x -> x XOR r, the translations
//              of the torus 2 x .. x 2 (recursive_doubling.cpp): verified by
//              the certified quotient with boxes, and a fold as a composition
//              (properties/flow/fold_composition.hpp).
// Example    : p = 4, rabenseifner: rank 0 sends blocks {2,3} to 2, then {1} to 1.
#include <memory>

#include "schedules/schedule.hpp"

namespace collcheck {

std::unique_ptr<Schedule> make_recursive_doubling_latency(uint64_t p);
std::unique_ptr<Schedule> make_rabenseifner(uint64_t p);
// The cores on p = 2^k ranks as the direct generators, not wrapped as
// equivariant (tests compare every rank of the wrapped core with them).
std::unique_ptr<Schedule> make_recursive_doubling_latency_direct(uint64_t p);
std::unique_ptr<Schedule> make_rabenseifner_direct(uint64_t p);

}  // namespace collcheck
