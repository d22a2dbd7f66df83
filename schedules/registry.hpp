#pragma once
// The one algorithm registry (MPICH coll_algorithms.txt style): the list of
// families (schedules/family.hpp), one line per family in registry.cpp. The
// CLI, the sweeps, the tests and the reports all iterate this table; nothing
// else knows which algorithms exist.
#include <string>
#include <vector>

#include "schedules/family.hpp"

namespace collcheck {

// Every family, in registry order.
const std::vector<Family>& families();
// Every algorithm of every family, in family order.
const std::vector<AlgorithmInfo>& registry();
const AlgorithmInfo* find_algorithm(const std::string& name);

}  // namespace collcheck
