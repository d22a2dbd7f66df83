#include "schedules/family.hpp"

#include "schedules/fold.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck {

const char* to_string(FamilyId f) {
  switch (f) {
    case FamilyId::swing: return "swing";
    case FamilyId::recursive_doubling: return "recursive_doubling";
    case FamilyId::ring: return "ring";
    case FamilyId::bucket: return "bucket";
    case FamilyId::trivance: return "trivance";
    case FamilyId::bruck: return "bruck";
    case FamilyId::traff: return "traff";
    case FamilyId::tra: return "tra";
  }
  return "?";
}

std::string InstanceParams::label() const {
  std::string out;
  auto add = [&](const char* name, uint64_t v) {
    if (v) out += (out.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(v);
  };
  add("n", blocks);
  add("root", root);
  add("r", radix);
  add("r2", radix2);
  add("Q", ppn);
  if (!dims.empty()) {
    std::string shape;
    for (uint32_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    out += (out.empty() ? "" : " ") + std::string("dims=") + shape;
  }
  return out;
}

bool VariantInfo::takes(const std::string& option) const {
  for (const auto& o : options)
    if (o == option) return true;
  return false;
}

const VariantInfo* AlgorithmInfo::find_variant(const std::string& v) const {
  for (const auto& x : variants)
    if (x.name == v) return &x;
  return nullptr;
}

namespace family {

std::optional<std::string> any_p(const InstanceParams&) { return std::nullopt; }

AlgorithmInfo algorithm(FamilyId id, int kind, std::string name, Collective c, std::string summary,
                        std::vector<VariantInfo> variants, Capabilities caps) {
  for (VariantInfo& v : variants) v.family = id;
  return AlgorithmInfo{std::move(name), c, std::move(summary), std::move(variants), id, kind, caps};
}

}  // namespace family
}  // namespace collcheck
