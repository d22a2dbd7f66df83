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
  if (core.spec.p != inner.p() || core.steps != inner.num_steps()) {
    if (declined) *declined = "fold composition: the masks are not the core's";
    return std::nullopt;
  }
  return run_fold_composition(
      fold, inner,
      [&](const StepHook& core_hook, std::string* why) -> std::optional<FoldCore> {
        auto c = run_group_quotient(core, core_hook, why, max_groups);
        if (!c) return std::nullopt;
        return FoldCore{std::move(c->result), c->max_groups, c->every_copy_superset, "the grouped quotient"};
      },
      hook, declined);
}

std::optional<FoldCompositionResult> run_fold_composition(const Schedule& fold, const Schedule& inner,
                                                          const FoldCoreCheck& core, const StepHook& hook,
                                                          std::string* declined) {
  auto decline = [&](std::string why) -> std::optional<FoldCompositionResult> {
    if (declined) *declined = "fold composition: " + std::move(why);
    return std::nullopt;
  };
  const uint64_t p = fold.p(), pp = inner.p(), extra = p - pp;
  const uint64_t nb = fold.num_blocks();
  const int T = fold.num_steps(), last = T - 1;
  if (fold.spec().kind != Collective::allreduce || inner.spec().kind != Collective::allreduce ||
      inner.num_blocks() != nb || T != inner.num_steps() + 2)
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
  auto c = core(core_hook, &why);
  if (!c) return decline("the core of " + std::to_string(pp) + " ranks: " + why);
  // The glue carries the core's verdicts over only when they hold: a core
  // that violates a property is not composed (the fold is then enumerated
  // or refused, and reports its own counterexample).
  for (int k = 0; k < kSlots; ++k)
    if (c->result.verdicts[static_cast<size_t>(k)].status != Status::holds)
      return decline("the core of " + std::to_string(pp) + " ranks does not satisfy " + slot_property(k, hook));
  if (!c->every_copy_superset)
    return decline("the core of " + std::to_string(pp) + " ranks copies a value over one it does not contain");

  // The wrapper, checked directly at the first and the last core rank of
  // each class (core ranks with q + 1 extra ranks, with q), with their extra
  // ranks; the ranks between follow the same rule of fold.cpp (one
  // expression in i), an obligation of the fold's construction like the
  // idle ranks (fold_composition_test.cpp checks every rank for every fold
  // of the registry to p = 130).
  // With extra = q p' + rem, core ranks i < rem have q + 1 extra ranks and
  // the others q (none: idle at the fold steps, by construction).
  const uint64_t q_all = extra / pp, rem_all = extra % pp;
  std::vector<uint64_t> checked = {0, (q_all ? pp : rem_all) - 1};
  if (q_all && rem_all) {
    checked.push_back(rem_all - 1);  // the last core rank with q + 1 extra ranks
    checked.push_back(rem_all);      // the first with q
  }
  RankStep rs;
  for (int st : {0, last}) {
    const bool in = st == 0;
    const Combine mode = in ? Combine::reduce : Combine::copy;
    for (uint64_t i : checked) {
      // Step 0: each extra rank x of i sends i every block (reduce); the
      // last step: i sends it back (copy). Nothing else happens at either.
      const auto core_rank = static_cast<Rank>(i);
      std::vector<Rank> extras;
      for (uint64_t x = i + pp; x < p; x += pp) extras.push_back(static_cast<Rank>(x));
      fold.rank_step(core_rank, st, rs);
      const auto& mine = in ? rs.recvs : rs.sends;
      const auto& other = in ? rs.sends : rs.recvs;
      bool ok = other.empty() && mine.size() == extras.size();
      for (size_t k = 0; ok && k < extras.size(); ++k) ok = whole(mine[k], extras[k], nb, mode);
      if (!ok)
        return decline("rank " + std::to_string(i) + " at fold step " + std::to_string(st) +
                       " is not one whole-vector transfer with each of its extra ranks");
      for (Rank ex : extras) {
        fold.rank_step(ex, st, rs);
        const auto& emine = in ? rs.sends : rs.recvs;
        const auto& eother = in ? rs.recvs : rs.sends;
        if (emine.size() != 1 || !eother.empty() || !whole(emine[0], core_rank, nb, mode))
          return decline("extra rank " + std::to_string(ex) + " at fold step " + std::to_string(st) +
                         " is not one whole-vector transfer with rank " + std::to_string(i));
      }
    }
  }

  FoldCompositionResult out;
  out.core = c->result;
  out.max_groups = c->max_groups;
  Verdicts& v = out.result.verdicts;
  v = c->result.verdicts;
  const uint64_t fold_volume = extra * nb;  // per fold step, sent (= received)
  v[kPorts].checks = p * static_cast<uint64_t>(T);
  v[kMatching].checks += 2 * 2 * extra;     // one send and one receive per pair, two fold steps
  v[kCausality].checks += 2 * 2 * fold_volume;  // sent blocks held, received blocks written
  // Receive races (causality.cpp): one check per pair of receives of a rank
  // in a step; a core rank with k extra ranks receives k reduces in step 0
  // (reduces only: no race). extra = q p' + rem: rem core ranks have q + 1.
  v[kCausality].checks += rem_all * ((q_all + 1) * q_all / 2) + (pp - rem_all) * (q_all * (q_all - 1) / 2);
  v[kExactlyOnce].checks += fold_volume;     // step 0 reduces
  v[kPostcondition].checks = p * nb;
  const CostMeasurement& cc = c->result.cost;
  out.result.cost.steps = T;
  // Core rank 0 has the most extra ranks, ceil(extra / p'), and copies the
  // result back to each (every core rank's core volume is the same).
  out.result.cost.max_volume = cc.max_volume + (extra + pp - 1) / pp * nb;
  out.result.cost.max_volume_rank = 0;
  out.result.cost.total_volume = cc.total_volume + 2 * fold_volume;
  // Worded without p: reports group instances by their method text.
  out.obligations =
      "core (p' ranks) by " + c->method + ", every copy a superset; wrapper: the first and the last step "
      "(one whole-vector reduce in, one copy out between core rank i and each extra rank x with x mod p' = i) "
      "checked at the first and the last core rank of each class, the ranks between and the idle ranks by the "
      "fold's construction; glue: core rank i starts from {i} and its extra ranks, pairwise disjoint and "
      "nonempty, so the core's verdicts carry over";
  return out;
}

}  // namespace collcheck::flow
