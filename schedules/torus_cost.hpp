#pragma once
// Helpers for the printed link-level costs families declare on their torus
// variants (VariantInfo::torus_cost, schedules/family.hpp; judged by
// properties/topology/torus_deficiency.hpp).
#include <string>
#include <vector>

#include "schedules/family.hpp"

namespace collcheck::torus_cost {

PrintedCost equal(std::string name, std::string formula, double value, std::string note = "");
PrintedCost at_most(std::string name, std::string formula, double value, std::string note = "");
PrintedCost reported(std::string name, std::string formula, double value, std::string note);

bool square(const std::vector<uint32_t>& dims);
double log2p(const InstanceParams& i);
// p^(1/D): the side of a square torus. Both papers print it; the Swing paper
// as "\sqrt[p]{p}" (the p-th root), which is garbled: the side is the D-th root.
double side(const InstanceParams& i);
// A value printed truncated to `digits` decimals, as an upper bound: the
// printed value plus one unit of its last digit.
double truncated_bound(double printed, int digits);

}  // namespace collcheck::torus_cost
