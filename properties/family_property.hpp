#pragma once
// One way to wire a family property: every family-specific
// property (Swing's hop distance, Träff's table conditions and bounds,
// Trivance's coverage, TRA's delivery and formulas) is a FamilyProperty in
// its family's list, properties/<family>/<family>_properties.cpp, one
// function per family, joined in family_property.cpp's list (one line per
// family, keyed by FamilyId: typed, no name compared with an algorithm or
// variant name). A variant names the properties it runs
// (VariantInfo::family_properties, catalog names from properties/catalog.hpp,
// where their statements are); verify (checker/sweep/sweep.cpp) plans them
// per instance with plan_family_properties and runs:
//   * step hooks inside the engine: check_schedule (instance_checker.hpp)
//     calls the hook on every rank of every step and reports its verdict
//     after the generic ones (Swing's hop distance: the claim per step comes
//     from the family, schedules/swing/swing_family.hpp);
//   * checks after the engine, in the variant's order, all sharing one
//     FamilyContext per instance, so that what several properties need is
//     computed once (Träff's tables, the TRA simulation).
// Each property also states its memory at an instance (the memory guard,
// --max-memory, refuses before allocating).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <typeindex>
#include <vector>

#include "properties/instance_checker.hpp"
#include "properties/stat_aggregation.hpp"
#include "properties/verdict.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

// The per-instance context the family properties of one instance share.
class FamilyContext {
 public:
  FamilyContext(const VariantInfo& v, const InstanceParams& ip, std::vector<std::string> selected)
      : variant(v), params(ip), selected(std::move(selected)) {}
  const VariantInfo& variant;
  const InstanceParams& params;
  std::vector<std::string> selected;  // the family properties that run on this instance (catalog names)
  bool is_selected(const std::string& name) const;
  // State computed once per instance by the first property that asks for it
  // (one object per type T).
  template <class T, class Make>
  T& shared(Make&& make) {
    auto& slot = shared_[std::type_index(typeid(T))];
    if (!slot) slot = std::make_shared<T>(make());
    return *static_cast<T*>(slot.get());
  }
  // Stats the pipeline adds to the instance's first family verdict (e.g.
  // Träff's tables_seconds).
  std::map<std::string, std::string> front_stats;

 private:
  std::map<std::type_index, std::shared_ptr<void>> shared_;
};

struct FamilyProperty {
  std::string name;  // catalog name (properties/catalog.hpp holds its statement)
  // Bytes the property allocates at an instance, for the memory guard (empty: 0).
  std::function<uint64_t(const InstanceParams&)> memory;
  // Exactly one of:
  // judged after the engine, from the instance's shared context;
  std::function<Verdict(FamilyContext&)> check;
  // judged inside the engine, on every rank of every step.
  std::function<StepHook(const VariantInfo&, const InstanceParams&)> step_hook;
  // The verdict statistics that aggregate over a sweep, and how
  // (properties/stat_aggregation.hpp); every other statistic is per instance.
  std::span<const StatDecl> stats = {};
};

// The families' property lists (one function per family that has any).
std::vector<FamilyProperty> swing_properties();
std::vector<FamilyProperty> traff_properties();
std::vector<FamilyProperty> trivance_properties();
std::vector<FamilyProperty> tra_properties();

// Every family's list, keyed by family.
const std::vector<FamilyProperty>& family_properties(FamilyId f);
// The property `name` of family `f`; nullptr if the family has none such.
const FamilyProperty* find_family_property(FamilyId f, const std::string& name);

// What verify runs of a variant's family properties on one instance, with
// the selection of `o` (verify --properties).
struct FamilyPlan {
  // The variant's step-hook property, selected or not (empty: none): when the
  // engine runs it runs with the hook (a hook also rules out the symmetry
  // shortcut, flow_rotation.hpp), and its verdict is filtered by selection
  // like the generic ones.
  StepHook hook;
  std::vector<const FamilyProperty*> checks;  // the selected properties judged after the engine
  std::vector<std::string> names() const;     // the hook's property, then the checks
};
// Throws std::invalid_argument if the variant names a property its family
// does not implement (a wiring error).
FamilyPlan plan_family_properties(const VariantInfo& v, const InstanceParams& ip, const CheckOptions& o);
// The variant's step-hook property at `ip` (empty if it declares none): what
// verify passes to check_schedule.
StepHook family_step_hook(const VariantInfo& v, const InstanceParams& ip);
// Whether verify runs check_schedule under `o`: a generic property or a
// property some family judges with a step hook is selected.
bool runs_engine(const CheckOptions& o);
// The largest memory estimate of the plan's properties, and which property.
std::pair<uint64_t, std::string> family_memory(const FamilyPlan& plan, const VariantInfo& v, const InstanceParams& ip);

// Runs the named after-engine properties of `v`'s family, in the given
// order, sharing one context. Throws std::invalid_argument for a name the
// family does not implement as an after-engine check.
std::vector<Verdict> check_family_properties(const std::vector<std::string>& names, const VariantInfo& v,
                                             const InstanceParams& ip);

}  // namespace collcheck
