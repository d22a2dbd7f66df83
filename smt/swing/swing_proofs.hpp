#pragma once
// Z3 proofs about Swing's peer function (swing-nsdi24.txt, Sec. 3.1 Eq. 2 and
// Appendix A) for one p and *all* ranks at once. See swing_proofs.cpp for the
// encoding. Each query asks Z3 for a violation: unsat means the property holds
// for every rank and step of that p; sat is turned into the lexicographically
// smallest counterexample (smallest rank, then step / step sequences), which
// is replayed concretely with swing::pi before it is reported.
//
// Properties (Verdict::property):
//   smt-swing-involution        pi(pi(r,s),s) = r                  (holds iff p even)
//   smt-swing-peer-equivariance pi(g(x),s) = g(pi(x,s)) for the swing-dihedral group (holds iff p even)
//   smt-swing-unique-paths      Theorem A.5: distinct step sequences from r
//                               reach distinct nodes               (holds iff p = 2^k)
//   smt-swing-peer-parity       Lemma A.2: pi(r,s) != r and pi(r,s), r have
//                               opposite parity                    (holds iff p even)
//   smt-swing-reach-closed-form Eq. 4: iterating pi along steps s_0<...<s_{m-1}
//                               equals r +/- sum_j (-1)^j rho(s_j) mod p (holds iff p even)
//
// Conventions shared by all functions:
//   - k = ceil(log2 p) steps, s in 0..k-1; a step sequence is a k-bit mask.
//   - p must be in [2, 2^32] (Rank is 32-bit); otherwise Status::skipped with
//     stats["reason"].
//   - timeout_ms is the wall-clock budget of the whole property, all solver
//     calls and counterexample minimisation included; 0 means no limit. Out of
//     time gives Status::unknown (stats["reason_unknown"]); if only the
//     minimisation runs out of time the counterexample is still a real,
//     replayed one, just maybe not the smallest (stats["minimisation"]).
//   - Z3 errors never escape: they become Status::unknown with stats["error"].
//   - Each call owns its z3::context, so calls may run concurrently.
//   - mode is "z3"; stats hold "solver_seconds", "solver_calls" (also in
//     Verdict::checks), "strategy", "query", "encoding", "width", "instances"
//     (how many concrete cases an unsat answer covers) and "z3_version".
//     Counterexamples of smt-swing-unique-paths also put the two step
//     sequences in stats["cx_steps_a"] and stats["cx_steps_b"], those of
//     smt-swing-reach-closed-form in stats["cx_steps"] (comma-separated step
//     numbers, possibly empty).
#include <cstdint>
#include <vector>

#include "properties/verdict.hpp"

namespace collcheck::smt {

// How the two path properties are posed to Z3 (details in swing_proofs.cpp).
enum class Strategy {
  // inductive for even p, monolithic for odd p (where the answer is a
  // violation to find).
  automatic,
  // One formula over the whole path, as the property reads: two copies
  // (S < T) for unique paths, iterated pi vs closed form for Eq. 4.
  // Hard for the SAT solver: unique paths takes ~8 s at 2^12, ~34 s at
  // 2^16, ~260 s at 2^21.
  monolithic,
  // Induction over the steps: one small lemma per step plus a base case;
  // for unique paths with p = 2^k also an explicit inverse that decodes the
  // step sequence from the node reached (p = 2^21 in ~0.5 s, 2^32 in
  // ~1.5 s), for other even p a collision search on the proven base -2
  // digit form of Eq. 4 (a counterexample, fast where monolithic is slow).
  // Needs p even: for odd p it returns Status::skipped.
  inductive,
};

Verdict prove_swing_involution(uint64_t p, unsigned timeout_ms);
// smt-swing-peer-equivariance: pi(g(x), s) = g(pi(x, s)) for every element g
// of the swing-dihedral group (schedules/symmetry.hpp): x -> x + r for even
// r, x -> r - x for odd r, mod p. Holds iff p is even; the faithfulness
// half of Swing's quotient certificate (schedules/swing/swing_equivariant.hpp).
Verdict prove_swing_peer_equivariance(uint64_t p, unsigned timeout_ms);
Verdict prove_swing_unique_paths(uint64_t p, unsigned timeout_ms, Strategy strategy = Strategy::automatic);
Verdict prove_swing_peer_parity(uint64_t p, unsigned timeout_ms);
Verdict prove_swing_reach_closed_form(uint64_t p, unsigned timeout_ms, Strategy strategy = Strategy::automatic);

// All of the above for one p, in the order listed, with Strategy::automatic;
// each property gets its own timeout_ms budget.
std::vector<Verdict> prove_swing(uint64_t p, unsigned timeout_ms);

}  // namespace collcheck::smt
