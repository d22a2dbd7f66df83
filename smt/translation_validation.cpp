// Translation validation (see translation_validation.hpp) and its registry
// query "smt-translation-validation": every registered algorithm and variant,
// materialized at small p, proven correct for all inputs or refuted with a
// witness that the threaded executor replays.
#include "smt/translation_validation.hpp"

#include <z3++.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "runtime/inputs.hpp"
#include "smt/proof_support.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt {
namespace {

constexpr const char* kName = "smt-translation-validation";

std::string cell_name(const char* kind, Rank r, Block b) {
  return std::string(kind) + "_" + std::to_string(r) + "_" + std::to_string(b);
}

// Peers and blocks in range, and the transfers of every (step, src, dst)
// matched as multisets of (blocks, combine) at both ends (two ports may send
// two messages to one peer, e.g. r+1 = r-1 at p = 2). Every problem is
// recorded in v (which keeps the first in time, the smallest (step, rank),
// as verify does).
void structure_problems(const MaterializedSchedule& m, Verdict& v) {
  const uint64_t p = m.spec.p;
  const uint64_t nb = m.spec.nblocks;
  for (int s = 0; s < m.num_steps(); ++s) {
    const auto& ranks = m.steps[static_cast<size_t>(s)];
    if (ranks.size() != p) {
      Counterexample cx = Counterexample::at(p, std::nullopt, s);
      cx.expected = std::to_string(p) + " rank programs";
      cx.actual = std::to_string(ranks.size());
      cx.message = "step " + std::to_string(s) + " does not list every rank";
      v.fail(std::move(cx));
      continue;
    }
    for (Rank r = 0; r < p; ++r) {
      for (bool send : {true, false}) {
        const auto& list = send ? ranks[r].sends : ranks[r].recvs;
        for (const Transfer& t : list) {
          auto bad = [&](const std::string& what) -> bool {
            Counterexample cx = Counterexample::at(p, r, s, std::nullopt, t.peer);
            cx.expected = "a well-formed, matched transfer";
            cx.actual = what;
            cx.message = "rank " + std::to_string(r) + (send ? " sends to " : " receives from ") +
                         std::to_string(t.peer) + " at step " + std::to_string(s) + ": " + what;
            v.fail(std::move(cx));
            return true;
          };
          if (t.peer >= p && bad("peer out of range")) continue;
          if (!t.blocks.empty() && t.blocks.ranges().back().hi > nb && bad("block out of range")) continue;
          const auto& other = send ? ranks[t.peer].recvs : ranks[t.peer].sends;
          auto mine = std::count_if(list.begin(), list.end(), [&](const Transfer& x) {
            return x.peer == t.peer && x.blocks == t.blocks && x.combine == t.combine;
          });
          auto theirs = std::count_if(other.begin(), other.end(), [&](const Transfer& x) {
            return x.peer == r && x.blocks == t.blocks && x.combine == t.combine;
          });
          if (mine != theirs)
            bad(std::string("no matching ") + (send ? "receive" : "send") + " of " + t.blocks.to_string() + " (" + to_string(t.combine) + ") at the other end");
        }
      }
    }
  }
}

uint64_t p_cells(const Schedule& s) { return s.p() * uint64_t{s.num_blocks()}; }

std::string form(const z3::expr& e) {
  z3::params som(e.ctx());
  som.set("som", true);
  std::string s = e.simplify(som).to_string();
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

TvResult validate_translation(const MaterializedSchedule& m, unsigned timeout_ms, const std::string& smt2_dir,
                              const std::string& name) {
  TvResult out;
  const CollectiveSpec& spec = m.spec;
  const uint64_t p = spec.p;
  const uint64_t nb = spec.nblocks;
  if (p * uint64_t{nb} > kTvMaxCells) {
    out.verdict = support::skipped(kName, "p * blocks = " + std::to_string(p * uint64_t{nb}) +
                                              " cells, beyond the encoding's limit of " + std::to_string(kTvMaxCells));
    return out;
  }
  out.verdict.property = kName;
  out.verdict.mode = "z3";
  structure_problems(m, out.verdict);
  if (out.verdict.status == Status::violated) {
    out.verdict.stats["stage"] = "structure (before encoding)";
    return out;
  }
  const int last = std::max(0, m.num_steps() - 1);
  out.verdict = support::guarded(kName, [&](z3::context& c, Verdict& v) {
    Smt2Scope scope(smt2_dir, std::string(kName) + "-" +
                                  (name.empty() ? std::string(to_string(spec.kind)) + "-p" + std::to_string(p) : name));
    support::Budget budget(c, timeout_ms);
    // Initial values and the inputs of every block.
    std::vector<z3::expr> val;
    val.reserve(p * nb);
    std::vector<std::vector<std::pair<Rank, z3::expr>>> inputs(nb);  // block -> (contributor, x)
    for (Rank r = 0; r < p; ++r)
      for (Block b = 0; b < nb; ++b) {
        if (std::optional<Rank> who = spec.initial_contributor(r, b)) {
          z3::expr x = c.int_const(cell_name("x", *who, b).c_str());
          inputs[b].emplace_back(*who, x);
          val.push_back(x);
        } else {
          val.push_back(c.int_const(cell_name("u", r, b).c_str()));
        }
      }
    // The schedule's data flow.
    for (int s = 0; s < m.num_steps(); ++s) {
      const std::vector<z3::expr> snap = val;
      for (Rank j = 0; j < p; ++j)
        for (const Transfer& t : m.steps[static_cast<size_t>(s)][j].recvs)
          t.blocks.for_each([&](Block b) {
            size_t cell = size_t{j} * nb + b, from = size_t{t.peer} * nb + b;
            val[cell] = t.combine == Combine::copy ? snap[from] : val[cell] + snap[from];
          });
    }
    // The postcondition, cell by cell in (rank, block) order.
    struct Need {
      Rank r;
      Block b;
      z3::expr expected;
      z3::expr wrong;
    };
    std::vector<Need> needs;
    std::vector<std::optional<z3::expr>> full(nb);
    for (Rank r = 0; r < p; ++r)
      for (Block b = 0; b < nb; ++b) {
        Requirement req = spec.required(r, b);
        if (req.kind == Requirement::Kind::none) continue;
        z3::expr expected = c.int_val(0);
        if (req.kind == Requirement::Kind::all_ranks) {
          if (!full[b]) {
            z3::expr_vector xs(c);
            for (auto& [who, x] : inputs[b]) xs.push_back(x);
            full[b] = xs.empty() ? c.int_val(0) : z3::sum(xs);
          }
          expected = *full[b];
        } else {
          expected = c.int_const(cell_name("x", req.origin, b).c_str());
        }
        z3::expr actual = val[size_t{r} * nb + b];
        needs.push_back({r, b, expected, actual != expected});
      }
    v.stats["query"] = "exists inputs x and undefined buffers u: some required (rank, block) != its postcondition";
    v.stats["encoding"] = "QF_LIA: symbolic integer inputs, + as the reduction, copy/reduce data flow per step";
    v.stats["instances"] = std::to_string(needs.size()) + " required (rank, block) values, for all inputs";
    v.stats["collective"] = to_string(spec.kind);
    if (needs.empty()) {
      budget.fill_stats(v);
      return;
    }
    auto prefix = [&](size_t upto) {  // some of needs[0..upto] is wrong
      z3::expr_vector any(c);
      for (size_t i = 0; i <= upto; ++i) any.push_back(needs[i].wrong);
      return z3::mk_or(any);
    };
    z3::solver s(c, "QF_LIA");
    s.add(prefix(needs.size() - 1));
    z3::check_result r = budget.check(s, "query");
    if (r == z3::unknown) {
      v.status = Status::unknown;
      budget.fill_stats(v);
      return;
    }
    if (r == z3::unsat) {
      budget.fill_stats(v);
      return;
    }
    // The smallest wrong (rank, block): binary search over prefixes.
    size_t lo = 0, hi = needs.size() - 1;
    bool complete = true;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      z3::solver q(c, "QF_LIA");
      q.add(prefix(mid));
      z3::check_result a = budget.check(q, "", false);
      if (a == z3::sat) hi = mid;
      else if (a == z3::unsat) lo = mid + 1;
      else {
        complete = false;
        break;
      }
    }
    if (!complete) {  // keep a real one: the first wrong cell of the first model
      z3::model mdl = s.get_model();
      for (size_t i = 0; i < needs.size(); ++i)
        if (mdl.eval(needs[i].wrong, true).is_true()) {
          hi = i;
          break;
        }
    }
    v.stats["minimisation"] = complete ? "complete" : "stopped by the time budget (not necessarily minimal)";
    const Need& n = needs[hi];
    TvWitness w;
    w.rank = n.r;
    w.block = n.b;
    w.actual_form = form(val[size_t{n.r} * nb + n.b]);
    w.expected_form = form(n.expected);
    w.undefined = w.actual_form.find("u_") != std::string::npos;
    // A witness on the executor's inputs (one element per block: index = b).
    bool found = false;
    for (uint64_t seed = 1; seed <= 16 && !found; ++seed) {
      z3::solver q(c, "QF_LIA");
      q.add(n.wrong);
      std::vector<std::pair<std::string, int64_t>> xs;
      for (auto& [who, x] : inputs[n.b]) {
        int64_t value = runtime::input_integer(seed, who, n.b);
        q.add(x == c.int_val(value));
        xs.emplace_back(x.to_string(), value);
      }
      z3::check_result a = budget.check(q, "witness-seed-" + std::to_string(seed), false);
      if (a == z3::unknown) break;
      if (a != z3::sat) continue;
      z3::model mdl = q.get_model();
      w.seed = seed;
      w.inputs = std::move(xs);
      w.actual = mdl.eval(val[size_t{n.r} * nb + n.b], true).get_numeral_int64();
      w.expected = mdl.eval(n.expected, true).get_numeral_int64();
      found = true;
    }
    Counterexample cx = Counterexample::at(p, n.r, last, n.b);
    cx.expected = w.expected_form;
    cx.actual = w.actual_form;
    std::string where = "rank " + std::to_string(n.r) + " block " + std::to_string(n.b);
    cx.message = where + " ends with " + w.actual_form + " instead of " + w.expected_form +
                 (w.undefined ? " (it depends on undefined data)" : "");
    if (found) {
      cx.message += "; on the executor's inputs (seed " + std::to_string(w.seed) + ", one element per block) " +
                    std::to_string(w.actual) + " instead of " + std::to_string(w.expected);
      v.stats["witness_seed"] = std::to_string(w.seed);
      std::string in;
      for (auto& [name, value] : w.inputs) in += (in.empty() ? "" : " ") + name + "=" + std::to_string(value);
      v.stats["witness_inputs"] = in;
    } else {
      v.stats["witness"] = "none of the executor's seeds 1..16 exposes it (cancellation); the Z3 model does";
    }
    v.fail(std::move(cx));
    out.witness = w;
    budget.fill_stats(v);
  });
  return out;
}

runtime::ExecResult replay_witness(const MaterializedSchedule& m, const TvWitness& w) {
  runtime::ExecOptions o;
  o.dtype = runtime::DType::int64;
  o.op = runtime::ReduceOp::sum;
  o.elems_per_block = 1;
  o.seed = w.seed;
  MaterializedView view(m);
  return runtime::execute_threads(view, o);
}

bool replay_confirms(const runtime::ExecResult& r, const TvWitness& w) {
  if (r.verdict.status != Status::violated || !r.verdict.counterexample) return false;
  if (w.undefined) return true;  // the executor reports the undefined read wherever it happens first
  const Counterexample& cx = *r.verdict.counterexample;
  return cx.rank == w.rank && cx.block == w.block && cx.actual == std::to_string(w.actual);
}

Verdict validate_and_replay(const MaterializedSchedule& m, unsigned timeout_ms, const std::string& smt2_dir,
                            const std::string& name) {
  TvResult r = validate_translation(m, timeout_ms, smt2_dir, name);
  if (r.verdict.status == Status::violated && r.witness && r.verdict.stats.count("witness_seed")) {
    runtime::ExecResult e = replay_witness(m, *r.witness);
    if (replay_confirms(e, *r.witness)) {
      r.verdict.stats["replay"] = "threaded executor confirms: " + e.verdict.counterexample->message;
    } else {
      r.verdict.status = Status::unknown;
      r.verdict.counterexample.reset();
      r.verdict.violations = 0;
      r.verdict.stats["error"] = "internal: the threaded executor does not replay the Z3 witness (encoding bug)";
    }
  }
  return r.verdict;
}

std::vector<Query> translation_queries() {
  Query q;
  q.name = kName;
  q.summary =
      "Z3 (QF_LIA): the materialized schedule meets the collective's postcondition with exact multiplicity for all "
      "input values; a violation is replayed by the threaded executor";
  q.unsupported = [](const InstanceParams& ip) -> std::optional<std::string> {
    if (ip.p > 1024) return "p = " + std::to_string(ip.p) + " is beyond translation validation (p <= 1024)";
    return std::nullopt;
  };
  q.run = [](const AlgorithmInfo& a, const VariantInfo& vi, const InstanceParams& ip, const QueryContext& ctx) {
    if (vi.violates)
      if (auto why = vi.violates(ip)) return support::skipped(kName, *why);
    std::unique_ptr<Schedule> sched = vi.make(ip);
    if (p_cells(*sched) > kTvMaxCells)
      return support::skipped(kName, "p * blocks = " + std::to_string(p_cells(*sched)) +
                                         " cells, beyond the encoding's limit of " + std::to_string(kTvMaxCells));
    MaterializedSchedule m = materialize(*sched);
    std::string label = a.name + "-" + vi.name + "-p" + std::to_string(ip.p);
    for (char ch : ip.label()) label += (std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-');
    return validate_and_replay(m, ctx.timeout_ms, ctx.smt2_dir, label);
  };
  return {q};
}

}  // namespace collcheck::smt
