#include "properties/flow/extra_node_composition.hpp"

#include <algorithm>
#include <vector>

#include "properties/flow/flow_common.hpp"
#include "properties/ports.hpp"
#include "properties/step_view.hpp"

namespace collcheck::flow {

namespace {

bool single(const Transfer& t, Rank peer, Block b, Combine c) {
  const auto& r = t.blocks.ranges();
  return t.peer == peer && t.combine == c && r.size() == 1 && r[0].lo == b && r[0].hi == b + 1;
}

}  // namespace

std::optional<ExtraNodeCompositionResult> run_extra_node_composition(const Schedule& whole,
                                                                     const EquivariantSchedule& core,
                                                                     const MaskSchedule& masks, const StepHook& hook,
                                                                     std::string* declined, uint64_t max_groups) {
  auto decline = [&](std::string why) -> std::optional<ExtraNodeCompositionResult> {
    if (declined) *declined = "extra-node composition: " + std::move(why);
    return std::nullopt;
  };
  const uint64_t p = whole.p(), m = core.p();
  const int T = whole.num_steps(), L = T / 2;
  if (p != m + 1 || m < 2) return decline("the core is not the ring of p - 1 ranks");
  if (whole.spec().kind != Collective::allreduce || core.spec().kind != Collective::allreduce ||
      whole.num_blocks() != p || core.num_blocks() != m)
    return decline("the schedule and its core are not allreduces of one block per rank");
  if (core.num_steps() != T || T % 2 != 0 || masks.spec.p != m || masks.steps != T)
    return decline("the core's steps are not the schedule's");
  const int ports = whole.ports();
  // The core's ports verdict holds for its own k' <= k ports, hence for k.
  if (ports < 2 || core.ports() > ports) return decline("a served ring rank needs two ports");
  const auto x = static_cast<Rank>(m);  // the extra rank

  // Rank 0's steps of the core: reduces before L, copies from L on; block 0
  // never sent in the reduce-scatter, never received in the allgather (glue
  // a); at most ports - 1 transfers each way (glue d).
  std::vector<RankStep> rep(static_cast<size_t>(T));
  for (int s = 0; s < T; ++s) {
    RankStep& r0 = rep[static_cast<size_t>(s)];
    core.representative_step(s, r0);
    const bool rs = s < L;
    const Combine mode = rs ? Combine::reduce : Combine::copy;
    if (r0.sends.size() + 1 > static_cast<size_t>(ports) || r0.recvs.size() + 1 > static_cast<size_t>(ports))
      return decline("rank 0 of the core lists " + std::to_string(ports) + " transfers one way at step " +
                     std::to_string(s) + ": a served rank would exceed its ports");
    for (const auto* list : {&r0.sends, &r0.recvs})
      for (const Transfer& t : *list)
        if (t.combine != mode)
          return decline(std::string("the core ") + (rs ? "copies" : "reduces") + " at step " + std::to_string(s));
    for (const Transfer& t : rs ? r0.sends : r0.recvs)
      if (t.blocks.contains(0))
        return decline(std::string("rank 0 of the core ") + (rs ? "sends" : "receives") + " its own block 0 at step " +
                       std::to_string(s));
  }

  // The wrapper: the extra rank's steps, every one.
  std::vector<int> rs_step(m, -1), ag_step(m, -1);
  Verdict extra_ports;
  extra_ports.property = "ports";
  uint64_t extra_volume = 0, extra_races = 0;
  int last_active = -1;
  {
    std::vector<RankStep> es(1);
    const std::vector<Rank> only = {x};
    for (int s = 0; s < T; ++s) {
      whole.rank_step(x, s, es[0]);
      const RankStep& e = es[0];
      const bool rs = s < L;
      const Combine mode = rs ? Combine::reduce : Combine::copy;
      if (e.sends.size() != e.recvs.size())
        return decline("the extra rank's sends and receives differ at step " + std::to_string(s));
      for (size_t k = 0; k < e.sends.size(); ++k) {
        const Rank j = e.sends[k].peer;
        if (j >= m) return decline("the extra rank sends to rank " + std::to_string(j) + " at step " + std::to_string(s));
        const bool ok = rs ? single(e.sends[k], j, j, mode) && single(e.recvs[k], j, x, mode)
                           : single(e.sends[k], j, x, mode) && single(e.recvs[k], j, j, mode);
        if (!ok)
          return decline("the extra rank's exchange with rank " + std::to_string(j) + " at step " + std::to_string(s) +
                         " is not one block each way (" + (rs ? "its contribution to block j for j's to block m, "
                                                               "reduce" : "block m for block j, copy") + ")");
        int& at = (rs ? rs_step : ag_step)[j];
        if (at >= 0)
          return decline("the extra rank exchanges with rank " + std::to_string(j) + " at steps " + std::to_string(at) +
                         " and " + std::to_string(s) + (rs ? " (reduce-scatter)" : " (allgather)"));
        at = s;
      }
      if (!e.sends.empty()) last_active = s;
      extra_volume += e.sends.size();
      extra_races += e.recvs.size() * (e.recvs.size() - 1) / 2;
      StepView sv;
      sv.step = s;
      sv.p = p;
      sv.ports = ports;
      sv.nblocks = p;
      sv.ops = &es;
      sv.ranks = &only;
      check_ports(sv, x, extra_ports);
    }
  }
  for (Rank j = 0; j < m; ++j)
    if (rs_step[j] < 0 || ag_step[j] < 0)
      return decline("ring rank " + std::to_string(j) + " never exchanges with the extra rank in the " +
                     (rs_step[j] < 0 ? "reduce-scatter" : "allgather"));

  // Ring ranks 0 and m - 1 at every step: the core's transfers, then exactly
  // the extra rank's exchange with them (the ranks between by construction).
  {
    RankStep w, c;
    for (Rank j : {Rank{0}, static_cast<Rank>(m - 1)})
      for (int s = 0; s < T; ++s) {
        whole.rank_step(j, s, w);
        core.rank_step(j, s, c);
        if (s == rs_step[j]) {
          c.sends.push_back({x, BlockSet::single(x), Combine::reduce});
          c.recvs.push_back({x, BlockSet::single(j), Combine::reduce});
        }
        if (s == ag_step[j]) {
          c.sends.push_back({x, BlockSet::single(j), Combine::copy});
          c.recvs.push_back({x, BlockSet::single(x), Combine::copy});
        }
        if (w.sends != c.sends || w.recvs != c.recvs)
          return decline("ring rank " + std::to_string(j) + "'s step " + std::to_string(s) +
                         " is not the core's plus its exchange with the extra rank");
      }
  }

  // The core, by the grouped quotient on Z_m.
  StepHook core_hook;
  if (hook) {
    if (hook.isometry_ring != m)
      return decline("the step hook " + hook.property + " does not judge the ring by distances on its own ring");
    core_hook = hook;
    core_hook.invariant_under_ring_isometries = true;  // on the core, Z_m is its own ring (isometry_ring == m)
  }
  std::string why;
  auto c = run_group_quotient(masks, core_hook, &why, max_groups);
  if (!c) return decline("the core of " + std::to_string(m) + " ranks: " + why);
  for (int k = 0; k < kSlots; ++k)
    if (c->result.verdicts[static_cast<size_t>(k)].status != Status::holds)
      return decline("the core of " + std::to_string(m) + " ranks does not satisfy " + slot_property(k, hook));
  if (!c->every_copy_superset)
    return decline("the core of " + std::to_string(m) + " ranks copies a value over one it does not contain");

  // Glue (b) follows from what is checked: rank 0 never sends block 0 in
  // the reduce-scatter, so after it only rank 0's cell of block 0 holds
  // rank 0's contribution, together with the extra rank's (its reduce in
  // step rs_step[0] < L, the only transfer of the extra rank's contribution
  // to block 0). The allgather only copies, and rank 0's cell of block 0 is
  // never written in it; every final cell of block 0 holds rank 0's
  // contribution (the core's postcondition), so each is a copy of rank 0's
  // cell: the extra rank's contribution once. Block j by g_j.

  // The composed verdicts: the core's plus the wrapper's.
  ExtraNodeCompositionResult out;
  out.max_groups = c->max_groups;
  Verdicts& v = out.result.verdicts;
  v = c->result.verdicts;
  const uint64_t exchanges = 2 * m;  // one per ring rank and phase
  uint64_t ring_races = 0;           // a served ring rank's receive from the extra rank pairs with its ring receives
  for (Rank j = 0; j < m; ++j)
    ring_races += rep[static_cast<size_t>(rs_step[j])].recvs.size() + rep[static_cast<size_t>(ag_step[j])].recvs.size();
  v[kPorts].merge(extra_ports);  // the ring ranks' p - 1 checks per step are the core's, all hold (glue d)
  v[kMatching].checks += 4 * exchanges;
  v[kCausality].checks += 4 * exchanges + extra_races + ring_races;
  v[kExactlyOnce].checks += 2 * m;  // the reduce-scatter's two reduces per ring rank
  v[kPostcondition].checks = p * p;
  const CostMeasurement& cc = c->result.cost;
  out.result.cost.steps = std::max(cc.steps, last_active + 1);
  const uint64_t ring_volume = cc.max_volume + 2;  // block m in the reduce-scatter, block j in the allgather
  out.result.cost.max_volume = std::max(ring_volume, extra_volume);
  out.result.cost.max_volume_rank = ring_volume >= extra_volume ? 0 : x;
  out.result.cost.total_volume = cc.total_volume + 2 * m + extra_volume;
  out.obligations =
      "core (the ring of p-1 ranks) by the grouped quotient, every copy a superset; wrapper: the extra rank's "
      "steps read in full (one block each way with each ring rank, once in the reduce-scatter, once in the "
      "allgather), ring ranks 0 and p-2 read at every step, the ranks between by the schedule's construction; glue: "
      "rank 0 keeps its own block in the reduce-scatter and receives none of it in the allgather, which only "
      "copies, so every final cell of block 0 is a copy of rank 0's; block p-1 is not the ring's; a served ring "
      "rank stays within its ports";
  return out;
}

}  // namespace collcheck::flow
