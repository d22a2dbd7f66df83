#pragma once
// Träff's two complexity bounds on the per-rank schedule computation, as one
// verdict named "traff-bounds" (prop::traff_bounds), on the counters that
// traff::compute_tables records for every rank:
//   Lemma 5   : RECVSCHEDULE (Algorithm 5) makes at most q-1 recursive
//               ALLBLOCKS calls (Algorithm 4) for any rank; the first,
//               non-recursive call from Algorithm 5 is not counted.
//               For p = 1 (q = 0) there is no call; the bound is read as 0.
//   Theorem 3 : SENDSCHEDULE (Algorithm 6) has at most 4 violations, i.e.
//               rounds where it falls back to RECVSCHEDULE of the to-processor.
// The counterexample is the smallest violating rank (with the rounds of its
// violations when Theorem 3 fails). Besides pass/fail the
// verdict carries the distributions a reader wants (stats):
//   violations_histogram        "0:N0 1:N1 2:N2 3:N3 4:N4" (ranks per count;
//                               higher counts are listed when they occur)
//   recursive_calls_histogram   ranks per number of recursive calls
//   max_violations, max_recursive_calls, recursion_bound (= max(q-1, 0)),
//   max_recursion_excess (max_recursive_calls - recursion_bound, <= 0 iff
//                               Lemma 5 holds)
//   witnesses_violations        every rank with a send-schedule violation and
//                               its rounds, "p=17 rank 3: 1 violation (round
//                               2); ...; p=17 rank 8: 1 violation (round 4);
//                               and 6 more" (at most 10 listed,
//                               properties/witnesses.hpp)
//   witnesses_max_violations    the ranks with max_violations violations (if
//                               any), with their rounds
//   witnesses_max_recursion_excess
//                               the ranks making max_recursive_calls calls (if
//                               any), "p=17 rank 2: 3 recursive calls (q-1 = 4)"
//   prose_claims                at p = 17, the (rank, round) pairs Sec. 2.3's
//                               prose names, each "holds" or "differs" against
//                               Algorithm 6: "p=17 rank 8: Sec. 2.3 prose says
//                               round 3, differs (Algorithm 6: round 4)"
// The rounds are recomputed with Algorithm 6 for the listed ranks only (the
// tables keep the count). Reports sum the histograms, take the maxima and keep
// the witnesses of the instances reaching them over a sweep (the extremal
// (p, rank) pairs), and list the first witnesses_violations of the sweep.
#include "properties/stat_aggregation.hpp"
#include "properties/traff/traff_tables.hpp"
#include "properties/verdict.hpp"

namespace collcheck {

// The statistics above that aggregate over a sweep (the others are per instance).
inline constexpr StatDecl kTraffBoundsStats[] = {
    {"violations_histogram", Aggregate::histogram},
    {"recursive_calls_histogram", Aggregate::histogram},
    {"max_violations", Aggregate::max},
    {"max_recursive_calls", Aggregate::max},
    {"max_recursion_excess", Aggregate::max},
    {"witnesses_violations", Aggregate::witnesses},
    {"prose_claims", Aggregate::witnesses},
    {"witnesses_max_violations", Aggregate::witnesses_of_max, "max_violations"},
    {"witnesses_max_recursion_excess", Aggregate::witnesses_of_max, "max_recursion_excess"},
};

// Requires t.has_counters() (tables from compute_tables); tables without
// counters (read from a file) give a skipped verdict.
Verdict traff_bounds(const traff::Tables& t);

}  // namespace collcheck
