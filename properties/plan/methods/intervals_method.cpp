// Fingerprint mode with interval bookkeeping (flow/flow_interval.hpp) where
// it predicts less work than dense cells or is asked for (--state
// intervals). Over the dense limit with scattered transfers no method
// decides the instance: not decided (exit 3), saying why each method before
// declined; never bad input.
#include "properties/flow/flow_interval.hpp"
#include "properties/plan/decision_method.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck {
namespace {

// Why nothing decides the instance: the interval plan's reason, then each
// earlier decline.
std::string undecided(const DecisionInput& in, const std::string& what) {
  std::string why = std::string(kUndecidedPrefix) + ": " + what;
  std::string grouped, quotient;
  for (const Declined& d : in.declined) {
    const std::string key = decline_stat(d.method);
    if (key == "grouped_declined") grouped = d.reason;
    if (key == "quotient_declined") quotient = d.reason;
  }
  if (!grouped.empty()) why += "; the grouped quotient or fold composition declined: " + grouped;
  if (!quotient.empty()) {
    const bool budget = quotient.find("memory budget") != std::string::npos;
    why += "; the certified quotient declined: " + quotient + (budget ? " (raise --memory-gib)" : "");
  }
  return why;
}

class IntervalsMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::intervals; }
  bool applies(const DecisionInput& in) const override {
    return in.exactness == Exactness::fingerprint && in.o.bookkeeping != Bookkeeping::dense;
  }
  bool expects(const DecisionInput& in) const override {
    try {
      return applies(in) && interval_plan(in.s, in.o, in.exactness).has_value();
    } catch (const InputError&) {
      return false;
    }
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string*) const override {
    std::optional<flow::IntervalPlan> plan;
    try {
      plan = interval_plan(in.s, in.o, in.exactness);
    } catch (const InputError& no_method) {
      return refused_check(Refusal::Kind::undecided, undecided(in, no_method.what()));
    }
    if (!plan) return std::nullopt;  // dense cells predicted cheaper
    if (in.o.max_memory && plan->memory_bytes > in.o.max_memory) {
      InstanceCheck out = refused_check(Refusal::Kind::memory_before,
                                        refusal({plan->memory_bytes, plan->how}, in.o.max_memory));
      out.stats["memory_estimate_bytes"] = std::to_string(plan->memory_bytes);
      return out;
    }
    // The plan is an estimate from rank 0; the run itself stops (refused,
    // nothing judged) if the pieces outgrow --max-memory.
    flow::IntervalResult r = flow::run_intervals(in.s, flow::fingerprint_weights(in.o.seed, in.s.p()), in.hook, in.o.max_memory);
    if (r.aborted)
      return refused_check(Refusal::Kind::memory_while_running, std::string(kRefusedPrefix) + " while running: " + *r.aborted);
    DecidedBy by{MethodId::intervals};
    by.text = flow::kIntervalMethod;
    InstanceCheck out = assemble(in, std::move(r.verdicts), r.cost, std::move(by), kFingerprintMode);
    out.stats["max_pieces_per_rank"] = std::to_string(r.max_pieces);
    return out;
  }
};

}  // namespace

std::unique_ptr<DecisionMethod> make_intervals_method() { return std::make_unique<IntervalsMethod>(); }

}  // namespace collcheck
