#include "smt/parametric/single_transfer_certificate.hpp"

namespace collcheck::smt::parametric {
namespace {

// q in the cyclic run (start, len) of Z_p, for 0 <= q, start < p.
z3::expr member(const z3::expr& p, const z3::expr& q, const Run& run) {
  return z3::ite(q >= run.first, q - run.first, q - run.first + p) < run.second;
}

z3::expr well_formed(const z3::expr& p, const Run& run) {
  return run.first >= 0 && run.first < p && run.second >= 1 && run.second <= p;
}

}  // namespace

CertificateOutcome prove_single_transfer_allreduce(const SingleTransferAllreduce& rule, uint64_t p_lo, uint64_t p_hi,
                                                   unsigned timeout_ms) {
  CertificateOutcome out;
  out.p_lo = p_lo;
  out.p_hi = p_hi;
  z3::context c;
  Z3Arith a(c);
  const z3::expr p = c.int_const("p"), r = c.int_const("r"), b = c.int_const("b"), s = c.int_const("s"),
                 q = c.int_const("q");
  const z3::expr S = rule.num_steps(a, p), nb = rule.num_blocks(a, p);
  const z3::expr sizes = a.ranges_since(0);  // the step and block counts' own mods
  const z3::expr base = p >= c.int_val(p_lo) && p <= c.int_val(p_hi) && r >= 0 && r < p && q >= 0 && q < p && nb >= 1;
  const z3::expr in_step = s >= 0 && s < S, through = s >= 0 && s <= S, blk = b >= 0 && b < nb;
  // Rank r's transfers at step s, and the ranges their mods need (they hold
  // where s is a step: every obligation that reads them has s < S).
  size_t mark = a.ranges.size();
  const SymbolicStep st = rule.step(a, p, r, s);
  const z3::expr st_ranges = a.ranges_since(mark);

  // Proves hypotheses -> claim, with the counts' mods and every mod
  // recorded since `mark` conjoined to the claim. false (and out.failed)
  // if not proved.
  auto prove = [&](const std::string& name, const z3::expr& hypotheses, const z3::expr& claim) {
    if (!out.failed.empty()) return false;
    z3::solver solver(c);
    z3::params prm(c);
    prm.set("timeout", timeout_ms);
    solver.set(prm);
    solver.add(base && hypotheses && !(claim && sizes && a.ranges_since(mark)));
    const z3::check_result res = solver.check();
    if (res == z3::unsat) {
      out.obligations.push_back(name);
      return true;
    }
    if (res == z3::sat) {
      const z3::model m = solver.get_model();
      std::string at;
      for (const char* v : {"p", "r", "b", "s", "q"}) {
        const z3::expr val = m.eval(c.int_const(v), true);
        at += std::string(at.empty() ? "" : ", ") + v + " = " + val.to_string();
      }
      out.failed = name + " fails at " + at;
    } else {
      out.failed = name + " not proved (" + solver.reason_unknown() + ")";
    }
    return false;
  };

  mark = a.ranges.size();
  {
    const SymbolicStep at_right = rule.step(a, p, st.right, s);
    prove("matching-send", in_step,
          st_ranges && st.right >= 0 && st.right < p && st.right != r && st.give >= 0 && st.give < nb &&
              at_right.left == r && at_right.take == st.give && at_right.reduce == st.reduce);
  }
  mark = a.ranges.size();
  {
    const SymbolicStep at_left = rule.step(a, p, st.left, s);
    prove("matching-recv", in_step,
          st_ranges && st.left >= 0 && st.left < p && st.left != r && st.take >= 0 && st.take < nb &&
              at_left.right == r && at_left.give == st.take && at_left.reduce == st.reduce);
  }
  mark = a.ranges.size();
  {
    // Rank r's transfers are rank 0's translated by r, blocks shifted by
    // block_shift * r: the translation certificate the quotient relies on,
    // here for every p of the interval.
    const SymbolicStep zero = rule.step(a, p, c.int_val(0), s);
    const z3::expr h = c.int_val(static_cast<int64_t>(rule.block_shift)) * r;
    prove("translation", in_step,
          st_ranges && st.right == a.mod(zero.right + r, p) && st.left == a.mod(zero.left + r, p) &&
              st.give == a.mod(zero.give + h, nb) && st.take == a.mod(zero.take + h, nb) && st.reduce == zero.reduce);
  }
  mark = a.ranges.size();
  {
    const z3::expr R = rule.reduce_steps(a, p);
    prove("reduce-phase", in_step, st_ranges && st.reduce == (s < R) && R >= 0 && R <= S);
  }
  mark = a.ranges.size();
  prove("run-well-formed", through && blk, well_formed(p, rule.invariant(a, p, r, b, s)));
  mark = a.ranges.size();
  prove("initial", blk, member(p, q, rule.invariant(a, p, r, b, c.int_val(0))) == (q == r));
  {
    // The runs an exchange reads and writes. Each is well formed (the lemma
    // above, at these ranks, blocks and steps), and the sender and block are
    // in range (matching-recv).
    mark = a.ranges.size();
    const Run sender = rule.invariant(a, p, st.left, st.take, s);
    const Run before = rule.invariant(a, p, r, st.take, s);
    const Run after = rule.invariant(a, p, r, st.take, s + 1);
    const z3::expr lemmas = well_formed(p, sender) && well_formed(p, before) && well_formed(p, after) &&
                            st.left >= 0 && st.left < p && st.take >= 0 && st.take < nb;
    const z3::expr js = member(p, q, sender), ks = member(p, q, before), ns = member(p, q, after);
    prove("reduce-step", in_step && st.reduce && lemmas, st_ranges && !(js && ks) && (ns == (js || ks)));
    prove("copy-step", in_step && !st.reduce && lemmas, st_ranges && sender.second >= before.second && (ns == js));
    mark = a.ranges.size();
    const Run keep = rule.invariant(a, p, r, b, s), next = rule.invariant(a, p, r, b, s + 1);
    prove("frame", in_step && blk && b != st.take && well_formed(p, keep) && well_formed(p, next),
          st_ranges && member(p, q, next) == member(p, q, keep));
  }
  mark = a.ranges.size();
  {
    const Run last = rule.invariant(a, p, r, b, S);
    prove("final", blk && well_formed(p, last), member(p, q, last));
  }
  out.proved = out.failed.empty();
  return out;
}

ParametricDecision single_transfer_decision(const SingleTransferAllreduce& rule, uint64_t p) {
  const uint64_t S = static_cast<uint64_t>(rule.num_steps_at(static_cast<int64_t>(p)));
  const uint64_t R = static_cast<uint64_t>(rule.reduce_steps_at(static_cast<int64_t>(p)));
  const uint64_t nb = static_cast<uint64_t>(rule.num_blocks_at(static_cast<int64_t>(p)));
  ParametricDecision d;
  d.verdicts[flow::kMatching].checks = p * 2 * S;
  d.verdicts[flow::kPorts].checks = p * S;
  d.verdicts[flow::kCausality].checks = p * 2 * S;
  d.verdicts[flow::kExactlyOnce].checks = p * R;
  d.verdicts[flow::kPostcondition].checks = p * nb;
  d.cost.steps = static_cast<int>(S);
  d.cost.max_volume = S;
  d.cost.max_volume_rank = 0;
  d.cost.total_volume = S * p;
  return d;
}

}  // namespace collcheck::smt::parametric
