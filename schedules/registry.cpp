#include "schedules/registry.hpp"

namespace collcheck {

// The families, one line each (schedules/family.hpp says what a family
// declares and which files it has).
const std::vector<Family>& families() {
  static const std::vector<Family> list = {
      swing_family(),
      recursive_doubling_family(),
      ring_family(),
      bucket_family(),
      trivance_family(),
      bruck_family(),
      traff_family(),
      tra_family(),
  };
  return list;
}

const std::vector<AlgorithmInfo>& registry() {
  static const std::vector<AlgorithmInfo> table = [] {
    std::vector<AlgorithmInfo> all;
    for (const Family& f : families())
      for (const AlgorithmInfo& a : f.algorithms) all.push_back(a);
    return all;
  }();
  return table;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : registry())
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace collcheck
