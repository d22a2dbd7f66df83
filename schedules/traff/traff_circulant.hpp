#pragma once
// Träff's round-optimal circulant broadcast schedules: the pure per-rank
// schedule computations, with the paper's names.
//
// Algorithm
//   skips(p)             Algorithm 2: skip[q] = p, skip[k-1] = skip[k] - skip[k]/2
//                        (= ceil(skip[k]/2)), q = ceil(log2 p).
//   baseblock(r, skip)   Algorithm 3 (BASEBLOCK): the smallest skip index of r's
//                        canonical skip sequence; q for the root r = 0.
//   rank_schedule(r, skip)
//                        Algorithm 5 (RECVSCHEDULE) with Algorithm 4 (ALLBLOCKS,
//                        depth-first search over the doubly linked list next[]/prev[]
//                        of remaining skip indices, started as
//                        ALLBLOCKS(p + r, 0, p + p, q, 0, recvblock[])), then
//                        Algorithm 6 (SENDSCHEDULE: rounds k = q-1..1 with the
//                        virtual rank r', the bound e and the lower-part block c;
//                        a "violation" is a round where Algorithm 6 falls back to
//                        RECVSCHEDULE((r + skip[k]) mod p)[k]).
//
//   In round i of Algorithm 1 (k = i mod q) rank r sends sendblock[k] to
//   t = (r + skip[k]) mod p and receives recvblock[k] from f = (r - skip[k]) mod p;
//   the blocks of the next phase are these plus q. Negative blocks are not
//   communicated. The root is r = 0.
//
// Reference
//   J. L. Träff, "Optimal Broadcast Schedules in Logarithmic Time with Applications
//   to Broadcast, All-Broadcast, Reduction and All-Reduction", 2024
//   (Träff, "Optimal Broadcast Schedules in Logarithmic Time ..."): Sec. 2 (Algorithm 1,
//   the four correctness conditions, Tables 1-3), Sec. 2.1 (Algorithms 2, 3,
//   Lemma 3), Sec. 2.2 (Algorithms 4, 5, Lemmas 4-7), Sec. 2.3 (Algorithm 6,
//   Theorem 3).
//
// Names (as in the paper)
//   p, q = ceil(log2 p), skip[0..q] (skip[q] = p), r (rank), r' (rp in code,
//   the intermediate / virtual rank), s (last accepted intermediate rank),
//   e (skip index in ALLBLOCKS; the range bound in SENDSCHEDULE), k (round),
//   b (baseblock), c (block a lower-part rank sends in SENDSCHEDULE),
//   next[] / prev[] (the list of remaining skip indices, sentinel -1).
//
// Complexity
//   skips: O(log p). baseblock: O(log p). rank_schedule: O(log p) per rank
//   (Lemma 6: at most 2q + R while-iterations with R <= q-1 recursive calls,
//   Lemma 5; at most 4 violations, Theorem 3, each one more O(q) RECVSCHEDULE).
//   No global state, no allocation beyond the two result vectors.
//
// Deviations from the printed algorithms (bounds only; see the .cpp):
//   * ALLBLOCKS as printed could read skip[k+1] with k = q (all q blocks found),
//     one past skip[q]; we read it from a local copy extended by skip[q+1] = 2p
//     (the value Observation 2 gives it), with which the printed code returns at
//     once when k = q, before any write to recvblock[q]. Never reached in our
//     runs (every rank of p = 2..8000 and of six p near 2^20, 2^21): a guard only.
//   * BASEBLOCK's repeat loop would read skip[-1] for p = 1 (q = 0); we return
//     q = 0 there.
//
// Worked example (p = 9, Table 2): skip = 1, 2, 3, 5, 9; q = 4;
//   baseblocks r = 0..8: 4 0 1 2 0 3 0 1 2.
//   r = 5: b = 3, recvblock = -4 -2 -3 3 (receives its baseblock 3 in round 3
//   from r - skip[3] = 0), sendblock = -1 -1 -1 -1.
//   r = 1: b = 0, recvblock = 0 -2 -3 -1, sendblock = -4 -4 0 0.
#include <cstdint>
#include <vector>

namespace collcheck::traff {

// Algorithm 2. Returns skip[0..q], q = ceil(log2 p), skip[q] = p. Requires p >= 1.
std::vector<int64_t> skips(uint64_t p);

// Algorithm 3 (BASEBLOCK). r in [0, p), skip from skips(p). Returns q for r = 0.
int64_t baseblock(uint64_t r, const std::vector<int64_t>& skip);

struct RankSchedule {
  std::vector<int64_t> recvblock;  // recvblock[k], k = 0..q-1 (Algorithm 5)
  std::vector<int64_t> sendblock;  // sendblock[k], k = 0..q-1 (Algorithm 6)
  int64_t baseblock = 0;           // b_r (q for the root)
  int recursive_calls = 0;  // recursive ALLBLOCKS calls in r's own RECVSCHEDULE (Lemma 5: <= q-1);
                            // the first, non-recursive call from Algorithm 5 is not counted
  int violations = 0;       // rounds where Algorithm 6 called RECVSCHEDULE (Theorem 3: <= 4)
  uint64_t violation_rounds = 0;  // bit k set iff round k is one of those violations
};

// Algorithms 4+5 (receive schedule) and 6 (send schedule) for rank r in [0, p).
RankSchedule rank_schedule(uint64_t r, const std::vector<int64_t>& skip);

// The same without allocation, for the checkers' hot loops: writes
// recvblock[0..q-1] and sendblock[0..q-1] (q = skip.size() - 1) and returns
// the baseblock and the two counters of RankSchedule.
struct RankCounters {
  int64_t baseblock = 0;
  int recursive_calls = 0;
  int violations = 0;
  uint64_t violation_rounds = 0;
};
RankCounters rank_schedule_into(uint64_t r, const std::vector<int64_t>& skip, int64_t* recvblock,
                                int64_t* sendblock);

// Algorithm 5 alone: recvblock[0..q-1] for rank r; adds r's recursive ALLBLOCKS
// calls to *recursive_calls when given.
std::vector<int64_t> recvschedule(uint64_t r, const std::vector<int64_t>& skip,
                                  int* recursive_calls = nullptr);

}  // namespace collcheck::traff
