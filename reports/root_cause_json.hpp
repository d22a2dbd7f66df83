#pragma once
// A counterexample's root cause (properties/flow/root_cause.hpp) as JSON, one
// encoding for the JSON report, the MPI shard messages (checker/shard_plan)
// and the results store (checker/sweep/results_store): {"kind", "contributor",
// "step", "rank", "peer", "text"}, absent values null; an absent root cause
// is null.
#include <nlohmann/json.hpp>

#include <optional>

#include "properties/verdict.hpp"

namespace collcheck {

nlohmann::json root_cause_to_json(const std::optional<RootCause>& rc);
// The inverse; throws std::runtime_error on a malformed encoding.
std::optional<RootCause> root_cause_from_json(const nlohmann::json& j);

}  // namespace collcheck
