#pragma once
// Shared by the generator tests: a registered variant by name, and the peers
// and sends of one rank-step.
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedules/registry.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::test {

inline const AlgorithmInfo& registered_algorithm(const std::string& algorithm) {
  const AlgorithmInfo* a = find_algorithm(algorithm);
  if (!a) throw std::logic_error("no algorithm " + algorithm);
  return *a;
}

inline const VariantInfo& registered_variant(const std::string& algorithm, const std::string& name) {
  const AlgorithmInfo* a = find_algorithm(algorithm);
  if (!a || !a->find_variant(name)) throw std::logic_error("no " + algorithm + " variant " + name);
  return *a->find_variant(name);
}

inline std::set<Rank> peers(const std::vector<Transfer>& l) {
  std::set<Rank> out;
  for (const Transfer& t : l) out.insert(t.peer);
  return out;
}

// The send of `rs` to `peer` (std::logic_error if there is none).
inline const Transfer& send_to(const RankStep& rs, Rank peer) {
  for (const Transfer& t : rs.sends)
    if (t.peer == peer) return t;
  throw std::logic_error("no send to " + std::to_string(peer));
}

}  // namespace collcheck::test
