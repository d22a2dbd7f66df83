#include "properties/flow/fold_composition.hpp"

#include "properties/flow/flow_common.hpp"

namespace collcheck::flow {

namespace {

// Whether `t` is `peer`, every block, `c`.
bool whole(const Transfer& t, Rank peer, uint64_t nb, Combine c) {
  const auto& r = t.blocks.ranges();
  return t.peer == peer && t.combine == c && r.size() == 1 && r[0].lo == 0 && r[0].hi == nb;
}

}  // namespace

std::optional<FoldCompositionResult> run_fold_composition(const Schedule& fold, const Schedule& inner,
                                                          const MaskSchedule& core, const StepHook& hook,
                                                          std::string* declined, uint64_t max_groups) {
  auto decline = [&](std::string why) -> std::optional<FoldCompositionResult> {
    if (declined) *declined = "fold composition: " + std::move(why);
    return std::nullopt;
  };
  const uint64_t p = fold.p(), pp = inner.p(), extra = p - pp;
  const uint64_t nb = fold.num_blocks();
  const int T = fold.num_steps(), last = T - 1;
  if (fold.spec().kind != Collective::allreduce || inner.spec().kind != Collective::allreduce ||
      inner.num_blocks() != nb || core.spec.p != pp || core.steps != inner.num_steps() || T != core.steps + 2)
    return decline("the fold and its core are not one allreduce");
  if (extra < 1) return decline("no extra rank");
  // The core's hook: the instance's at step st + 1, judged on Z_p'.
  StepHook core_hook;
  if (hook) {
    if (hook.isometry_ring != pp)
      return decline("the step hook " + hook.property + " does not judge the core by distances on its own ring");
    for (int st : {0, last})
      if (hook.at_step(st)) return decline("the step hook " + hook.property + " judges a fold step");
    core_hook.property = hook.property;
    core_hook.at_step = [&hook](int st) { return hook.at_step(st + 1); };
    core_hook.invariant_under_ring_isometries = true;
    core_hook.isometry_ring = pp;
  }
  std::string why;
  auto c = run_group_quotient(core, core_hook, &why, max_groups);
  if (!c) return decline("the core of " + std::to_string(pp) + " ranks: " + why);
  // The glue carries the core's verdicts over only when they hold: a core
  // that violates a property is not composed (the fold is then enumerated
  // or refused, and reports its own counterexample).
  for (const Verdict& v : c->result.verdicts)
    if (v.status != Status::holds)
      return decline("the core of " + std::to_string(pp) + " ranks does not satisfy " + v.property);
  if (!c->every_copy_superset)
    return decline("the core of " + std::to_string(pp) + " ranks copies a value over one it does not contain");

  // The wrapper, checked directly at its first and last pair (i = 0 and
  // i = p - p' - 1); the pairs between follow the same rule of fold.cpp
  // (one expression in i), an obligation of the fold's construction like
  // the idle ranks (fold_composition_test.cpp checks every rank for every
  // fold of the registry to p = 130).
  RankStep rs;
  for (int st : {0, last}) {
    const bool in = st == 0;
    const Combine mode = in ? Combine::reduce : Combine::copy;
    for (uint64_t i : {uint64_t{0}, extra - 1}) {
      // Step 0: p'+i sends every block to i (reduce); the last step: i sends
      // it back (copy). Nothing else happens at either rank.
      const auto core_rank = static_cast<Rank>(i), ex = static_cast<Rank>(pp + i);
      const Rank from = in ? ex : core_rank, to = in ? core_rank : ex;
      for (Rank r : {core_rank, ex}) {
        fold.rank_step(r, st, rs);
        const bool sends = r == from;
        const auto& mine = sends ? rs.sends : rs.recvs;
        const auto& other = sends ? rs.recvs : rs.sends;
        const Rank partner = sends ? to : from;
        if (mine.size() != 1 || !other.empty() || !whole(mine[0], partner, nb, mode))
          return decline(std::string(r >= pp ? "extra rank " : "rank ") + std::to_string(r) + " at fold step " +
                         std::to_string(st) + " is not one whole-vector transfer with rank " + std::to_string(partner));
      }
    }
  }

  FoldCompositionResult out;
  out.core = *c;
  Verdicts& v = out.result.verdicts;
  v = c->result.verdicts;
  const uint64_t fold_volume = extra * nb;  // per fold step, sent (= received)
  v[kPorts].checks = p * static_cast<uint64_t>(T);
  v[kMatching].checks += 2 * 2 * extra;     // one send and one receive per pair, two fold steps
  v[kCausality].checks += 2 * 2 * fold_volume;  // sent blocks held, received blocks written
  v[kExactlyOnce].checks += fold_volume;     // step 0 reduces
  v[kPostcondition].checks = p * nb;
  const CostMeasurement& cc = c->result.cost;
  out.result.cost.steps = T;
  out.result.cost.max_volume = cc.max_volume + nb;  // core ranks 0..extra-1 also copy the result back
  out.result.cost.max_volume_rank = 0;
  out.result.cost.total_volume = cc.total_volume + 2 * fold_volume;
  // Worded without p: reports group instances by their method text.
  out.obligations =
      "core (p' ranks) by the grouped quotient, every copy a superset; wrapper: the first and the last step "
      "(one whole-vector reduce in, one copy out between ranks i and p'+i) checked at the first and the last "
      "pair, the pairs between and the idle ranks by the fold's construction; glue: core rank i starts from "
      "{i, p'+i} or {i}, pairwise disjoint and nonempty, so the core's verdicts carry over";
  return out;
}

}  // namespace collcheck::flow
