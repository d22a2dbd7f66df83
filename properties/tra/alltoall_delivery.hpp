#pragma once
// alltoall-delivery (prop::alltoall_delivery): a buffer-level simulation of
// the tunable-radix all-to-all (TRA, Fan et al., "Configurable Algorithms for
// All-to-all Collectives", Sec. III) and of its two-layer form (TRA2, Sec. IV),
// written from the paper and NOT from schedules/tra*.{hpp,cpp}, so that the
// generators (checked by the generic properties) and this simulation check
// each other. It shares no code with the generators; only the instance's
// defaults (the radix rule, TRA2's Q/r1/r2) come from the family's one
// declaration of them (tra::resolve, schedules/tra/tra_family.hpp).
//
// Data. Every rank p has a send buffer S[0..P-1] and a receive buffer
// R[0..P-1] of P tokens; the token of S_p[b] (block b of rank p, destined for
// rank b) is p*P + b, so it names BOTH the source rank and the original block
// index (a check of only one of them passes misrouted blocks: a rotation off
// by one delivers every block from the right source to the wrong place, see
// the unit tests). After the final phase R[i] of rank j must hold S_i[j]
// (block j of rank i: "block i of rank j ends as block j of rank i"), for
// every pair, which also means every token is present exactly once; on a
// failure the verdict counts the misplaced, lost and duplicated tokens.
//
// TRA (Sec. III, simulated exactly as printed):
//   1) "R[i] = S[(p + i)%P]": written directly into R (index arithmetic, no
//      copy of S).
//   2) rounds (x, z), x = 0..w-1 outer, z = 1..r-1 inner, w = ceil(log_r P):
//      "process p sends to process ((p + z x r^x)%P) all the data-blocks R[i]
//      whose x-th bit of i in r-base is z. Process p receives data from
//      process ((p - z x r^x + P)%P) into S, and replaces R[i] (just sent)".
//      Every rank sends the same positions; a round whose send and receive
//      rules do not pair up (rank q receives from a rank that sends elsewhere)
//      is a counterexample at (rank 0, that round, its first position).
//   3) "R[i] = R[(p - i)%P]", read as (p - i + P) % P (C's % of a negative
//      number is not an index), new R from the old one: checked in place by
//      index arithmetic, without copying.
//
// TRA2 (Sec. IV-A; P = N x Q, process p = ni*Q + gp, ni = p / Q, gp = p % Q;
// position i*Q + j is group i = destination node, j = destination's local
// index). Each printed formula, and what is simulated:
//  * intra 1) "R[i x Q + j] = S[i x Q + (gp + j % Q)]" with "(0 <= j <= Q)":
//    read literally, gp + (j % Q) leaves group i (and S for the last group).
//    Simulated: R[iQ + j] = S[iQ + (gp + j) % Q], 0 <= j < Q (Fig. 6: "each
//    process moves up (rank % Q) data blocks in every Q data block").
//  * intra 2) "sends to process (ni x Q + (gp - z x r^x + Q) % Q) all the
//    data-blocks R[i] whose x-th bit of i in r-base is z ... receives data
//    from process (ni x Q + (gp + z x r^x) % Q)": the digits are those of
//    i % Q (Fig. 6: "2-representations of (i % Q)") and r is r1. The printed
//    direction is the opposite of Sec. III and of the shift above; Fig. 5(b)
//    shows P3 -> P0 in the first round (3 + 1 = 4 = 0 mod 4, not 3 - 1).
//    Simulated (intended): send to ni*Q + (gp + z r1^x) % Q, receive from
//    ni*Q + (gp - z r1^x mod Q + Q) % Q. paper-literal: the printed signs.
//  * intra 3) "S[i x Q + j] = R[i x Q + (gp - j + Q % Q)]": Q % Q = 0 leaves a
//    negative index; read as (gp - j + Q) % Q (both readings).
//  * inter 1) "memcpy(R[(ni + i)%N x Q], S[i x Q], Q)": with memcpy's
//    (destination, source) order this is R[k] = S[(k - ni) mod N] for
//    super-block positions k, the inverse of Sec. III's shift. Simulated
//    (intended): R[k] = S[(ni + k) % N] (Sec. III's R[i] = S[(p + i)%P] on
//    nodes, the only shift that step 3 below inverts with forward rounds).
//    paper-literal: the printed R[k] = S[(k - ni) mod N].
//  * inter 2) "sends to process ((ni x Q + (gp - z x r^x + N)) % N) all the
//    data-blocks R[i] whose x-th bit of i in r-base is z ... receives data
//    from process (ni x Q + (gp + z x r^x) % N)": node and local index are
//    mixed up (the send rule names a rank below N, the receive rule can name
//    a rank in the sender's own node), so it cannot be simulated as printed.
//    The digits are those of the super-block index i / Q (Fig. 7: "the
//    indices of super-blocks are encoded into r2 representation"), r is r2,
//    and "each process in a super-process serves as a communication port,
//    which transmits a 1/Q message to the corresponding process in another
//    super-process" (P0 -> P4, P1 -> P5, ...). Simulated (intended): send to
//    ((ni + z r2^x) % N) Q + gp, receive from ((ni - z r2^x mod N + N) % N) Q
//    + gp. paper-literal: the printed signs on the node index (send to node
//    ni - z r2^x, receive from node ni + z r2^x, same gp).
//  * inter 3) "memcpy(R[(ni - i + N)%N x Q], R[i x Q], Q)": R to R in place
//    with memcpy would overwrite groups before they are read (the map is an
//    involution); simulated out of place, R'[k] = R[(ni - k) mod N] (both
//    readings), checked by index arithmetic.
//  The intra-node inverse shift and the inter-node shift are one per-rank
//  permutation of positions, applied as one copy.
//
// Counting. K is the number of rounds with a non-empty message and D the
// blocks one rank sends (and per round, every (x, z) in loop order, empty
// rounds included: stat D_per_round, "x0: 4 3 | x1: 3*2 | x2: 2 0" lists the
// rounds z = 1..r-1 of each digit x, "v*n" = n rounds of v blocks). Stats:
// instance (the resolved P, r or P, Q, N, r1, r2), K, D, D_per_round (TRA2
// also K1, K2, D1, D2); on failure misplaced_tokens, lost_tokens,
// duplicated_tokens. The send set of a round depends only on
// (x, z) in every rule above, so every rank sends the same number of blocks
// in every round: the per-rank counts are equal by construction, and the
// simulation counts the positions it moves (one token per rank each).
// count_phase() is the same run enumeration without data (for tra-formulas
// when delivery is not selected, and for `collcheck analyze`).
//
// Steps. A counterexample's step is the round's index in the paper's loop,
// k = x(r-1) + (z-1), empty rounds included (TRA2: the inter-node rounds
// follow the w1(r1-1) intra-node ones); the final rotation is step
// w(r-1) (TRA2: w1(r1-1) + w2(r2-1)). The generators number only non-empty
// rounds; the message names (x, z).
//
// Speed. Tokens are stored position-major (row i = position i of every
// rank), so a round moves, for each position it sends, one row of P tokens,
// rotated by the send distance (two memmove's); the positions a round sends
// are contiguous runs of r^x (TRA2 inter-node: r2^x * Q) rows. Shifts 1) and
// 3) are index arithmetic. O(P^2 + P*D) per instance, no allocation per
// round; buffers are reused per thread.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra_family.hpp"

namespace collcheck::a2a {

// What the properties simulate for one registry instance.
struct Instance {
  bool two_layer = false;      // TRA2
  bool paper_literal = false;  // TRA2: the printed intra- and inter-node signs and inter-node shift
  uint64_t p = 1;
  uint64_t r = 0;                         // TRA radix (0 for P = 1)
  uint64_t q = 1, n = 1, r1 = 0, r2 = 0;  // TRA2: Q, N = P/Q, radices (0 for an empty phase)
  std::string describe() const;           // "P=11 r=3", "P=8 Q=4 N=2 r1=2 r2=2 (paper-literal)"
};

// The instance a registry variant runs at `ip`: the family's typed
// parameters (tra::resolve, schedules/tra/tra_family.hpp: the radix rule and
// TRA2's Q/r1/r2 defaults exist there only). nullopt (and `why`) for a
// variant that is not of the TRA family or parameters outside 2 <= r <= P,
// Q not dividing P.
std::optional<Instance> resolve(const VariantInfo& variant, const InstanceParams& ip, std::string* why = nullptr);

// w = ceil(log_r m): the base-r digits of 0..m-1 (0 for m <= 1).
int digits(uint64_t m, uint64_t r);

// One TRA phase over m coordinates with radix r (TRA: m = P, units = 1;
// TRA2 intra-node: m = Q, units = N; inter-node: m = N, units = Q).
struct PhaseCounts {
  uint64_t m = 0, radix = 0;
  uint64_t units = 1;  // blocks per moved coordinate and rank
  int w = 0;
  std::vector<uint64_t> per_round;  // blocks each rank sends in round k = x(r-1) + (z-1)
  uint64_t K = 0, D = 0;
};

// Counts by enumerating the runs each round sends (no data). O(m + w r).
PhaseCounts count_phase(uint64_t m, uint64_t r, uint64_t units = 1);
// The same enumeration, totals only (no per-round vector): K and D of TRA(m, r).
struct Totals {
  uint64_t K = 0, D = 0;
};
Totals count_totals(uint64_t m, uint64_t r);

// Test hooks for TRA: deliberately broken rules, to show the checker fails.
// Never set by verify.
struct Rules {
  int rotation_sign = +1;       // step 1: R[i] = S[(p + sign*i + offset) % P]
  int64_t rotation_offset = 0;
  int send_sign = +1;           // step 2: send to p + send_sign*z r^x
  int recv_sign = -1;           //         receive from p + recv_sign*z r^x
  int final_sign = -1;          // step 3: R[i] = R[(p + final_sign*i) % P]
  bool skip_final_rotation = false;
  // Run the P x P simulation even where rank 0's P tokens decide (TRA with
  // the text's final shift: every rule reads p as p + a constant, so rank q
  // is rank 0 translated; tests compare both paths).
  bool every_rank = false;
  bool operator==(const Rules&) const = default;
};

struct Simulation {
  Instance instance;
  Verdict delivery;                  // property alltoall-delivery (skipped if no data was moved)
  std::vector<PhaseCounts> phases;   // TRA: one; TRA2: intra-node, inter-node
  bool moved_data = false;
  // With keep_final: the final R of every rank, rank-major: final[j*P + i] =
  // R[i] of rank j.
  std::vector<uint32_t> final_buffer;
  uint64_t K() const;
  uint64_t D() const;
};

// Largest P whose tokens the P x P simulation moves (the buffer is P*P
// 4-byte tokens, twice for TRA2): above, delivery is skipped and only
// counted, except for TRA with the text's final shift, simulated on rank 0's
// P tokens for every P (every rank's by translation).
inline constexpr uint64_t kMaxDeliveryTokens = uint64_t{1} << 28;  // 1 GiB
bool fits(const Instance& in);

// Runs the simulation. move_data = false (or an instance that does not fit)
// only counts. `rules` apply to TRA only.
Simulation simulate(const Instance& in, bool move_data = true, const Rules& rules = {}, bool keep_final = false);

// "S_3[5]" for a token of an instance with p ranks ("block 5 of rank 3").
std::string token_name(uint64_t token, uint64_t p);

// Run-length form of per-round counts, per digit position: "x0: 4*2 3 | x1: 3 3 0".
std::string per_round_text(const PhaseCounts& c);

}  // namespace collcheck::a2a
