#pragma once
// The property catalog: names and one-line statements, in report order.
// `collcheck list` prints it; every verdict's `property` is one of these names
// (or an smt-* / executor name from smt/ and runtime/).
#include <string>
#include <vector>

namespace collcheck {

struct PropertyInfo {
  std::string name;
  std::string statement;
  bool generic;  // applies to every algorithm
};

namespace prop {
inline constexpr const char* matching = "matching";
inline constexpr const char* ports = "ports";
inline constexpr const char* causality = "causality";
inline constexpr const char* exactly_once = "exactly-once";
inline constexpr const char* postcondition = "postcondition";
inline constexpr const char* cost = "cost";
inline constexpr const char* swing_hops = "swing-hop-distance";
inline constexpr const char* swing_torus_ports = "swing-torus-ports";
inline constexpr const char* torus_deficiency = "torus-deficiency";
inline constexpr const char* traff_conditions = "traff-conditions";
inline constexpr const char* traff_bounds = "traff-bounds";
inline constexpr const char* alltoall_delivery = "alltoall-delivery";
inline constexpr const char* tra_formulas = "tra-formulas";
inline constexpr const char* trivance_coverage = "trivance-coverage";
}  // namespace prop

const std::vector<PropertyInfo>& property_catalog();

}  // namespace collcheck
