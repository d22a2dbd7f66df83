#pragma once
// The concrete arithmetic policy of the rules written once for generation
// and for their parametric certificates (ring_rule.hpp; the symbolic policy
// is smt/parametric/z3_rule_arith.hpp).
#include <cstdint>

namespace collcheck::rule {

struct Concrete {
  using Int = int64_t;
  using Bool = bool;
  // The least non-negative residue of x modulo p > 0.
  Int mod(Int x, Int p) const { return ((x % p) + p) % p; }
  Int pick(Bool c, Int a, Int b) const { return c ? a : b; }
};

}  // namespace collcheck::rule
