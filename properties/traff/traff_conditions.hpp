#pragma once
// Träff's four correctness conditions of Section 2
// (Träff, "Optimal Broadcast Schedules in Logarithmic Time ...") for the receive
// and send schedules of all p ranks (root r = 0, ranks root-relative), as one
// verdict named "traff-conditions" (prop::traff_conditions).
//
// Checked per rank r and round k = 0..q-1 (q = ceil(log2 p), skip[] of
// Algorithm 2, t = (r + skip[k]) mod p, f = (r - skip[k]) mod p):
//   1. recvblock[k]_r = sendblock[k]_f
//   2. sendblock[k]_r = recvblock[k]_t
//   3. {recvblock[k]_r : k} = ({-1..-q} \ {b_r - q}) U {b_r}, 0 <= b_r < q
//      (the root instead: b = q, recvblock a permutation of {-1..-q})
//   4. sendblock[k]_r = recvblock[j]_r for some j < k, or b_r - q
//      (the root instead: sendblock[k] = k)
// The counterexample is the first in time, the smallest (p, step = round k,
// rank) (verdict.hpp; a round-less one first); expected and
// actual name the blocks. Condition 3 is reported at the first round whose
// recvblock is outside the required set or repeats an earlier one (round-less
// when the baseblock itself is out of range).
//
// Complexity: O(p q) time, O(1) extra memory per rank.
#include <cstdint>
#include <vector>

#include "properties/verdict.hpp"
#include "properties/traff/traff_tables.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {

// All ranks of `t`, in parallel (TBB) over rank ranges; the minimal
// counterexample does not depend on the thread count.
Verdict traff_conditions(const traff::Tables& t);

// `s[r]` holds rank r's baseblock, recvblock[0..q-1] and sendblock[0..q-1];
// s.size() is p. Vectors of the wrong length and values outside [-q, q-1]
// (baseblock outside [0, q]) are reported as violations.
Verdict traff_conditions(const std::vector<traff::RankSchedule>& s);

}  // namespace collcheck
