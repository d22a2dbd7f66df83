#pragma once
// Tunable-radix all-to-all (TRA): Bruck (r = 2), the spread-out / linear
// pattern (r = P) and every radix in between.
//
// Algorithm  : K. Fan, S. Petruzza, T. Gilray, S. Kumar, "Configurable
//              Algorithms for All-to-all Collectives", Sec. III, three steps:
//              (1) local shift R[i] = S[(p + i) % P];
//              (2) communication rounds (x, z), x = 0..w-1 (outer loop),
//                  z = 1..r-1 (inner loop): "process p sends to process
//                  ((p + z x r^x) % P) all the data-blocks R[i] whose x-th bit
//                  of i in r-base is z. Process p receives data from process
//                  ((p - z x r^x + P) % P) into S, and replaces R[i] (just
//                  sent) locally";
//              (3) local inverse shift R[i] = R[(p - i) % P].
// Reference  : Fan et al., "Configurable Algorithms for All-to-all Collectives", Sec. III (steps
//              1-3), Sec. III-A (Propositions 1-4), Figs. 1-3.
// Names      : P processes, r the radix, w = ceil(log_r P) base-r digits of a
//              block index, a round (x, z): digit position x, digit value z;
//              K the rounds with a non-empty message, D the blocks one process
//              sends over all rounds. S[i] is the send buffer's block for rank
//              i, R[i] position i of the receive buffer. Global block ids
//              (Collective::alltoall, nblocks = P*P): block src*P + dst starts
//              at src and must end at dst.
// Derivation : the shifts (1) and (3) are local, so only the rounds are
//              transfers, and each transfer names the global ids of the blocks
//              at the positions it moves. Tracing the printed buffer rules:
//              after (1), position i of rank p holds S_p[(p + i) % P], the
//              block (src, dst) = (p, p + i). In round (x', z') position i
//              moves from rank q to rank q + z' r^x' iff digit x' of i is z',
//              and keeps its index i (the receiver "replaces R[i]"). Hence
//              before the rounds of digit x, position i has travelled
//              sum_{y<x} digit_y(i) r^y = i mod r^x ranks, and position i of
//              rank p holds
//                  src = (p - (i mod r^x)) mod P,   dst = (src + i) mod P.
//              (Within digit x, a position whose digit is z has not moved in
//              the rounds (x, z'), z' != z, that precede (x, z).) After the
//              last digit it has travelled i: position i of rank p holds
//              (p - i, p), so (3) puts the block from rank j at R[j], as
//              MPI_Alltoall requires. collcheck does not rely on this
//              derivation: the generic properties check that every sender
//              holds what it sends (causality) and that block src*P + dst
//              ends at dst (postcondition).
//              Writing i = g r^(x+1) + z r^x + l (0 <= l < r^x), the blocks
//              rank p sends in round (x, z) are src = p - l, dst =
//              p + z r^x + g r^(x+1) (mod P): rank_step emits them in
//              increasing block order without sorting.
// Rounds     : the paper's "x-th bit" is the x-th base-r digit; z = 0 is
//              excluded ("z = 0 for any x is meaningless", Proof 1; the
//              sentence before step 1, "z ranges from 0 to 2 (inclusive)" for
//              r = 3, contradicts 1 <= z < r and is not followed). A round
//              (x, z) in which no index i < P has digit x equal to z (that is,
//              z r^x >= P) moves nothing and is not a step; that is what
//              Prop. 3 counts ("the (w-1)-th digit has only (r-1-v) distinct
//              values"). So the steps are the K non-empty rounds in loop
//              order, K = (w-1)(r-1) + ceil(P / r^(w-1)) - 1, which equals
//              Prop. 1 (P = r^w) and Prop. 3 (P < r^w) for every P and r.
//              Every process sends one message and receives one per step (1
//              port); peers differ from p since 1 <= z r^x < P. Transfers are
//              copies.
// Volume     : round (x, z) moves h(x, z) = #{i < P : digit_x(i) = z} blocks
//              from every process (Prop. 4's h; the same for all processes),
//              D = sum h (Prop. 2 when P = r^w). blocks_in_round(s) computes h
//              in O(1), without generating the round.
// Cost       : the constructor lists the K rounds (O(K) memory); rank_step is
//              O(blocks sent + received), const and thread-safe.
// Restrictions: P >= 1 (P = 1: nothing to exchange, no steps), 2 <= r <= P
//              for P >= 2, P <= kMaxRanks = 3037000499 (the P*P blocks are
//              64-bit indices below 2^63). The free functions below (rounds, counts, the
//              printed formulas) take any P < 2^32.
// Example    : P = 9, r = 3 (Fig. 2): w = 2, K = 4; rank 0 sends, as (src,
//              dst) = block src*9 + dst,
//                (0,1) to 1: positions 1, 4, 7 -> (0,1), (0,4), (0,7)
//                (0,2) to 2: positions 2, 5, 8 -> (0,2), (0,5), (0,8)
//                (1,1) to 3: positions 3, 4, 5 -> (0,3), (8,3), (7,3)
//                (1,2) to 6: positions 6, 7, 8 -> (0,6), (8,6), (7,6)
//              3 blocks per round, D = 12 = w(r-1) r^(w-1) (Prop. 2); it
//              receives from 8, 7, 6, 3. P = 11, r = 3 (Fig. 3): w = 3, rank 0
//              sends to 1, 2, 3, 6, 9 in the rounds (0,1) (0,2) (1,1) (1,2)
//              (2,1) with 4, 3, 3, 3, 2 blocks (positions {1,4,7,10}, {2,5,8},
//              {3,4,5}, {6,7,8}, {9,10}); round (2,2) (2*9 >= 11) is empty and
//              not a step: K = 5 (Prop. 3), D = 15 (Prop. 4).
//              `collcheck dump --algo tra --p 9 --radix 3`.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

namespace tra {

// The largest P a TRA or TRA2 schedule is built for: P*P blocks stay within
// kMaxBlockCount = 2^63 (block_set.hpp); 3037000499^2 < 2^63 < 3037000500^2.
inline constexpr uint64_t kMaxRanks = 3037000499;

// One communication round (x, z) of a TRA over M coordinates with radix r.
struct Round {
  int x = 0;        // digit position
  uint64_t z = 0;   // digit value, 1 <= z < r
  uint64_t rx = 1;  // r^x
};

// w = ceil(log_r M): base-r digits of 0..M-1 (0 for M = 1). Needs r >= 2.
int num_digits(uint64_t M, uint64_t r);
// The non-empty rounds (some i < M has digit x equal to z) in loop order.
std::vector<Round> rounds(uint64_t M, uint64_t r);
// #{i < M : digit x of i is z}, with rx = r^x: the blocks one process sends
// in round (x, z) (Prop. 4's h). O(1).
uint64_t blocks_with_digit(uint64_t M, uint64_t r, uint64_t rx, uint64_t z);
// K and D measured from the rounds (not from the paper's formulas).
uint64_t count_rounds(uint64_t M, uint64_t r);
uint64_t count_blocks(uint64_t M, uint64_t r);

// The paper's formulas as printed (Sec. III-A), for 2 <= r <= M:
//  Prop. 1: K = w(r-1) when M = r^w (stated for 2 <= r < P);
//  Prop. 2: D = w(r-1) r^(w-1) when M = r^w;
//  Prop. 3: K = w(r-1) - floor((r^w - M) / r^(w-1)) when M < r^w;
//  Prop. 4: D = sum_{x<w} sum_{1<=z<r} h, h from lgc = M % r^(x+1),
//           t = lgc - z r^x, lc = floor(M / r^(x+1)) r^x: h = lc if t <= 0,
//           lc + r^x if floor(t / r^x) > 0, lc + t % r^x otherwise.
// M = 1 gives 0 for both.
uint64_t prop_rounds(uint64_t M, uint64_t r);
uint64_t prop_blocks(uint64_t M, uint64_t r);
// Which propositions apply: "Prop. 1/2" (M = r^w) or "Prop. 3/4".
std::string prop_names(uint64_t M, uint64_t r);

// Shape of round (x, z) over M coordinates: the positions it moves are
// i = g*R1 + z*rx + l < M with 0 <= l < rx, g >= 0 (R1 = r^(x+1)).
struct RoundShape {
  uint64_t M, rx, R1, zrx;
  RoundShape(uint64_t M_, uint64_t r, const Round& rd) : M(M_), rx(rd.rx), R1(rd.rx * r), zrx(rd.z * rd.rx) {}
  // Groups g with a position for offset l.
  uint64_t groups(uint64_t l) const { return M > zrx + l ? (M - zrx - l + R1 - 1) / R1 : 0; }
  // Offsets l with at least one position.
  uint64_t offsets() const { return M > zrx ? std::min(rx, M - zrx) : 0; }
};

// For the sender at coordinate c of a round moving positions forward
// (c -> c + z r^x): calls f(src, groups(l)) for every offset l, in increasing
// src = (c - l) mod M.
template <class F>
void for_each_source(const RoundShape& s, uint64_t c, F&& f) {
  const uint64_t L = s.offsets();
  if (L == 0) return;
  // Unwrapped sources c - l (l <= c) are below the wrapped ones c - l + M.
  for (uint64_t l = std::min<uint64_t>(c, L - 1) + 1; l-- > 0;) f(c - l, s.groups(l));
  for (uint64_t l = L; l-- > c + 1;) f(c + s.M - l, s.groups(l));
}

// Calls f(dst) for dst = (c + z r^x + g R1) mod M, g = 0..G-1, in increasing
// order (G R1 <= M + R1, so the values wrap at most once).
template <class F>
void for_each_destination(const RoundShape& s, uint64_t c, uint64_t G, F&& f) {
  const uint64_t base = (c + s.zrx) % s.M;
  const uint64_t g0 = (s.M - base + s.R1 - 1) / s.R1;  // first g with base + g R1 >= M
  for (uint64_t g = g0; g < G; ++g) f(base + g * s.R1 - s.M);
  for (uint64_t g = 0; g < G && g < g0; ++g) f(base + g * s.R1);
}

}  // namespace tra

class Tra final : public Schedule {
 public:
  // Throws InputError outside the restrictions.
  Tra(uint64_t p, uint64_t r);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return static_cast<int>(rounds_.size()); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  uint64_t radix() const { return r_; }
  int w() const { return w_; }
  const tra::Round& round(int s) const { return rounds_.at(static_cast<size_t>(s)); }
  // The peer rank r sends to at step s ((r + z r^x) % P).
  Rank send_peer(Rank r, int s) const;
  // Blocks every process sends in step s (h of that round); O(1).
  uint64_t blocks_in_round(int s) const;

 private:
  void sends_of(Rank c, const tra::Round& rd, BlockSet& out) const;
  CollectiveSpec spec_;
  uint64_t r_;
  int w_;
  std::vector<tra::Round> rounds_;
};

}  // namespace collcheck
