#pragma once
// The TRA family's typed interface (schedules/family.hpp): its algorithm and
// variant kinds and the ONE resolve of its instance options (the radix rule,
// TRA2's Q/r1/r2 defaults), used by the generators (tra_family.cpp), the
// properties (properties/tra/) and the SMT queries (smt/tra/).
#include <cstdint>
#include <optional>

#include "schedules/family.hpp"

namespace collcheck::tra {

enum class AlgorithmKind { tra, tra2 };
enum class VariantKind { tra, bruck, spread_out, tra2, paper_literal, paper_formulas };

// The paper's "optimal radix" r = sqrt(P) (Sec. III-B), rounded up, at least 2.
uint64_t default_radix(uint64_t p);

// A TRA or TRA2 instance with every default filled in.
struct Params {
  VariantKind variant = VariantKind::tra;
  bool two_layer = false;  // TRA2
  uint64_t p = 1;
  // TRA: --radix or default_radix(P); bruck: 2; spread-out: P (1 at P = 1).
  uint64_t radix = 0;
  // TRA2: Q = --ppn (default: the largest divisor of P <= sqrt P), N = P/Q (0
  // if Q does not divide P), r1 = --radix and r2 = --radix2 (default
  // ceil(sqrt Q) clamped to 2..Q, ceil(sqrt N) clamped to 2..N; 0 for an
  // empty phase).
  uint64_t ppn = 0, nodes = 0, r1 = 0, r2 = 0;
  bool paper_literal() const { return variant == VariantKind::paper_literal; }
};
// nullopt if `v` is not a variant of this family. Validity is the variant's
// `violates`, not checked here.
std::optional<Params> resolve(const VariantInfo& v, const InstanceParams& ip);

}  // namespace collcheck::tra
