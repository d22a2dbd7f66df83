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

namespace detail {

// The extra rank's contribution to block j enters ring rank j's cell of
// block j in reduce-scatter step rs_step[j] and then moves as the core
// moves block j. By the core's group, block j's cells are g_j of block 0's
// (g_j(0) = j), so in block 0's cells, in rank 0's coordinates, it enters
// rank 0's cell in step rs_step[j]; one bit per step s stands for every
// block served in s. Every cell that holds it also holds the owner's own
// contribution (rank 0's, in these coordinates: it is in rank 0's cell from
// the start, the reduce-scatter only reduces, and every later transfer
// moves both together), so a reduce that would count it twice counts the
// owner's twice too, a double the core reports at the same block: the
// composition's exactly-once reports and its "counted twice" flags are the
// core's. What is left is checked here: every copy keeps it (or the
// count rule could judge a copy differently), every final ring cell holds
// it (then a ring cell is right exactly where the core's is), and the
// extra rank's copy of block j in allgather step ag_step[j] is rank j's
// cell then: g_j of rank 0's block 0 before that step (the core's
// snapshots) with the contribution if its bit arrived by then.
std::optional<OwnBlockFlow> follow_extra_contribution(const EquivariantSchedule& core, const std::vector<RankStep>& rep,
                                                      const std::vector<int>& rs_step, const std::vector<int>& ag_step,
                                                      int L, const GroupQuotientResult& q, std::string* declined) {
  auto decline = [&](std::string why) -> std::optional<OwnBlockFlow> {
    if (declined) *declined = "extra-node composition: " + std::move(why);
    return std::nullopt;
  };
  const uint64_t m = core.p(), p = m + 1;
  const int T = static_cast<int>(rep.size());
  const GroupAction& g = core.action();
  if (g.block_action() != BlockAction::as_ranks) return decline("the core's blocks do not move as its ranks");
  if (q.block0.size() != static_cast<size_t>(T) + 1) return decline("the core's quotient kept no snapshots of block 0");
  if (L <= 0 || L >= 64) return decline("the reduce-scatter's steps do not fit one word of bits");
  uint64_t served = 0;
  for (Rank j = 0; j < m; ++j) served |= uint64_t{1} << rs_step[j];
  // One receive per block and step at each rank (rank 0's, hence every
  // rank's): the order of a step's receives never matters below.
  for (int t = 0; t < T; ++t) {
    const auto& rv = rep[static_cast<size_t>(t)].recvs;
    for (size_t i = 0; i < rv.size(); ++i)
      for (size_t k = i + 1; k < rv.size(); ++k)
        if (rv[i].blocks.intersects(rv[k].blocks))
          return decline("rank 0 of the core receives one block twice at step " + std::to_string(t));
  }
  const size_t Wm = (m + 63) / 64;
  std::vector<Block> source(m);  // rank r's block 0 is rank 0's block source[r], moved by g_r
  for (Rank r = 0; r < m; ++r) source[r] = g.inverse_block(r, 0);
  std::vector<uint64_t> bits(m, 0), next(m), before0(static_cast<size_t>(T) + 1), mask(Wm);
  for (int t = 0; t < T; ++t) {
    before0[static_cast<size_t>(t)] = bits[0];
    next = bits;
    for (const Transfer& tr : rep[static_cast<size_t>(t)].recvs) {
      std::fill(mask.begin(), mask.end(), 0);
      for (const auto& rg : tr.blocks.ranges())
        for (uint64_t b = rg.lo; b < std::min<uint64_t>(rg.hi, m); ++b) mask[b / 64] |= uint64_t{1} << (b % 64);
      for (Rank r = 0; r < m; ++r) {
        const Block b = source[r];
        if (b >= m || !((mask[b / 64] >> (b % 64)) & 1)) continue;
        const Rank u = g.rank(r, tr.peer);  // the sender, as rank 0's peer moved by g_r
        if (u >= m) return decline("a ring rank receives block 0 from outside the ring at step " + std::to_string(t));
        if (tr.combine == Combine::reduce) {
          next[r] |= bits[u];
        } else {
          if (bits[r] & ~bits[u])
            return decline("a copy at step " + std::to_string(t) +
                           " drops the extra rank's contribution from a ring cell (the count rule could judge it "
                           "otherwise than the core's copy)");
          next[r] = bits[u];
        }
      }
    }
    if (t < L && ((served >> t) & 1)) next[0] |= uint64_t{1} << t;  // the extra rank's reduce
    bits.swap(next);
  }
  before0[static_cast<size_t>(T)] = bits[0];
  for (Rank r = 0; r < m; ++r)
    if ((bits[r] & served) != served)
      return decline("the extra rank's contribution is missing from a final ring cell of some block");

  OwnBlockFlow out;
  const size_t Wp = (p + 63) / 64;
  for (Rank j = 0; j < m; ++j) {
    const int a = ag_step[j];
    const bool arrived = (before0[static_cast<size_t>(a)] >> rs_step[j]) & 1;
    const std::vector<uint64_t>& c = q.block0[static_cast<size_t>(a)];  // Wm words, then the flag
    bool full = c[Wm] == 0;
    for (size_t w = 0; w < Wm && full; ++w)
      full = c[w] == (w + 1 < Wm || m % 64 == 0 ? ~uint64_t{0} : (uint64_t{1} << (m % 64)) - 1);
    if (full && arrived) continue;
    if (out.extra_wrong++ == 0) {
      out.first_wrong = j;
      out.first_value.assign(Wp + 1, 0);
      for (Rank y = 0; y < m; ++y)
        if ((c[y / 64] >> (y % 64)) & 1) {
          const Rank z = g.rank(j, y);  // g_j of rank 0's cell: rank j's
          out.first_value[z / 64] |= uint64_t{1} << (z % 64);
        }
      if (arrived) out.first_value[m / 64] |= uint64_t{1} << (m % 64);
      out.first_value[Wp] = c[Wm];
    }
  }
  return out;
}

}  // namespace detail

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

  // Rank 0's steps of the core: reduces before L, copies from L on; at most
  // ports - 1 transfers each way (glue d). Block 0 never sent in the
  // reduce-scatter and never received in the allgather is glue (a);
  // otherwise (`own_block`: a ring rank lists its own block, as
  // paper-later's rule does for 2^k < m < 4/3 2^k) the composition follows
  // the extra rank's contribution through the core's flow (below).
  std::vector<RankStep> rep(static_cast<size_t>(T));
  bool own_block = false;
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
      if (t.blocks.contains(0)) own_block = true;
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
  MaskSchedule core_masks = masks;
  core_masks.snapshots = own_block;
  auto c = run_group_quotient(core_masks, core_hook, &why, max_groups);
  if (!c) return decline("the core of " + std::to_string(m) + " ranks: " + why);
  for (int k = 0; k < kSlots; ++k) {
    // With its own block listed the core may count contributions twice
    // (exactly-once, postcondition); what that does to the extra rank's
    // contribution is followed below.
    if (own_block && (k == kExactlyOnce || k == kPostcondition)) continue;
    if (c->result.verdicts[static_cast<size_t>(k)].status != Status::holds)
      return decline("the core of " + std::to_string(m) + " ranks does not satisfy " + slot_property(k, hook));
  }
  if (!c->every_copy_superset)
    return decline("the core of " + std::to_string(m) + " ranks copies a value over one it does not contain");
  std::optional<detail::OwnBlockFlow> flow_x;
  if (own_block) {
    flow_x = detail::follow_extra_contribution(core, rep, rs_step, ag_step, L, *c, declined);
    if (!flow_x) return std::nullopt;
  }

  // Glue (b), where the core keeps its own block (else flow_x), follows
  // from what is checked: rank 0 never sends block 0 in
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
  const std::string common =
      "wrapper: the extra rank's "
      "steps read in full (one block each way with each ring rank, once in the reduce-scatter, once in the "
      "allgather), ring ranks 0 and p-2 read at every step, the ranks between by the schedule's construction; ";
  if (!flow_x) {
    out.obligations =
        "core (the ring of p-1 ranks) by the grouped quotient, every copy a superset; " + common +
        "glue: rank 0 keeps its own block in the reduce-scatter and receives none of it in the allgather, which only "
        "copies, so every final cell of block 0 is a copy of rank 0's; block p-1 is not the ring's; a served ring "
        "rank stays within its ports";
    return out;
  }
  // The core lists its own block: its exactly-once reports are the
  // composition's (follow_extra_contribution), its counterexample at p; the
  // ring ranks' cells of the ring's blocks are wrong exactly where the
  // core's are (each holds the extra contribution once more), the cells of
  // block p-1 are right (each ring rank served once), and the extra rank's
  // cells of the ring's blocks as followed.
  if (v[kExactlyOnce].counterexample) v[kExactlyOnce].counterexample->p = p;
  const int last = T - 1;
  const ExactCells cells(p);
  std::vector<uint64_t> full(cells.bits, ~uint64_t{0});
  if (p % 64) full.back() = (uint64_t{1} << (p % 64)) - 1;
  Verdict& post = v[kPostcondition];
  Verdict composed;
  composed.checks = p * p;
  Verdict one;
  if (post.counterexample && post.counterexample->block) {
    if (c->first_wrong.size() != (m + 63) / 64 + 1) return decline("the core's quotient kept no wrong block");
    std::vector<uint64_t> value(cells.words, 0);
    std::copy(c->first_wrong.begin(), c->first_wrong.end() - 1, value.begin());
    value[m / 64] |= uint64_t{1} << (m % 64);  // every final ring cell holds the extra rank's contribution
    value[cells.bits] = c->first_wrong.back();
    judge_exact_cell(one, whole.spec(), p, 0, last, *post.counterexample->block, value.data(), cells.bits, full);
  } else if (flow_x->extra_wrong) {
    judge_exact_cell(one, whole.spec(), p, x, last, flow_x->first_wrong, flow_x->first_value.data(), cells.bits, full);
  }
  const uint64_t wrong = post.violations + flow_x->extra_wrong;
  if (wrong) {
    if (!one.counterexample) return decline("no counterexample for a wrong cell (a defect of collcheck)");
    composed.fail(std::move(*one.counterexample));
    composed.violations = wrong;
  }
  post = std::move(composed);
  out.obligations =
      "core (the ring of p-1 ranks) by the grouped quotient, every copy a superset, its own block listed; " + common +
      "glue: the extra rank's contribution to block j followed through the core's moves of block 0 from rank 0's "
      "steps (g_j), every copy keeps it, every final ring cell holds it, and every cell holding it holds the owner's "
      "own contribution, so the core's double counts are the only ones; the extra rank's copy of block j is g_j of "
      "rank 0's block 0 before that step; block p-1 is not the ring's; a served ring rank stays within its ports";
  return out;
}

}  // namespace collcheck::flow
