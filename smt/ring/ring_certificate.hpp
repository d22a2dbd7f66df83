#pragma once
// The ring allreduce's parametric certificate: its rule
// (schedules/ring/ring_rule.hpp) over Z3 terms, with the invariant below,
// for prove_single_transfer_allreduce (smt/parametric/
// single_transfer_certificate.hpp).
//
// Invariant (rank r, block b, before step s; d = (r - b) mod p,
// e = (r + 1 - b) mod p):
//   reduce-scatter, s < p - 1: the run b .. r (d + 1 ranks) if d <= s, else
//     r alone: block r - s is the one rank r sends at step s, holding
//     r - s .. r, and block r - s - 1 arrives holding r - s - 1 .. r - 1,
//     next to r's own;
//   allgather, s = p - 1 + u: all p ranks if e <= u (block r + 1 was
//     completed by the reduce-scatter, blocks r + 1 - u' arrived complete at
//     the earlier allgather steps u'), else the run b .. r left by the
//     reduce-scatter.
// Reducing steps: s < p - 1.
#include "smt/parametric/single_transfer_certificate.hpp"

namespace collcheck::smt::parametric {

const SingleTransferAllreduce& ring_allreduce_rule();

}  // namespace collcheck::smt::parametric
