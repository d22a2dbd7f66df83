#pragma once
// The algorithm-specific properties that registry variants name in
// VariantInfo::extra_properties, by catalog name (properties/catalog.hpp).
// The generic properties run in check_schedule (instance_checker.hpp); these
// look at what an algorithm computes besides its transfers, e.g. Träff's
// receive/send tables of all p ranks ("traff-conditions", "traff-bounds"),
// which are computed once per p and shared by both.
#include <cstdint>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

// True if `name` is implemented here.
bool is_algorithm_property(const std::string& name);

// One verdict per name, in the given order. Throws std::invalid_argument for a
// name that is not implemented here. `algorithm` and `variant` are the
// registry names of the instance: the TRA properties need them to know the
// radix of a variant that does not take --radix (bruck: 2, spread-out: P) and
// which TRA2 reading runs (paper-literal); the others ignore them.
std::vector<Verdict> check_algorithm_properties(const std::vector<std::string>& names, const InstanceParams& ip,
                                                const std::string& algorithm = {}, const std::string& variant = {});

}  // namespace collcheck
