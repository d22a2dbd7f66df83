// A parametric certificate proved for an interval holding p decides the
// instance without simulating it (properties/parametric_decider.hpp).
#include "properties/parametric_decider.hpp"
#include "properties/plan/decision_method.hpp"

namespace collcheck {
namespace {

class ParametricMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::parametric_certificate; }
  bool applies(const DecisionInput& in) const override {
    return in.o.parametric && !in.hook && in.symmetry_allowed();
  }
  bool expects(const DecisionInput& in) const override {
    std::string ignored;
    return applies(in) && in.o.parametric->decide(in.s, &ignored).has_value();
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const override {
    auto d = in.o.parametric->decide(in.s, declined);
    if (!d) return std::nullopt;
    DecidedBy by{MethodId::parametric_certificate};
    by.text = std::move(d->method);
    return assemble(in, std::move(d->verdicts), d->cost, std::move(by));
  }
};

}  // namespace

std::unique_ptr<DecisionMethod> make_parametric_method() { return std::make_unique<ParametricMethod>(); }

}  // namespace collcheck
