#pragma once
// A parametric certificate decides an instance by a proof made once for a
// whole interval of p: every obligation of the schedule's properties is
// proved for a symbolic p (and symbolic rank, block and step), from the
// generator's own rule, so it decides every p of the interval without
// simulating any of them. Never sampling or extrapolation: a p outside the
// proved interval, or a generator no certificate reads, is not decided by it.
//
// check_schedule asks CheckOptions::parametric first (exact mode, symmetry
// allowed, no step hook); the implementation lives beside the other Z3
// proofs (smt/parametric/parametric_certificates.hpp), which this library
// does not link, hence the interface.
#include <optional>
#include <string>

#include "properties/cost.hpp"
#include "properties/flow/flow_common.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {

struct ParametricDecision {
  flow::Verdicts verdicts;  // the five flow slots (kHook unused), checks and violations as enumeration counts them
  CostMeasurement cost;
  std::string method;       // stats["method"]: "parametric certificate: ..."
};

class ParametricDecider {
 public:
  virtual ~ParametricDecider() = default;
  // The decision for `s` if a certificate proved for an interval holding
  // s.p() reads s's generator; nullopt otherwise, with the reason in
  // *declined when a certificate is about s's generator but does not decide
  // it (left empty when none is).
  virtual std::optional<ParametricDecision> decide(const Schedule& s, std::string* declined) const = 0;
};

inline constexpr const char* kParametricMethod = "parametric certificate";

}  // namespace collcheck
