#pragma once
// The one algorithm registry (MPICH coll_algorithms.txt style). The CLI, the
// sweeps, the tests and the reports all iterate this table; nothing else
// knows which algorithms exist.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

struct InstanceParams {
  uint64_t p = 1;
  Rank root = 0;        // broadcast / reduce root
  uint32_t n = 0;       // blocks, for algorithms that take it (0: the algorithm's default)
  uint32_t radix = 0;   // radix r (TRA; TRA2's intra-node r1), 0: the algorithm's default
  uint32_t radix2 = 0;  // TRA2's inter-node radix r2, 0: the algorithm's default
  uint32_t ppn = 0;     // processes per node Q (TRA2), 0: the algorithm's default
  // Torus shape (CLI --dims 3x3): one extent per dimension, product = p; empty
  // for algorithms on rings or without topology.
  std::vector<uint32_t> dims = {};
  // The parameters besides p that were set, e.g. "r=5" or "n=3 root=2"; empty
  // if none (reports print it next to p).
  std::string label() const;
};

// What the paper (or, for corrections, collcheck) claims about an instance.
struct Claim {
  int steps = 0;                 // communication steps
  uint64_t volume_blocks = 0;    // max blocks any rank sends, in blocks of n / nblocks
  std::string steps_formula;     // e.g. "2*ceil(log2 p)"
  std::string volume_formula;    // e.g. "2(p-1) blocks of n/p"
  std::string source;            // where the claim comes from
};

// Swing's hop-distance claim: at `step`, ranks below `ring` talk to peers at
// ring distance `distance` on a ring of `ring` ranks (nullopt: no claim).
struct HopClaim {
  uint64_t ring = 0;
  uint64_t distance = 0;
};

struct VariantInfo {
  std::string name;
  std::string summary;
  std::string reference;                 // paper, section, equation
  std::string restriction;               // human-readable, "" if none
  bool expected_to_hold = true;          // false: a paper rule or reading of one that collcheck refutes
  std::string known_failure;             // for expected_to_hold == false: the finding
  std::function<std::optional<std::string>(const InstanceParams&)> violates;  // why not allowed
  std::function<std::unique_ptr<Schedule>(const InstanceParams&)> make;
  std::function<Claim(const InstanceParams&)> claim;
  std::function<std::optional<HopClaim>(const InstanceParams&, int step)> hops;  // may be empty
  // Algorithm-specific properties (catalog names, properties/catalog.hpp) that
  // verify runs on every instance besides the generic ones, e.g. Träff's
  // "traff-conditions" and "traff-bounds" on the circulant tables of p.
  std::vector<std::string> extra_properties;
  // The instance options (CLI --n, --root, --radix, --radix2, --ppn, --dims) this
  // variant takes; giving any other is bad input, never silently ignored.
  std::vector<std::string> options;
  bool takes(const std::string& option) const;
};

struct AlgorithmInfo {
  std::string name;
  Collective collective;
  std::string summary;
  std::vector<VariantInfo> variants;  // variants[0] is the default
  const VariantInfo& default_variant() const { return variants.front(); }
  const VariantInfo* find_variant(const std::string& v) const;
};

const std::vector<AlgorithmInfo>& registry();
const AlgorithmInfo* find_algorithm(const std::string& name);

}  // namespace collcheck
