// Every rank, every step (flow/dense_simulation.hpp): exact p-bit cells
// (an all-to-all's held cells only, flow/held_enumeration.hpp, unless dense
// cells are asked for) or fingerprint cells. The plan's last method: it
// always decides, or the memory guard refuses the instance.
#include "properties/flow/dense_simulation.hpp"
#include "properties/flow/held_enumeration.hpp"
#include "properties/plan/decision_method.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck {
namespace {

class EnumerationMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::enumeration; }
  bool applies(const DecisionInput&) const override { return true; }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string*) const override {
    if (in.o.max_memory) {
      const MemoryEstimate m = generic_estimate(in.s, in.o, in.exactness, in.rank_zero());
      if (m.bytes > in.o.max_memory) {
        InstanceCheck out = refused_check(Refusal::Kind::memory_before, refusal(m, in.o.max_memory));
        out.stats["memory_estimate_bytes"] = std::to_string(m.bytes);
        return out;
      }
    }
    if (in.exactness == Exactness::exact) return enumerate_exact(in);
    flow::DenseResult r = flow::run_dense_fingerprint(in.s, in.claim, in.hook, in.o);
    InstanceCheck out = assemble(in, std::move(r.verdicts), r.cost, DecidedBy{MethodId::enumeration}, kFingerprintMode);
    out.stats["chunks"] = std::to_string(r.chunks);
    return out;
  }
};

}  // namespace

InstanceCheck enumerate_exact(const DecisionInput& in) {
  if (!held_takes(in.s, in.o, Exactness::exact)) {
    flow::DenseResult r = flow::run_dense_exact(in.s, in.claim, in.hook, in.o);
    InstanceCheck out = assemble(in, std::move(r.verdicts), r.cost, DecidedBy{MethodId::enumeration});
    out.stats["chunks"] = std::to_string(r.chunks);
    return out;
  }
  flow::HeldEnumerationResult r = flow::run_held_enumeration(in.s, in.hook, in.o.max_memory);
  if (r.aborted)
    return refused_check(Refusal::Kind::memory_while_running, std::string(kRefusedPrefix) + " while running: " + *r.aborted);
  DecidedBy by{MethodId::enumeration};
  by.text = flow::kHeldEnumerationMethod;
  InstanceCheck out = assemble(in, std::move(r.verdicts), r.cost, std::move(by));
  out.stats["held_cells"] = std::to_string(r.max_cells);
  return out;
}

std::unique_ptr<DecisionMethod> make_enumeration_method() { return std::make_unique<EnumerationMethod>(); }

}  // namespace collcheck
