#pragma once
// Träff's receive and send tables of all p ranks, flat, for the table
// properties (traff-conditions, traff-bounds): recvblock[k]_r / sendblock[k]_r
// of the root-relative rank r (root 0) at [k * p + r], one column per round k.
// Column-major because conditions 1 and 2 compare rank r with ranks r -/+
// skip[k]: per round that is two sequential streams, where rows would touch
// 2q scattered cache lines per rank (measured: the check ran at 230 ns per
// rank with rows at p = 2^21, mostly waiting for memory).
//
// Values are stored as int8: every legal entry lies in [-q, q-1] and a
// baseblock in [0, q], q = ceil(log2 p) <= 63. compute_tables produces such
// values by construction (checked); from_rank_schedules rejects others with
// std::invalid_argument (the traff-table reader rejects them first, as bad
// input, naming the line).
//
// Memory: 2 p q + p bytes, plus 2 p bytes of counters when computed: about
// 90 MB for p = 2^21 (q = 21).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedules/traff/traff_circulant.hpp"

namespace collcheck::traff {

struct Tables {
  uint64_t p = 0;
  int q = 0;
  std::vector<int64_t> skip;       // Algorithm 2: skip[0..q]
  std::vector<int8_t> baseblock;   // b_r (q for the root)
  std::vector<int8_t> recv, send;  // [k * p + r]
  // Per-rank counters of the computation (empty for tables read from a file):
  // recursive ALLBLOCKS calls in r's RECVSCHEDULE (Lemma 5) and send-schedule
  // violations (Theorem 3).
  std::vector<uint8_t> recursive_calls, violations;

  size_t at(uint64_t r, int k) const { return static_cast<size_t>(k) * p + r; }
  int8_t R(uint64_t r, int k) const { return recv[at(r, k)]; }
  int8_t S(uint64_t r, int k) const { return send[at(r, k)]; }
  bool has_counters() const { return !recursive_calls.empty(); }
};

// Algorithms 2-6 for every rank of p (p >= 1), ranks in parallel (TBB), each
// with the O(log p) per-rank computation of rank_schedule_into.
Tables compute_tables(uint64_t p);

// Tables from per-rank schedules (e.g. a traff-table file); every row must
// have q = ceil(log2 s.size()) entries with values in [-q, q-1] and a
// baseblock in [0, q], else std::invalid_argument.
Tables from_rank_schedules(const std::vector<RankSchedule>& s);

}  // namespace collcheck::traff
