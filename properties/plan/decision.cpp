#include "properties/plan/decision.hpp"

namespace collcheck {

const char* to_string(MethodId m) {
  switch (m) {
    case MethodId::parametric_certificate: return "parametric-certificate";
    case MethodId::fold_over_grouped: return "fold-over-grouped-quotient";
    case MethodId::extra_rank: return "extra-rank-composition";
    case MethodId::fold_over_quotient: return "fold-over-cell-quotient";
    case MethodId::grouped_quotient: return "grouped-quotient";
    case MethodId::cell_quotient: return "cell-quotient";
    case MethodId::rotation: return "rotation";
    case MethodId::intervals: return "intervals";
    case MethodId::enumeration: return "enumeration";
  }
  return "?";
}

bool decides_from_rank_zero(MethodId m) {
  return m != MethodId::rotation && m != MethodId::intervals && m != MethodId::enumeration;
}

bool builds_on_grouped_quotient(MethodId m) {
  return m == MethodId::grouped_quotient || m == MethodId::fold_over_grouped || m == MethodId::extra_rank;
}

namespace {
// The pieces the quotients and compositions share, worded once.
std::string core_quotient(const DecidedBy& d) {
  return "quotient: " + d.group + "; certificate: " + d.certificate;
}
std::string grouped_cells(const DecidedBy& d) {
  return "; rank 0 simulated as groups of blocks sharing one contribution set (" + d.cells + ")";
}
std::string fold_of(const DecidedBy& d) {
  return std::string("composition: fold of ") +
         (d.extra_ranks == 1 ? "rank p-1 onto the core of p-1 ranks" : "the extra ranks onto a core of p' ranks");
}
}  // namespace

// The same text for every p of a kind: reports group instances by it.
std::string describe(const DecidedBy& d) {
  switch (d.method) {
    case MethodId::fold_over_grouped:
      return fold_of(d) + "; core: " + core_quotient(d) + grouped_cells(d) + "; obligations: " + d.obligations;
    case MethodId::extra_rank:
      return "composition: the extra rank p-1 beside the ring of p-1 ranks; core: " + core_quotient(d) +
             grouped_cells(d) + "; obligations: " + d.obligations;
    case MethodId::fold_over_quotient:
      return fold_of(d) + "; core: " + core_quotient(d) + "; rank 0 simulated with " + d.cells +
             "; obligations: " + d.obligations;
    case MethodId::grouped_quotient:
      return core_quotient(d) + grouped_cells(d);
    case MethodId::cell_quotient:
      return core_quotient(d) + "; rank 0 simulated with " + d.cells;
    case MethodId::parametric_certificate:
    case MethodId::rotation:
    case MethodId::intervals:
    case MethodId::enumeration:
      return d.text;
  }
  return d.text;
}

const char* decline_stat(MethodId m) {
  switch (m) {
    case MethodId::parametric_certificate: return "parametric_declined";
    case MethodId::fold_over_grouped:
    case MethodId::extra_rank:
    case MethodId::grouped_quotient: return "grouped_declined";
    case MethodId::fold_over_quotient:
    case MethodId::cell_quotient: return "quotient_declined";
    case MethodId::rotation: return "rotation_declined";
    case MethodId::intervals: return "intervals_declined";
    case MethodId::enumeration: return "enumeration_declined";
  }
  return "declined";
}

}  // namespace collcheck
