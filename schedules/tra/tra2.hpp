#pragma once
// Two-layer tunable-radix all-to-all (TRA2): an intra-node TRA among the Q
// processes of every node, then an inter-node TRA among the N nodes
// ("super-processes") with bundled super-blocks.
//
// Algorithm  : K. Fan, S. Petruzza, T. Gilray, S. Kumar, "Configurable
//              Algorithms for All-to-all Collectives", Sec. IV and IV-A.
//              P = N x Q processes, process p = ni*Q + gp (node ni = p / Q,
//              local index gp = p % Q); S[i*Q + j] is p's block for process
//              i*Q + j (group i = destination node, j = destination's local
//              index).
//              Intra-node phase: N concurrent TRAs (radix r1) among each
//              node's Q processes, "all data-blocks in different logical
//              groups are merged and transmitted simultaneously": block
//              S[i*Q + j] of (ni, gs) goes to (ni, j), the process of the
//              source's node whose local index is the destination's. Then
//              process (ni, g) holds, for every node i, the Q blocks from
//              (ni, 0..Q-1) to (i, g): its share of the super-block for node
//              i. Inter-node phase: Q concurrent TRAs (radix r2) over the N
//              nodes, one per local index ("each process in a super-process
//              serves as a communication port"): (ni, g) exchanges with
//              (ni +- z r2^x, g), moving super-blocks of Q blocks as units.
// Reference  : Fan et al., "Configurable Algorithms for All-to-all Collectives", Sec. IV (K1, K2),
//              Sec. IV-A (the intra- and inter-node steps 1-3), Figs. 5-7;
//              TRA itself: schedules/tra/tra.hpp (Sec. III).
// Names      : P, Q (processes per node), N = P / Q (nodes), r1 and w1 =
//              ceil(log_r1 Q) (intra-node), r2 and w2 = ceil(log_r2 N)
//              (inter-node), ni, gp, rounds (x, z), K1 + K2 rounds, D blocks
//              per process. Global block ids (Collective::alltoall, nblocks =
//              P*P): block src*P + dst starts at src and must end at dst.
// Derivation : as for TRA (tra.hpp), tracing the buffer rules. Intra-node
//              (default): after the shift R[iQ + j] = S[iQ + (gp + j) % Q],
//              position (i, j) of (ni, g) holds the block for (i, g + j);
//              before the rounds of digit x it has travelled j mod r1^x local
//              ranks, so position (i, j) of (ni, g) holds the block from
//              (ni, s), s = (g - (j mod r1^x)) mod Q, to (i, (s + j) mod Q).
//              Inter-node (default): after the shift R[k] = S[(ni + k) % N]
//              (super-block positions k), position k of (n, g) holds, before
//              the rounds of digit x, the super-block of process (sn, g),
//              sn = (n - (k mod r2^x)) mod N, for node dn = (sn + k) mod N:
//              the Q blocks from (sn, 0..Q-1) to (dn, g). The generic
//              properties check the derivation (causality: senders hold what
//              they send; postcondition).
// Rounds     : the K1 non-empty intra-node rounds of TRA(Q, r1), then the K2
//              non-empty inter-node rounds of TRA(N, r2) (tra::rounds). Q = 1
//              (or N = 1): that phase is empty. One send and one receive per
//              process per step; transfers are copies.
// Volume     : an intra-node round (x, z) moves N*h(Q, r1, x, z) blocks from
//              every process (one position per group), an inter-node round
//              Q*h(N, r2, x, z) (one super-block share of Q blocks per
//              position): D = N*D(Q, r1) + Q*D(N, r2), D(., .) as for TRA.
//              blocks_in_round(s) computes it in O(1). The paper gives no D
//              for TRA2.
// Cost       : rank_step is O(blocks sent + received) for the default variant
//              (blocks emitted in increasing order); paper-literal sorts them
//              (O(m log m)).
// Restrictions: P >= 1, 1 <= Q, Q divides P; 2 <= r1 <= Q when Q >= 2;
//              2 <= r2 <= N when N >= 2; P <= tra::kMaxRanks (P*P < 2^63 blocks).
//
// The printed rules, and what each variant does with them (every deviation
// from the print is listed here; Sec. III's TRA, Figs. 5-7 and the text
// decide what the paper evidently means):
//  (a) Intra-node step 1 prints "R[i x Q + j] = S[i x Q + (gp + j % Q)]" with
//      "(0 <= j <= Q)". Read literally (gp + (j % Q)) it indexes past group i
//      and, for the last group, past S[P-1]: ill-formed. Both variants use
//      (gp + j) % Q for 0 <= j < Q (Fig. 6: "each process moves up
//      (rank % Q) data blocks in every Q data block").
//  (b) Intra-node step 2 prints "process p sends to process (ni x Q + (gp -
//      z x r^x + Q) % Q) ... receives data from process (ni x Q + (gp + z x
//      r^x) % Q)": well-formed, but the opposite direction of the shift (a)
//      and of Sec. III (p + z r^x), and of the paper's own figures: Fig. 5(b)
//      has P3 -> P0 in the first round, Fig. 6 "P0 ... transmits all colored
//      data-blocks all at once to P1 in the first round". The default `tra2`
//      sends to (ni, (gp + z r1^x) % Q); `paper-literal` sends as printed,
//      which delivers the block for local index g + j to g - j: wrong unless
//      Q <= 2 (minimal P = 3: Q = 3, N = 1).
//  (c) "all the data-blocks R[i] whose x-th bit of i in r-base is z": both
//      variants take the digits of i % Q (Fig. 6 (1): "2-representations of
//      (i % Q)") in the intra-node phase and of the super-block index i / Q
//      (Fig. 7: "the indices of super-blocks are encoded") in the inter-node
//      phase; "r^x" is r1^x, respectively r2^x.
//  (d) Intra-node step 3 prints "S[i x Q + j] = R[i x Q + (gp - j + Q % Q)]":
//      Q % Q = 0 leaves a negative index, ill-formed; read as (gp - j + Q) %
//      Q. It is local (no transfer) and does not change which blocks a
//      process holds.
//  (e) Inter-node step 1 prints "memcpy(R[(ni + i)%N x Q], S[i x Q], Q)", i.e.
//      R[k] = S[(k - ni) % N]: well-formed, but the sign of ni is that of
//      Sec. III's R[i] = S[(p + i)%P] with memcpy's destination and source
//      swapped, and it matches neither exchange direction. The default uses
//      memcpy(R[i x Q], S[(ni + i)%N x Q], Q) (R[k] = S[(ni + k) % N]), which
//      step 3 "memcpy(R[(ni - i + N)%N x Q], R[i x Q], Q)" inverts exactly
//      when super-blocks travel forward; `paper-literal` uses the print.
//  (f) Inter-node step 2 prints "process p sends to process ((ni x Q + (gp -
//      z x r^x + N)) % N) ... receives data from process (ni x Q + (gp + z x
//      r^x) % N)": this mixes node and local indices; the send rule names a
//      rank below N, the receive rule is not its inverse and can exceed P-1
//      (P = 8, Q = 2, ni = 3, gp = 1, z r^x = 1 gives 8). It cannot be
//      implemented as printed. The default sends to process ((ni + z r2^x) %
//      N) x Q + gp (Fig. 7: super-process 0 sends to super-process 1 in the
//      first round, "P0 -> P4, P1 -> P5, P2 -> P6, P3 -> P7"; step 3's
//      inverse shift needs the forward direction); `paper-literal` keeps the
//      printed signs: to node (ni - z r2^x) mod N, same local index, which
//      with (e) delivers node k - ni's super-block to ni - k: wrong unless
//      N <= 2 (minimal P = 3: Q = 1, N = 3).
//  (g) K1 and K2 are printed as "K1 = w1(r1 - 1) - floor(r1 - P/r1^(w1-1))"
//      and "K2 = w2(r2 - 1) - floor(r2 - P/r2^(w2-1))": Prop. 3 with P where
//      Q (resp. N) is meant (K1 counts rounds among Q processes); the
//      registry's claim for `tra2` uses Q and N, variant `paper-formulas`
//      claims the printed ones.
//
// Example    : P = 8, Q = 4, N = 2, r1 = r2 = 2 (Figs. 5(b), 6): intra-node
//              round (0,1): P0 sends to P1 the blocks (0,1) (0,3) (0,5) (0,7)
//              (positions j = 1, 3 of both groups) and receives (3,0) (3,2)
//              (3,4) (3,6) from P3 (Fig. 6 (2), column P0: 00 30 02 32 ...);
//              round (1,1): P0 sends (0,2) (0,6) (3,2) (3,6) to P2. Inter-node
//              round (0,1): P0 sends to P4 the blocks (0..3, 4), its share of
//              the super-block for node 1; P3's block for P4 went P3 -> P0 ->
//              P4 (Fig. 5(b)). K = 2 + 1 = 3 = log2 8 as for TRA (Sec. IV).
//              `collcheck dump --algo tra2 --p 8 --ppn 4 --radix 2 --radix2 2`.
#include <cstdint>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/tra/tra.hpp"

namespace collcheck {

class Tra2 final : public Schedule {
 public:
  enum class Reading {
    intended,       // what Sec. IV evidently means (see (a)-(f) above)
    paper_literal,  // the printed intra-node direction (b) and inter-node shift and signs (e), (f)
  };
  // Throws InputError outside the restrictions. r1 (r2) is ignored when
  // Q = 1 (N = 1).
  Tra2(uint64_t p, uint64_t q, uint64_t r1, uint64_t r2, Reading reading = Reading::intended);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return static_cast<int>(intra_.size() + inter_.size()); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  uint64_t q() const { return q_; }
  uint64_t n() const { return n_; }
  uint64_t r1() const { return r1_; }
  uint64_t r2() const { return r2_; }
  int k1() const { return static_cast<int>(intra_.size()); }
  int k2() const { return static_cast<int>(inter_.size()); }
  bool intra_node(int s) const { return s < k1(); }
  // The round of step s within its phase.
  const tra::Round& round(int s) const;
  Rank send_peer(Rank r, int s) const;
  Rank recv_peer(Rank r, int s) const;
  // Blocks every process sends in step s; O(1).
  uint64_t blocks_in_round(int s) const;

 private:
  void sends_of(Rank c, int s, BlockSet& out) const;
  CollectiveSpec spec_;
  uint64_t q_, n_, r1_, r2_;
  Reading reading_;
  std::vector<tra::Round> intra_, inter_;
};

}  // namespace collcheck
