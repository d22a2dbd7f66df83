#pragma once
// Z3 proofs about Swing's peer function (swing-nsdi24.txt, Sec. 3.1 Eq. 2 and
// Appendix A) for one p and *all* ranks at once. See swing_proofs.cpp for the
// encoding. Each query asks Z3 for a violation: unsat means the property holds
// for every rank and step of that p, sat is turned into the lexicographically
// smallest counterexample (smallest rank, then step / step sequences), which
// is replayed concretely with swing::pi before it is reported.
//
// Properties (Verdict::property):
//   smt-swing-involution        pi(pi(r,s),s) = r                  (holds iff p even)
//   smt-swing-unique-paths      Theorem A.5: distinct step sequences from r
//                               reach distinct nodes               (holds iff p = 2^k)
//   smt-swing-peer-parity       Lemma A.2: pi(r,s) != r and pi(r,s), r have
//                               opposite parity                    (holds iff p even)
//   smt-swing-reach-closed-form Eq. 4: iterating pi along steps s_0<...<s_{m-1}
//                               equals r +/- sum_i (-1)^i rho(s_i) mod p (holds iff p even)
//
// Conventions shared by all functions:
//   - k = ceil(log2 p) steps, s in 0..k-1.
//   - p must be in [2, 2^32] (Rank is 32-bit); otherwise Status::skipped with
//     stats["reason"].
//   - timeout_ms is the wall-clock budget of the whole query, counterexample
//     minimisation included; 0 means no limit. A solver timeout gives
//     Status::unknown (stats["reason_unknown"]); if minimisation runs out of
//     time the counterexample is still a real, replayed one, just maybe not
//     the smallest (stats["minimisation"] says so).
//   - Z3 errors never escape: they become Status::unknown with stats["error"].
//   - Each call owns its z3::context, so calls may run concurrently.
//   - mode is "z3"; stats hold "solver_seconds", "solver_calls", "query",
//     "encoding", "width", "instances" (how many concrete cases the proof
//     covers) and "z3_version". Counterexamples of smt-swing-unique-paths
//     also put the two step sequences in stats["cx_steps_a"] and
//     stats["cx_steps_b"] (comma-separated step numbers, possibly empty), and
//     those of smt-swing-reach-closed-form in stats["cx_steps"].
#include <cstdint>
#include <vector>

#include "properties/verdict.hpp"

namespace collcheck::smt {

Verdict prove_swing_involution(uint64_t p, unsigned timeout_ms);
Verdict prove_swing_unique_paths(uint64_t p, unsigned timeout_ms);
Verdict prove_swing_peer_parity(uint64_t p, unsigned timeout_ms);
Verdict prove_swing_reach_closed_form(uint64_t p, unsigned timeout_ms);

// All of the above for one p, in the order listed; each gets its own
// timeout_ms budget.
std::vector<Verdict> prove_swing(uint64_t p, unsigned timeout_ms);

}  // namespace collcheck::smt
