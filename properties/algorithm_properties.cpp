#include "properties/algorithm_properties.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>

#include "properties/tra/alltoall_delivery.hpp"
#include "properties/catalog.hpp"
#include "properties/tra/tra_formulas.hpp"
#include "properties/traff/traff_bounds.hpp"
#include "properties/traff/traff_conditions.hpp"
#include "properties/traff/traff_tables.hpp"
#include "properties/trivance/trivance_coverage.hpp"

namespace collcheck {

bool is_algorithm_property(const std::string& name) {
  return name == prop::traff_conditions || name == prop::traff_bounds || name == prop::alltoall_delivery ||
         name == prop::tra_formulas || name == prop::trivance_coverage;
}

std::vector<Verdict> check_algorithm_properties(const std::vector<std::string>& names, const InstanceParams& ip,
                                                const std::string& algorithm, const std::string& variant) {
  const uint64_t p = ip.p;
  std::vector<Verdict> out;
  std::optional<traff::Tables> tables;  // shared by the traff-* properties
  double table_seconds = 0;
  auto traff_tables = [&]() -> const traff::Tables& {
    if (!tables) {
      const auto start = std::chrono::steady_clock::now();
      tables = traff::compute_tables(p);
      table_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return *tables;
  };
  // One TRA simulation per call, shared by alltoall-delivery and tra-formulas;
  // it moves data only if alltoall-delivery is asked for (else it counts).
  std::optional<a2a::Simulation> sim;
  auto tra_sim = [&]() -> const a2a::Simulation& {
    if (!sim) {
      std::string why;
      const auto in = a2a::resolve(algorithm, variant, ip, &why);
      if (!in) throw std::invalid_argument("TRA properties on " + algorithm + "/" + variant + ": " + why);
      bool delivery = false;
      for (const std::string& n : names) delivery = delivery || n == prop::alltoall_delivery;
      sim = a2a::simulate(*in, delivery);
    }
    return *sim;
  };
  for (const std::string& name : names) {
    if (name == prop::alltoall_delivery) {
      out.push_back(tra_sim().delivery);
    } else if (name == prop::tra_formulas) {
      out.push_back(tra_formulas(tra_sim()));
    } else if (name == prop::trivance_coverage) {
      const AlgorithmInfo* a = find_algorithm(algorithm);
      const VariantInfo* v = a ? a->find_variant(variant.empty() ? a->default_variant().name : variant) : nullptr;
      if (!v) throw std::invalid_argument("trivance-coverage needs a registry algorithm and variant, got " + algorithm +
                                          "/" + variant);
      out.push_back(trivance_coverage(*v->make(ip)));
    } else if (name == prop::traff_conditions) {
      out.push_back(traff_conditions(traff_tables()));
    } else if (name == prop::traff_bounds) {
      out.push_back(traff_bounds(traff_tables()));
    } else {
      throw std::invalid_argument("no algorithm-specific property named '" + name + "'");
    }
  }
  if (tables && !out.empty()) out.front().stats["tables_seconds"] = std::to_string(table_seconds);
  return out;
}

}  // namespace collcheck
