#pragma once
// Rank 0's steps of Swing's bandwidth-optimal ring schedule (every reading of
// SwingSendRule, schedules/swing/swing_bandwidth.hpp) as m-bit block masks,
// in O(L m / 64) word operations for all L steps, for the grouped quotient
// (properties/flow/group_quotient.hpp).
//
// The recursion. Write A_t for get_rs_idx's node set at rank 0 with rank 0
// itself, Reach_t(0) = {0} + every node rank 0 reaches through steps t..L-1
// (A_L = {0}), and Lit(r, t) = Reach_{t+1}(pi(r, t)) for Listing 1's step-t
// set in the peer-index reading. Reach is built from pi alone, and pi is
// equivariant under the swing-dihedral group (Eq. 2; proved for every even p
// by smt-swing-peer-equivariance-all-even-p), so Reach_t(g x) = g Reach_t(x)
// for every element g (induction from t = L down, as in
// schedules/swing/swing_equivariant.hpp). pi(0, t) = rho(t) mod m is odd, and
// the element that maps 0 to an odd c is the reflection x -> c - x, so
//     Lit(0, t) = rho(t) - A_{t+1}      (a reflection of a mask)
//     A_t       = A_{t+1} + Lit(0, t).
// The printed call get_rs_idx(0, t) is Lit(0, t) + ... + Lit(0, L-1), and
// every de-duplication rule (every, earlier, later, last_step, skip_own)
// compares rank 0's step sets with each other: unions, differences and a
// listed-twice mask. For `bandwidth` (later, own block skipped) this gives
//     S_t = Lit(0, t) minus A_{t+1}.
// The direct generator walks 2^(L-t) paths per step instead; the two are
// compared for every reading at every even m <= 1024 and for the default at
// every even m <= 4096 and at larger m
// (tests/unit/properties/flow/group_quotient_test.cpp).
//
// Restrictions: m even, m >= 2 (the ring schedule itself needs m even).
#include <cstdint>
#include <optional>
#include <vector>

#include "properties/flow/group_quotient.hpp"
#include "schedules/schedule.hpp"
#include "schedules/swing/swing_bandwidth.hpp"

namespace collcheck::swing {

// Rank 0's reduce-scatter send sets S_0..S_{L-1} (after the rule's
// de-duplication) on the ring of m ranks, each a ceil(m/64)-word mask.
std::vector<std::vector<uint64_t>> rank_zero_rs_masks(uint64_t m, const SwingSendRule& rule);

// The grouped quotient's view of `s` if `s` is Swing's bandwidth-optimal
// ring at an even p >= 2 wrapped as SwingEquivariant (blocks as ranks, the
// paper's numbering), or its latency-optimal ring (one block, fixed: rank 0
// exchanges the whole vector with pi(0, s) and reduces, Sec. 3.1.2), nullopt
// otherwise. Rank 0 exchanges with pi(0, t) at
// reduce-scatter step t (sends S_t, receives g_q(S_t), reduces) and at the
// mirrored allgather step (sends g_q(S_t), receives S_t, copies): what the
// direct generator gives rank 0 (rs_send of rank 0 and of its peer q), with
// the peer's set g_q(S_t) by the certificate of SwingEquivariant.
std::optional<flow::MaskSchedule> swing_mask_schedule(const Schedule& s);

}  // namespace collcheck::swing
