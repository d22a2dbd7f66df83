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

namespace collcheck {

// True if `name` is implemented here.
bool is_algorithm_property(const std::string& name);

// One verdict per name, in the given order. Throws std::invalid_argument for a
// name that is not implemented here.
std::vector<Verdict> check_algorithm_properties(const std::vector<std::string>& names, uint64_t p);

}  // namespace collcheck
