#pragma once
// The p-range syntax (docs/guide/options.md, "Instances"):
//   N            one value (N may be written B^K: 2^21, 3^13)
//   A..B         every p from A to B
//   A..B:STEP    every STEP-th p from A
//   A..B:pow2    the powers of two in [A, B]
//   X,Y,...      a comma list of any of the above
// Values are sorted and de-duplicated. p = 0, an empty range, a malformed
// term, a value above kMaxP or more than 2^22 values (kMaxSweepInstances,
// checker/sweep/sweep.hpp) throw InputError (exit
// code 2); nothing is clamped.
#include <cstdint>
#include <string>
#include <vector>

namespace collcheck {

inline constexpr uint64_t kMaxP = uint64_t{1} << 24;

std::vector<uint64_t> parse_p_range(const std::string& text);

// A p-range as parse_p_range reads it, without the 2^22-values limit of one
// sweep (values still <= kMaxP; verify --estimate plans sweeps beyond one
// run, checker/sweep/estimate.hpp); InputError on malformed input.
std::vector<uint64_t> parse_p_range_for_estimate(const std::string& text);

}  // namespace collcheck
