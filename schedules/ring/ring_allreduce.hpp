#pragma once
// Ring allreduce (reduce-scatter then allgather around a ring).
//
// Algorithm  : Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
//              clusters of workstations", JPDC 2009; Swing paper Sec. 2.3.1.
// Steps      : 2(p-1). RS step s (0..p-2): rank r sends block (r - s) mod p to
//              r+1 (reduce) and receives block (r - s - 1) mod p from r-1.
//              AG step p-1+s: rank r sends block (r + 1 - s) mod p to r+1 (copy).
// Volume     : 2(p-1) blocks of n/p per rank.
// Restrictions: none (p = 1: no steps; p = 2: both neighbours are the same rank).
// Example    : p = 3: after RS rank r holds the fully reduced block (r+1) mod 3.
#include <memory>
#include <optional>

#include "schedules/schedule.hpp"

namespace collcheck {

std::unique_ptr<Schedule> make_ring_allreduce(uint64_t p);

// The same schedule, certified equivariant under the translations with
// blocks as ranks (shift 1; schedules/translation_equivariant.hpp), checked
// by its quotient. Why the image is the algorithm's rank r: the rule above
// reads r only through r + 1, r - 1, r - t, r - t - 1 and r + 1 - t (mod p),
// so rank r's transfers are rank 0's with every peer and block + r.
std::unique_ptr<Schedule> make_ring_allreduce_certified(uint64_t p);

// p if `s` is this generator (direct, or wrapped by
// make_ring_allreduce_certified), else nullopt. Its rule is ring_rule.hpp,
// which the parametric certificate (smt/ring/ring_certificate.cpp) reads:
// the certificate covers exactly these schedules, no copy or mutant of them.
std::optional<uint64_t> ring_allreduce_rule_p(const Schedule& s);

}  // namespace collcheck
