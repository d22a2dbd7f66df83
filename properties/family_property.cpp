#include "properties/family_property.hpp"

#include <algorithm>
#include <stdexcept>

#include "properties/topology/torus_deficiency.hpp"

namespace collcheck {

bool FamilyContext::is_selected(const std::string& name) const {
  return std::find(selected.begin(), selected.end(), name) != selected.end();
}

// The families' property lists, one line per family that has properties.
const std::vector<FamilyProperty>& family_properties(FamilyId f) {
  static const std::map<FamilyId, std::vector<FamilyProperty>> lists = {
      {FamilyId::swing, swing_properties()},
      // The baselines on a torus: only the link-level cost (topology/).
      {FamilyId::recursive_doubling, {torus_deficiency_property()}},
      {FamilyId::ring, {torus_deficiency_property()}},
      {FamilyId::bucket, {torus_deficiency_property()}},
      {FamilyId::traff, traff_properties()},
      {FamilyId::trivance, trivance_properties()},
      {FamilyId::tra, tra_properties()},
  };
  static const std::vector<FamilyProperty> none;
  auto it = lists.find(f);
  return it == lists.end() ? none : it->second;
}

const FamilyProperty* find_family_property(FamilyId f, const std::string& name) {
  for (const FamilyProperty& p : family_properties(f))
    if (p.name == name) return &p;
  return nullptr;
}

namespace {

const FamilyProperty& implemented(const VariantInfo& v, const std::string& name) {
  const FamilyProperty* p = find_family_property(v.family, name);
  if (!p)
    throw std::invalid_argument("family " + std::string(to_string(v.family)) + " has no property named '" + name +
                                "'");
  return *p;
}

}  // namespace

std::vector<std::string> FamilyPlan::names() const {
  std::vector<std::string> out;
  if (hook) out.push_back(hook.property);
  for (const FamilyProperty* p : checks) out.push_back(p->name);
  return out;
}

FamilyPlan plan_family_properties(const VariantInfo& v, const InstanceParams& ip, const CheckOptions& o) {
  FamilyPlan plan;
  for (const std::string& name : v.family_properties) {
    const FamilyProperty& p = implemented(v, name);
    if (p.step_hook) {
      if (plan.hook) throw std::invalid_argument("variant " + v.name + " declares two step-hook properties");
      plan.hook = p.step_hook(v, ip);
    } else if (o.selected(name)) {
      plan.checks.push_back(&p);
    }
  }
  return plan;
}

StepHook family_step_hook(const VariantInfo& v, const InstanceParams& ip) {
  return plan_family_properties(v, ip, CheckOptions{}).hook;
}

bool runs_engine(const CheckOptions& o) {
  if (o.any_generic_selected()) return true;
  for (const Family& f : families())
    for (const FamilyProperty& p : family_properties(f.id))
      if (p.step_hook && o.selected(p.name)) return true;
  return false;
}

std::pair<uint64_t, std::string> family_memory(const FamilyPlan& plan, const VariantInfo& v,
                                               const InstanceParams& ip) {
  std::pair<uint64_t, std::string> most{0, ""};
  for (const std::string& name : plan.names()) {
    const FamilyProperty& p = implemented(v, name);
    const uint64_t need = p.memory ? p.memory(ip) : 0;
    if (need > most.first) most = {need, name};
  }
  return most;
}

std::vector<Verdict> check_family_properties(const std::vector<std::string>& names, const VariantInfo& v,
                                             const InstanceParams& ip) {
  FamilyContext ctx(v, ip, names);
  std::vector<Verdict> out;
  for (const std::string& name : names) {
    const FamilyProperty& p = implemented(v, name);
    if (!p.check) throw std::invalid_argument("property '" + name + "' is judged inside the engine (check_schedule)");
    out.push_back(p.check(ctx));
  }
  if (!out.empty())
    for (auto& [k, x] : ctx.front_stats) out.front().stats[k] = x;
  return out;
}

}  // namespace collcheck
