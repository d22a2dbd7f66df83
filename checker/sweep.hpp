#pragma once
// The sweep engine: every (algorithm, variant, p) instance of a request is
// checked with every property. TBB runs instances in parallel (and each
// instance runs its ranks in parallel); every result goes into a pre-indexed
// slot, so the report is identical for any thread count, and each property's
// reported counterexample is the minimal one.
#include <cstdint>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "reports/report.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

struct SweepTarget {
  const AlgorithmInfo* algorithm;
  const VariantInfo* variant;
  uint32_t n = 0;  // --n (blocks), 0 = the algorithm's default
  Rank root = 0;   // --root
  uint32_t radix = 0, radix2 = 0, ppn = 0;  // --radix, --radix2, --ppn (0: the default)
  bool all_radices = false;                 // --radix all: one instance per r = 2..p
  // The instance for p (and radix r, when all_radices).
  InstanceParams params(uint64_t p, uint32_t r = 0) const { return {p, root, n, r ? r : radix, radix2, ppn}; }
  // The radices to instantiate for p: {0} (the target's own) unless
  // all_radices, then 2..p (p = 1: {0}, the variant's default).
  std::vector<uint32_t> radices(uint64_t p) const;
};

struct SweepRequest {
  std::vector<SweepTarget> targets;
  std::vector<uint64_t> ps;
  bool skip_restricted = false;  // false: a restricted p is bad input (exit 2)
  bool progress = true;          // progress + ETA on stderr for long sweeps
  CheckOptions check;
};

// Resolves --algo / --variant ("all" allowed for both) into targets; throws
// InputError for unknown names.
std::vector<SweepTarget> resolve_targets(const std::string& algo, const std::string& variant);

// Throws InputError naming the first (variant, p) outside a restriction,
// unless skip_restricted.
void check_restrictions(const SweepRequest& req);

// An InstanceResult naming (t, p); status skipped with the reason if p is
// outside t's restriction, holds otherwise (to be filled in).
InstanceResult instance_header(const SweepTarget& t, uint64_t p, uint32_t radix = 0);

// Checks one instance with the registry's claims and hop function.
InstanceResult check_instance(const SweepTarget& t, uint64_t p, const CheckOptions& o, uint32_t radix = 0);

Report run_sweep(const SweepRequest& req);

// DESIGN.md exit codes: 0 holds, 1 violated, 3 unknown, 77 all skipped.
int exit_code(const Report& r);

}  // namespace collcheck
