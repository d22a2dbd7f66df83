#pragma once
// What an algorithm family is: the one place that declares a
// family's algorithms (name, collective, summary), their variants (name,
// summary, reference by paper title and section, restriction, claim with its
// source, expected_to_hold / known_failure), the instance options each variant
// takes and the family's typed parameters with ONE `resolve` from the CLI's
// InstanceParams (schedules/<family>/<family>_family.hpp), the names of its
// family-specific properties, its capabilities (extra CLI formats and
// analyses) and a slot for its symmetry.
//
// Files of a family (the same folder name in every layer):
//   schedules/<f>/<f>_family.cpp   the Family object: algorithms, variants,
//                                  claims, restrictions, options, resolve
//   properties/<f>/<f>_properties.cpp  (optional) the family's properties:
//                                  one function returning its FamilyProperty
//                                  list (properties/family_property.hpp)
//   smt/<f>/<f>_queries.cpp        (optional) the family's SMT queries: one
//                                  function returning its Query list
//                                  (smt/query_registry.hpp)
// and one line in each generic list: schedules/registry.cpp (families()),
// properties/family_property.cpp (family_properties()), smt/query_registry.cpp.
//
// Layering: cc_schedules <- cc_properties <- cc_smt. schedules/ cannot name
// a property or a query object, so the link is by TYPED identity, never by
// comparing algorithm or variant names: every AlgorithmInfo and VariantInfo
// carries its FamilyId and a family-local kind (an enum of the family,
// stored as int; the family's own code converts it back), and a variant
// lists the catalog names of the family properties it runs
// (VariantInfo::family_properties, resolved in the family's own property
// list). The properties and queries layers keep one list each, keyed by
// FamilyId.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {

// The families, in registry order (verify --algo all lists them so).
enum class FamilyId { swing, recursive_doubling, ring, bucket, trivance, bruck, traff, tra };
const char* to_string(FamilyId f);  // the folder name: "swing", "recursive_doubling", ...

// The CLI's instance options, untyped (every family reads the ones it takes
// through its own `resolve`).
struct InstanceParams {
  uint64_t p = 1;
  Rank root = 0;        // broadcast / reduce root
  uint32_t blocks = 0;  // CLI --n: blocks per rank (Träff; 0: the family's default). Trivance's n (nodes) is p.
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


// A link-level cost value a paper prints for an algorithm on a torus (Swing
// NSDI'24 Table 2 and Sec. 2.3: Lambda, Psi, Xi; Trivance Table 2: Theta),
// evaluated at an instance, and how property torus-deficiency compares the
// value measured on the schedule's routed links with it
// (properties/topology/torus_deficiency.hpp).
struct PrintedCost {
  enum class Judge { equal, at_most, reported };
  std::string name;     // "Lambda", "Psi", "Xi" or "Theta"
  std::string formula;  // as printed, e.g. "2D p^(1/D) / log2 p" (and the reading taken)
  double value = 0;     // at the instance; for a limit "p -> infinity", the limit
  Judge judge = Judge::reported;
  std::string note;     // the tolerance, or why it is only reported
};
// The rows the Swing paper's comparative claims name (analyze --dims checks
// them: properties/topology/torus_analysis.hpp).
enum class TorusCostRole { none, swing_bandwidth, mirrored_recursive_doubling_bandwidth };
struct TorusCostClaim {
  std::string row;  // the table row, e.g. "Swing NSDI'24 Table 2, SWING (B)"
  std::vector<PrintedCost> values;
  TorusCostRole role = TorusCostRole::none;
};

struct VariantInfo {
  std::string name;
  std::string summary;
  std::string reference;                 // paper (by title), section, equation
  std::string restriction;               // human-readable, "" if none
  bool expected_to_hold = true;          // false: a paper rule or reading of one that collcheck refutes
  std::string known_failure;             // for expected_to_hold == false: the finding
  std::function<std::optional<std::string>(const InstanceParams&)> violates;  // why not allowed
  std::function<std::unique_ptr<Schedule>(const InstanceParams&)> make;
  std::function<Claim(const InstanceParams&)> claim;
  // The family's properties (catalog names, properties/catalog.hpp) that
  // verify runs on every instance besides the generic ones, e.g. Träff's
  // "traff-conditions" and "traff-bounds"; each is implemented in the
  // family's property list (properties/<family>/<family>_properties.cpp).
  std::vector<std::string> family_properties;
  // The instance options (CLI --n, --root, --radix, --radix2, --ppn, --dims) this
  // variant takes; giving any other is bad input, never silently ignored.
  std::vector<std::string> options;
  // The group the variant's schedules are equivariant under by construction
  // (schedules/symmetry.hpp), where it acts on the instance (e.g. even p for
  // swing-dihedral); undeclared: every instance is enumerated (a translation
  // invariance the checker can still verify rank by rank,
  // properties/flow/flow_rotation.hpp, is not a declaration).
  SymmetryGroup symmetry = SymmetryGroup::undeclared;
  // Variants on a torus (options "dims"): the printed link-level costs
  // torus-deficiency judges (empty: none printed for this variant).
  std::function<TorusCostClaim(const InstanceParams&)> torus_cost;
  // Typed identity: the family and the family-local kind (the family's enum).
  FamilyId family = FamilyId::swing;
  int kind = 0;
  bool takes(const std::string& option) const;
};

// What a family's algorithm offers besides verify/run/dump.
struct Capabilities {
  bool traff_table_format = false;  // dump --format traff-table (the circulant receive/send tables of p)
  bool analysis = false;            // collcheck analyze (the TRA radix analysis)
  // smt-step-lower-bound encodes the flat bound of this algorithm's collective
  // (false where it would say little: several blocks per rank, hierarchies).
  bool flat_step_bound = true;
};

struct AlgorithmInfo {
  std::string name;
  Collective collective;
  std::string summary;
  std::vector<VariantInfo> variants;  // variants[0] is the default
  FamilyId family = FamilyId::swing;
  int kind = 0;                       // family-local (the family's enum)
  Capabilities capabilities = {};
  const VariantInfo& default_variant() const { return variants.front(); }
  const VariantInfo* find_variant(const std::string& v) const;
};

struct Family {
  FamilyId id;
  std::vector<AlgorithmInfo> algorithms;
};

// One per family, defined in schedules/<family>/<family>_family.cpp; the
// family stamps its id and kinds on every algorithm and variant it declares.
Family swing_family();
Family recursive_doubling_family();
Family ring_family();
Family bucket_family();
Family trivance_family();
Family bruck_family();
Family traff_family();
Family tra_family();

// Helpers the family files share.
namespace family {
std::optional<std::string> any_p(const InstanceParams&);  // no restriction
// An algorithm of family `id` with family-local kind `kind`; stamps `id` on
// every variant (each variant keeps the kind its family gave it).
AlgorithmInfo algorithm(FamilyId id, int kind, std::string name, Collective c, std::string summary,
                        std::vector<VariantInfo> variants, Capabilities caps = {});
}  // namespace family

}  // namespace collcheck
