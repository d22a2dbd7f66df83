#pragma once
// Parametric Z3 proofs, one query per (algorithm, p), rank and block index
// symbolic (bit-vectors), beyond what swing_proofs.hpp covers. The encodings
// and the paper references are in the .cpp files:
//   swing_queries.cpp   smt-swing-hop-distance, smt-swing-involution-all-even-p
//   trivance_proofs.cpp smt-trivance-peers, smt-trivance-coverage,
//                       smt-trivance-coverage-all-n
//   tra_proofs.cpp      smt-tra-route, smt-tra-round-count
//   traff_proofs.cpp    smt-traff-baseblock, smt-traff-baseblock-all-p,
//                       smt-traff-lemma2-length, smt-traff-tables
// Every function answers holds / violated (minimal counterexample, replayed
// concretely) / unknown (timeout_ms exhausted, Z3 error), see
// proof_support.hpp. The optional inputs replace what the generator would
// give (distances, rounds, skips, tables): the mutation tests pass broken
// ones and expect a violation.
#include <cstdint>
#include <optional>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/schedule.hpp"
#include "properties/traff/traff_tables.hpp"
#include "schedules/tra/tra.hpp"

namespace collcheck::smt {

// Swing (Eq. 2, Table 1): ring distance of pi(r,s) from r is delta(s), or
// distances[s] when given.
Verdict prove_swing_hop_distance(uint64_t p, unsigned timeout_ms, const std::vector<uint64_t>* distances = nullptr);
// pi is an involution for every even p' in [2, p_max], p' symbolic.
Verdict prove_swing_involution_all_even(uint64_t p_max, unsigned timeout_ms);
// smt-swing-peer-equivariance-all-even-p: Eq. 2 commutes with every element of
// the swing-dihedral group (schedules/symmetry.hpp) for EVERY even p, every
// odd rho with |rho| < p (every Swing step) and every rank, at once (linear
// integer arithmetic, p unbounded; p_max is not used). reflect_every_r
// (mutation tests only): x -> r - x for every r, which must be refuted.
Verdict prove_swing_peer_equivariance_all_even(uint64_t p_max, unsigned timeout_ms, bool reflect_every_r = false);

// Trivance (Sec. 4.1, Lemma 4.2, Theorem 4.3), n = 3^s; distances[k] is the
// generator's step-k distance (trivance_distances) unless given.
Verdict prove_trivance_peers(uint64_t n, unsigned timeout_ms, const std::vector<uint64_t>* distances = nullptr);
Verdict prove_trivance_coverage(uint64_t n, unsigned timeout_ms, const std::vector<uint64_t>* distances = nullptr);
// Lemma 4.2's induction step for every n = 3^s <= n_max, s, k, r, u symbolic.
Verdict prove_trivance_coverage_all_n(uint64_t n_max, unsigned timeout_ms);

// TRA (Fan et al. Sec. III, Props. 1-3) for P processes and radix r over the
// generator's rounds (tra::rounds(P, r) unless given). `schedule`, when
// given, is the Tra generator, used to replay a counterexample transfer by
// transfer.
Verdict prove_tra_route(uint64_t P, uint64_t r, unsigned timeout_ms, const std::vector<tra::Round>* rounds = nullptr,
                        const Schedule* schedule = nullptr);
Verdict prove_tra_round_count(uint64_t P, uint64_t r, unsigned timeout_ms,
                              const std::vector<tra::Round>* rounds = nullptr);

// Träff (Sec. 2.1 Lemma 2, Algorithm 3; Sec. 2 Conditions 1-2).
Verdict prove_traff_baseblock(uint64_t p, unsigned timeout_ms, const std::vector<int64_t>* skips = nullptr);
Verdict prove_traff_baseblock_all_p(uint64_t p_max, unsigned timeout_ms);
Verdict prove_traff_lemma2_length(uint64_t p, unsigned timeout_ms);
// Conditions 1-2 over the tables of all p ranks (traff::compute_tables(p),
// the enumerator's, unless given).
Verdict prove_traff_tables(uint64_t p, unsigned timeout_ms, const traff::Tables* tables = nullptr);

}  // namespace collcheck::smt
