// Step lower bounds by SAT: the encoding described in step_lower_bounds.hpp,
// and the registry queries (lower_bound_queries) that prove, for one
// registered algorithm and p, that no schedule in its port model beats the
// information bound, and report how the algorithm's claimed step count
// compares with it.
//
// Variables (t = 1..T, i != j ranks, u items):
//   H[t][r][u]  rank r holds item u after step t (H[0] are constants)
//   X[t][i][j]  i sends a message to j in step t
//   M[t][i][j][u]  the message carries u (broadcast, stored; for knowledge it
//               is X && H[t-1][i][u]: sending everything is never worse when
//               messages are unbounded; for running_sum the whole H[t-1][i])
//   K[t][j]     running_sum: j keeps its accumulator (else replaces it)
//   S[t][i][j][item]  stored: the message sums this item of i (its own input
//               or the message i received from x in step t' < t)
// Ports are pseudo-Boolean at-most-k constraints (Z3 handles them natively);
// exactly-once is at-most-1 over "u arrives at j by this route" per step.
#include "smt/step_lower_bounds.hpp"

#include <z3++.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "smt/proof_support.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt {

const char* to_string(StepGoal g) {
  switch (g) {
    case StepGoal::allreduce: return "allreduce";
    case StepGoal::allgather: return "allgather";
    case StepGoal::alltoall: return "alltoall";
    case StepGoal::broadcast: return "broadcast";
  }
  return "?";
}
const char* to_string(Content c) {
  switch (c) {
    case Content::knowledge: return "knowledge";
    case Content::stored: return "stored";
    case Content::running_sum: return "running-sum";
    case Content::running_sum_add: return "running-sum-add";
  }
  return "?";
}
const char* to_string(Topology t) { return t == Topology::any_peer ? "any peer" : "ring neighbours"; }
const char* to_string(Existence e) {
  switch (e) {
    case Existence::exists: return "exists";
    case Existence::impossible: return "impossible";
    case Existence::unknown: return "unknown";
  }
  return "?";
}

std::string describe(const StepModel& m) {
  return std::to_string(m.ports) + "-port, " + to_string(m.topology) + ", " + to_string(m.content);
}

namespace {

constexpr uint64_t kMaxCells = 3'000'000;  // T * p * p * items: clauses of the transition relation

uint32_t num_items(const StepProblem& P) {
  switch (P.goal) {
    case StepGoal::allreduce:
    case StepGoal::allgather: return static_cast<uint32_t>(P.p);
    case StepGoal::alltoall: return static_cast<uint32_t>(P.p * P.p);
    case StepGoal::broadcast: return P.blocks;
  }
  return 0;
}

bool initially(const StepProblem& P, Rank r, uint32_t u) {
  switch (P.goal) {
    case StepGoal::allreduce:
    case StepGoal::allgather: return u == r;
    case StepGoal::alltoall: return u / P.p == r;
    case StepGoal::broadcast: return r == P.root;
  }
  return false;
}

bool required(const StepProblem& P, Rank r, uint32_t u) {
  switch (P.goal) {
    case StepGoal::allreduce:
    case StepGoal::allgather: return !P.one_target || r == 0;
    case StepGoal::alltoall: return u % P.p == r && (!P.one_target || r == 0);
    case StepGoal::broadcast: return true;
  }
  return false;
}

bool link_allowed(const StepProblem& P, Rank i, Rank j) {
  if (i == j) return false;
  if (P.model.topology == Topology::any_peer) return true;
  return (i + 1) % P.p == j || (j + 1) % P.p == i;
}

std::string stem_of(const std::string& property, const StepProblem& P) {
  std::string s = property + "-p" + std::to_string(P.p) + "-T" + std::to_string(P.steps) + "-" +
                  std::to_string(P.model.ports) + "port-" + to_string(P.model.content);
  if (P.model.topology == Topology::ring_neighbours) s += "-ringnb";
  if (P.goal == StepGoal::broadcast) s += "-n" + std::to_string(P.blocks);
  if (P.one_target) s += "-one-target";
  for (char& ch : s)
    if (ch == ' ') ch = '-';
  return s;
}

// The SAT encoding of one StepProblem.
class Encoding {
 public:
  Encoding(z3::context& c, const StepProblem& P) : c_(c), P_(P), p_(static_cast<Rank>(P.p)), U_(num_items(P)) {}

  // One target in the knowledge model (allreduce, allgather, alltoall): rank
  // 0's final knowledge (all-to-all: of the blocks (s, 0)) is exactly what
  // the ranks with a time-respecting path to it started with,
  // so instead of H[t][r][u] the encoding tracks B[t][r] = "what r holds
  // after step t reaches rank 0 by step T" (p variables per step instead of
  // p^2): B[T][r] = (r == 0), B[t-1][r] = B[t][r] or (X[t][r][j] and
  // B[t][j] for some j), goal B[0][r] for every r. Equivalent, not a
  // relaxation of the one-target problem.
  bool backward() const {
    return P_.one_target && P_.model.content == Content::knowledge && P_.goal != StepGoal::broadcast;
  }

  void build_backward(z3::solver& s) {
    const int T = P_.steps;
    X_.assign(T + 1, std::vector<std::vector<std::optional<z3::expr>>>(p_, std::vector<std::optional<z3::expr>>(p_)));
    std::vector<z3::expr> B;
    for (Rank r = 0; r < p_; ++r) B.push_back(c_.bool_val(r == 0));
    for (int t = T; t >= 1; --t) {
      for (Rank i = 0; i < p_; ++i)
        for (Rank j = 0; j < p_; ++j)
          if (link_allowed(P_, i, j)) X_[t][i][j] = var("X", t, i, j);
      ports(s, t);
      std::vector<z3::expr> prev;
      for (Rank r = 0; r < p_; ++r) {
        z3::expr b = var("B", t - 1, r, 0);
        z3::expr_vector ways(c_);
        ways.push_back(B[r]);
        for (Rank j = 0; j < p_; ++j)
          if (X_[t][r][j]) ways.push_back(*X_[t][r][j] && B[j]);
        s.add(b == z3::mk_or(ways));
        prev.push_back(b);
      }
      // Symmetry breaking (sound for any_peer, where ranks 1..p-1 are
      // interchangeable): the sets B[T] <= B[T-1] <= ... <= B[0] are nested,
      // so ranks can be relabelled in the order they join; then every B[t]
      // is a prefix {0, ..., m-1}.
      if (P_.model.topology == Topology::any_peer)
        for (Rank r = 2; r < p_; ++r) s.add(z3::implies(prev[r], prev[r - 1]));
      B = std::move(prev);
    }
    for (Rank r = 0; r < p_; ++r) s.add(B[r]);
  }

  void build(z3::solver& s) {
    if (backward()) return build_backward(s);
    const int T = P_.steps;
    H_.assign(T + 1, std::vector<std::vector<z3::expr>>(p_, std::vector<z3::expr>(U_, c_.bool_val(false))));
    for (Rank r = 0; r < p_; ++r)
      for (uint32_t u = 0; u < U_; ++u) H_[0][r][u] = c_.bool_val(initially(P_, r, u));
    X_.assign(T + 1, std::vector<std::vector<std::optional<z3::expr>>>(p_, std::vector<std::optional<z3::expr>>(p_)));
    K_.assign(T + 1, std::vector<std::optional<z3::expr>>(p_));
    M_.assign(T + 1, {});
    for (int t = 1; t <= T; ++t) {
      for (Rank i = 0; i < p_; ++i)
        for (Rank j = 0; j < p_; ++j)
          if (link_allowed(P_, i, j)) X_[t][i][j] = var("X", t, i, j);
      ports(s, t);
      for (Rank r = 0; r < p_; ++r)
        for (uint32_t u = 0; u < U_; ++u) H_[t][r][u] = var("H", t, r, u);
      switch (P_.model.content) {
        case Content::knowledge: knowledge_step(s, t); break;
        case Content::running_sum:
        case Content::running_sum_add: running_sum_step(s, t); break;
        case Content::stored: stored_step(s, t); break;
      }
    }
    for (Rank r = 0; r < p_; ++r)
      for (uint32_t u = 0; u < U_; ++u)
        if (required(P_, r, u)) s.add(H_[T][r][u]);
    if (P_.goal == StepGoal::broadcast && P_.model.topology == Topology::any_peer) break_broadcast_symmetry(s);
  }

  // Broadcast, any peer: the non-root ranks are interchangeable, so they can
  // be relabelled in the order they first receive a block; then after every
  // step the non-root ranks holding something form a prefix (sound: every
  // schedule has a relabelled copy that satisfies this).
  void break_broadcast_symmetry(z3::solver& s) {
    std::vector<Rank> others;
    for (Rank r = 0; r < p_; ++r)
      if (r != P_.root) others.push_back(r);
    for (int t = 1; t <= P_.steps; ++t)
      for (size_t k = 1; k < others.size(); ++k) {
        z3::expr_vector now(c_), before(c_);
        for (uint32_t u = 0; u < U_; ++u) {
          now.push_back(H_[t][others[k]][u]);
          before.push_back(H_[t][others[k - 1]][u]);
        }
        s.add(z3::implies(z3::mk_or(now), z3::mk_or(before)));
      }
  }

  // The schedule of a model of build().
  std::vector<StepMessage> extract(const z3::model& m) const {
    std::vector<StepMessage> out;
    auto truth = [&](const z3::expr& e) { return m.eval(e, true).is_true(); };
    if (backward()) {  // every chosen transfer carries all its sender knows
      std::vector<std::set<uint32_t>> held(p_);
      for (Rank r = 0; r < p_; ++r)
        for (uint32_t u = 0; u < U_; ++u)
          if (initially(P_, r, u)) held[r].insert(u);
      for (int t = 1; t <= P_.steps; ++t) {
        auto next = held;
        for (Rank i = 0; i < p_; ++i)
          for (Rank j = 0; j < p_; ++j)
            if (X_[t][i][j] && truth(*X_[t][i][j])) {
              out.push_back({t, i, j, std::vector<uint32_t>(held[i].begin(), held[i].end()), false});
              next[j].insert(held[i].begin(), held[i].end());
            }
        held = std::move(next);
      }
      return out;
    }
    for (int t = 1; t <= P_.steps; ++t)
      for (Rank i = 0; i < p_; ++i)
        for (Rank j = 0; j < p_; ++j) {
          if (!X_[t][i][j] || !truth(*X_[t][i][j])) continue;
          StepMessage msg{t, i, j, {}, false};
          for (uint32_t u = 0; u < U_; ++u)
            if (truth(content(t, i, j, u))) msg.items.push_back(u);
          const bool running = P_.model.content == Content::running_sum || P_.model.content == Content::running_sum_add;
          if (P_.model.content == Content::running_sum) msg.replace = !truth(*K_[t][j]);
          // Running sums: every receipt is listed (it decides whether the
          // receiver replaces); an empty one would fail the replay, as it
          // should. Elsewhere an empty message is an unused port.
          if (running || !msg.items.empty()) out.push_back(std::move(msg));
        }
    return out;
  }

  uint64_t variables() const { return vars_; }

 private:
  z3::expr var(const char* kind, int t, uint64_t a, uint64_t b, int64_t d = -1) {
    ++vars_;
    std::string name = std::string(kind) + "_" + std::to_string(t) + "_" + std::to_string(a) + "_" + std::to_string(b);
    if (d >= 0) name += "_" + std::to_string(d);
    return c_.bool_const(name.c_str());
  }

  void ports(z3::solver& s, int t) {
    const unsigned k = static_cast<unsigned>(P_.model.ports);
    for (Rank i = 0; i < p_; ++i) {
      z3::expr_vector out(c_), in(c_);
      for (Rank j = 0; j < p_; ++j) {
        if (X_[t][i][j]) out.push_back(*X_[t][i][j]);
        if (X_[t][j][i]) in.push_back(*X_[t][j][i]);
      }
      if (out.size() > k) s.add(z3::atmost(out, k));
      if (in.size() > k) s.add(z3::atmost(in, k));
    }
  }

  // What the message i -> j of step t carries of item u (meaningful when X).
  z3::expr content(int t, Rank i, Rank j, uint32_t u) const {
    auto it = M_[t].find({i, j});
    if (it != M_[t].end()) return it->second[u];
    return *X_[t][i][j] && H_[t - 1][i][u];
  }

  // H[t][j][u]: rank j holds u after step t, i.e. held it before or some
  // message of step t brings it; exactly_once: no item arrives at a rank
  // that holds it already, nor by two messages.
  void update_holders(z3::solver& s, int t, bool exactly_once) {
    for (Rank j = 0; j < p_; ++j)
      for (uint32_t u = 0; u < U_; ++u) {
        z3::expr_vector ways(c_);
        ways.push_back(H_[t - 1][j][u]);
        for (Rank i = 0; i < p_; ++i)
          if (X_[t][i][j]) ways.push_back(content(t, i, j, u));
        s.add(H_[t][j][u] == z3::mk_or(ways));
        if (exactly_once && ways.size() > 1) s.add(z3::atmost(ways, 1));
      }
  }

  void knowledge_step(z3::solver& s, int t) {
    const bool one_block = P_.goal == StepGoal::broadcast;
    for (Rank i = 0; i < p_; ++i)
      for (Rank j = 0; j < p_; ++j) {
        if (!X_[t][i][j] || !one_block) continue;
        std::vector<z3::expr> msg;
        z3::expr_vector all(c_);
        for (uint32_t u = 0; u < U_; ++u) {
          z3::expr m = var("M", t, i, j, u);
          s.add(z3::implies(m, *X_[t][i][j] && H_[t - 1][i][u]));
          msg.push_back(m);
          all.push_back(m);
        }
        if (all.size() > 1) s.add(z3::atmost(all, 1));
        M_[t].emplace(std::make_pair(i, j), std::move(msg));
      }
    update_holders(s, t, false);
  }

  void running_sum_step(z3::solver& s, int t) {
    for (Rank j = 0; j < p_; ++j) {
      K_[t][j] = P_.model.content == Content::running_sum_add ? c_.bool_val(true) : var("K", t, j, 0);
      if (P_.model.content == Content::running_sum) {
        // Replacing needs something to replace with: a rank that receives
        // nothing keeps its accumulator. Without this, !K with no incoming
        // message dropped the accumulator, a move no StepMessage can express
        // (the replay kept the sum, so a valid model failed to replay).
        // Never a loss of schedules: keeping the sum instead and replacing
        // at the rank's next receipt (if any) gives the same accumulators
        // at every other rank, minus the empty messages the dropped sum
        // sent meanwhile. With it every accumulator stays non-empty, so
        // every message carries something and extract() lists every
        // receipt and its replace flag.
        z3::expr_vector incoming(c_);
        for (Rank i = 0; i < p_; ++i)
          if (X_[t][i][j]) incoming.push_back(*X_[t][i][j]);
        s.add(z3::implies(!*K_[t][j], incoming.empty() ? c_.bool_val(false) : z3::mk_or(incoming)));
      }
      for (uint32_t u = 0; u < U_; ++u) {
        z3::expr_vector ways(c_);
        ways.push_back(*K_[t][j] && H_[t - 1][j][u]);
        for (Rank i = 0; i < p_; ++i)
          if (X_[t][i][j]) ways.push_back(content(t, i, j, u));
        s.add(H_[t][j][u] == z3::mk_or(ways));
        if (ways.size() > 1) s.add(z3::atmost(ways, 1));  // exactly-once: disjoint summands
      }
    }
  }

  void stored_step(z3::solver& s, int t) {
    for (Rank i = 0; i < p_; ++i)
      for (Rank j = 0; j < p_; ++j) {
        if (!X_[t][i][j]) continue;
        // Items of i before step t: its input, and every message it received.
        z3::expr own = var("S", t, i, j, 0);
        std::vector<std::pair<z3::expr, const std::vector<z3::expr>*>> picks;
        int idx = 1;
        for (int tp = 1; tp < t; ++tp)
          for (Rank x = 0; x < p_; ++x) {
            auto it = M_[tp].find({x, i});
            if (it == M_[tp].end()) continue;
            picks.emplace_back(var("S", t, i, j, idx++), &it->second);
          }
        std::vector<z3::expr> msg;
        for (uint32_t u = 0; u < U_; ++u) {
          z3::expr_vector ways(c_);
          if (u == i) ways.push_back(own);
          for (auto& [sel, items] : picks) ways.push_back(sel && (*items)[u]);
          msg.push_back(*X_[t][i][j] && z3::mk_or(ways));
        }
        M_[t].emplace(std::make_pair(i, j), std::move(msg));
      }
    update_holders(s, t, true);
  }

  z3::context& c_;
  const StepProblem& P_;
  Rank p_;
  uint32_t U_;
  uint64_t vars_ = 0;
  std::vector<std::vector<std::vector<z3::expr>>> H_;
  std::vector<std::vector<std::vector<std::optional<z3::expr>>>> X_;
  std::vector<std::vector<std::optional<z3::expr>>> K_;
  std::vector<std::map<std::pair<Rank, Rank>, std::vector<z3::expr>>> M_;
};

std::string items_text(const StepProblem& P, const std::vector<uint32_t>& items) {
  std::string out = "{";
  for (size_t k = 0; k < items.size(); ++k) {
    if (k) out += ",";
    if (P.goal == StepGoal::alltoall)
      out += std::to_string(items[k] / P.p) + ">" + std::to_string(items[k] % P.p);
    else
      out += std::to_string(items[k]);
  }
  return out + "}";
}

}  // namespace

std::optional<std::string> unsupported(const StepProblem& P) {
  if (P.p < 1) return "p must be >= 1";
  if (P.steps < 0) return "steps must be >= 0";
  if (P.model.ports < 1) return "ports must be >= 1";
  if (P.goal == StepGoal::broadcast && (P.blocks < 1 || P.root >= P.p)) return "broadcast needs n >= 1 and root < p";
  if (P.model.content != Content::knowledge && P.goal != StepGoal::allreduce)
    return std::string("the ") + to_string(P.model.content) + " content model is defined for allreduce only";
  if (P.p > 4096) return "p = " + std::to_string(P.p) + " is beyond the SAT encoding (p^2 transfer variables per step)";
  const bool backward = P.one_target && P.model.content == Content::knowledge && P.goal != StepGoal::broadcast;
  uint64_t cells = uint64_t(std::max(P.steps, 1)) * P.p * P.p * (backward ? 1 : num_items(P));
  if (P.model.content == Content::stored) cells *= uint64_t(std::max(P.steps, 1)) * P.model.ports;
  if (cells > kMaxCells)
    return "p = " + std::to_string(P.p) + " with " + std::to_string(P.steps) + " steps needs " + std::to_string(cells) +
           " transition clauses, beyond the encoding's limit of " + std::to_string(kMaxCells);
  return std::nullopt;
}

std::optional<std::string> replay_step_schedule(const StepProblem& P, const std::vector<StepMessage>& sched) {
  const Rank p = static_cast<Rank>(P.p);
  const uint32_t U = num_items(P);
  std::vector<std::set<uint32_t>> held(p);
  std::vector<std::vector<std::set<uint32_t>>> items(p);  // stored: i's separate vectors
  for (Rank r = 0; r < p; ++r) {
    for (uint32_t u = 0; u < U; ++u)
      if (initially(P, r, u)) held[r].insert(u);
    if (P.model.content == Content::stored) items[r].push_back(held[r]);
  }
  auto where = [](const StepMessage& m) {
    return "step " + std::to_string(m.step) + " " + std::to_string(m.src) + "->" + std::to_string(m.dst);
  };
  for (int t = 1; t <= P.steps; ++t) {
    std::vector<const StepMessage*> msgs;
    for (const StepMessage& m : sched) {
      if (m.step < 1 || m.step > P.steps) return "message at step " + std::to_string(m.step) + " out of range";
      if (m.step == t) msgs.push_back(&m);
    }
    std::vector<int> outs(p, 0), ins(p, 0);
    std::vector<std::set<uint32_t>> next = held;
    std::vector<int> replaced(p, -1);  // running_sum: the receiver's one decision this step (-1: none yet)
    std::vector<std::vector<std::set<uint32_t>>> received(p);
    for (const StepMessage* m : msgs) {
      if (m->src >= p || m->dst >= p || !link_allowed(P, m->src, m->dst)) return where(*m) + ": link not allowed";
      if (++outs[m->src] > P.model.ports || ++ins[m->dst] > P.model.ports) return where(*m) + ": exceeds the ports";
      std::set<uint32_t> carried(m->items.begin(), m->items.end());
      for (uint32_t u : carried)
        if (u >= U || !held[m->src].count(u)) return where(*m) + ": sends an item its sender does not hold";
      if (P.goal == StepGoal::broadcast && carried.size() > 1) return where(*m) + ": more than one block";
      const bool running = P.model.content == Content::running_sum || P.model.content == Content::running_sum_add;
      if (running && carried != held[m->src])
        return where(*m) + ": a running sum must be sent whole";
      if (P.model.content == Content::stored) {  // a union of the sender's items
        std::set<uint32_t> rest = carried;
        for (const auto& it : items[m->src]) {
          bool inside = std::includes(carried.begin(), carried.end(), it.begin(), it.end());
          bool apart = std::none_of(it.begin(), it.end(), [&](uint32_t u) { return carried.count(u); });
          if (!inside && !apart) return where(*m) + ": splits one of the sender's stored vectors";
          if (inside)
            for (uint32_t u : it) rest.erase(u);
        }
        if (!rest.empty()) return where(*m) + ": not a sum of the sender's stored vectors";
      }
      received[m->dst].push_back(carried);
      if (m->replace && P.model.content != Content::running_sum)
        return where(*m) + ": only running-sum receivers may replace";
      // One accumulator per rank, so one decision per rank and step: add
      // every message received in this step, or replace by their sum.
      if (replaced[m->dst] >= 0 && replaced[m->dst] != int(m->replace))
        return where(*m) + ": its receiver adds some messages of this step and replaces with others";
      replaced[m->dst] = int(m->replace);
    }
    for (Rank j = 0; j < p; ++j) {
      std::set<uint32_t> acc = (P.model.content == Content::running_sum && replaced[j] == 1) ? std::set<uint32_t>{} : held[j];
      for (const auto& got : received[j]) {
        for (uint32_t u : got) {
          bool dup = acc.count(u) != 0;
          if (dup && P.model.content != Content::knowledge)
            return "step " + std::to_string(t) + ": rank " + std::to_string(j) + " gets item " + std::to_string(u) +
                   " twice (exactly-once)";
          acc.insert(u);
        }
        if (P.model.content == Content::stored) items[j].push_back(got);
      }
      next[j] = acc;
    }
    held = std::move(next);
  }
  for (Rank r = 0; r < p; ++r)
    for (uint32_t u = 0; u < U; ++u)
      if (required(P, r, u) && !held[r].count(u))
        return "rank " + std::to_string(r) + " ends without item " + std::to_string(u);
  return std::nullopt;
}

std::string format_step_schedule(const StepProblem& P, const std::vector<StepMessage>& sched) {
  std::ostringstream os;
  int last = 0;
  for (const StepMessage& m : sched) {
    if (m.step != last) {
      os << (last ? "; " : "") << "step " << m.step << ":";
      last = m.step;
    }
    os << " " << m.src << "->" << m.dst << (m.replace ? "(replace)" : "") << items_text(P, m.items);
  }
  return last ? os.str() : "no messages";
}

int information_bound(StepGoal goal, uint64_t p, int ports, uint32_t blocks) {
  if (p <= 1) return 0;
  auto ceil_log = [](uint64_t base, uint64_t x) {
    int l = 0;
    for (uint64_t v = 1; v < x; v *= base) ++l;
    return l;
  };
  if (goal == StepGoal::broadcast) {
    if (ports != 1) return -1;
    return static_cast<int>(blocks) - 1 + ceil_log(2, p);
  }
  return ceil_log(static_cast<uint64_t>(ports) + 1, p);
}

StepSearch find_schedule(const StepProblem& P, unsigned timeout_ms, const std::string& smt2_dir) {
  StepSearch out;
  const std::string property = std::string("smt-step-schedule-") + to_string(P.goal);
  if (auto why = unsupported(P)) {
    out.verdict = support::skipped(property, *why);
    return out;
  }
  out.verdict = support::guarded(property, [&](z3::context& c, Verdict& v) {
    Smt2Scope scope(smt2_dir, stem_of(property, P));
    support::Budget budget(c, timeout_ms);
    // QF_FD: Z3's finite-domain SAT core with native cardinality constraints
    // (measured: allreduce p = 16, 3 steps, 1-port: 60 s against 80-100 s
    // with the default solver).
    z3::solver s(c, "QF_FD");
    Encoding enc(c, P);
    enc.build(s);
    v.stats["model"] = describe(P.model);
    v.stats["steps"] = std::to_string(P.steps);
    v.stats["variables"] = std::to_string(enc.variables());
    v.stats["assertions"] = std::to_string(s.assertions().size());
    v.stats["encoding"] =
        enc.backward()
            ? "SAT: backward reachability to rank 0 per step (one target, knowledge), pseudo-Boolean ports, ranks "
              "relabelled in joining order"
            : "SAT: hold/transfer Booleans per step, pseudo-Boolean port and exactly-once constraints";
    switch (budget.check(s, "query")) {
      case z3::unsat: out.answer = Existence::impossible; break;
      case z3::unknown: v.status = Status::unknown; break;
      case z3::sat: {
        std::vector<StepMessage> sched = enc.extract(s.get_model());
        if (auto broken = replay_step_schedule(P, sched)) {
          v.status = Status::unknown;
          v.stats["error"] = "internal: the Z3 schedule does not replay (" + *broken + "): encoding bug";
        } else {
          out.answer = Existence::exists;
          out.schedule = std::move(sched);
          v.stats["schedule"] = format_step_schedule(P, out.schedule);
        }
        break;
      }
    }
    budget.fill_stats(v);
  });
  if (out.verdict.status == Status::unknown) out.answer = Existence::unknown;
  return out;
}

Verdict prove_step_lower_bound(StepProblem P, unsigned timeout_ms, const std::string& smt2_dir) {
  const std::string property = std::string("smt-step-lower-bound-") + to_string(P.goal);
  const int bound = information_bound(P.goal, P.p, P.model.ports, P.blocks);
  if (bound < 0) return support::skipped(property, "no step bound for this goal in a " + describe(P.model) + " model");
  if (bound == 0) {
    Verdict v = support::skipped(property, "p = " + std::to_string(P.p) + ": the bound is 0 steps, nothing to prove");
    return v;
  }
  P.steps = bound - 1;
  StepSearch s = find_schedule(P, timeout_ms, smt2_dir);
  Verdict v = s.verdict;
  v.property = property;
  v.stats["bound"] = std::to_string(bound);
  v.stats["steps_refuted"] = std::to_string(bound - 1);
  v.stats["query"] = "exists a " + std::string(to_string(P.goal)) + " schedule of " + std::to_string(bound - 1) +
                     " steps (" + describe(P.model) + (P.one_target ? ", only rank 0 must complete" : "") + ")";
  if (v.status == Status::skipped) return v;
  switch (s.answer) {
    case Existence::impossible: v.status = Status::holds; break;
    case Existence::unknown: v.status = Status::unknown; break;
    case Existence::exists: {
      Counterexample cx = Counterexample::at(P.p, std::nullopt, bound - 1);
      cx.expected = "no schedule of " + std::to_string(bound - 1) + " steps";
      cx.actual = format_step_schedule(P, s.schedule);
      cx.message = "a " + std::to_string(bound - 1) + "-step " + to_string(P.goal) + " schedule exists in the " +
                   describe(P.model) + " model, below the claimed bound " + std::to_string(bound);
      v.status = Status::holds;
      v.fail(std::move(cx));
      break;
    }
  }
  return v;
}

// ---- registry queries --------------------------------------------------------

namespace {

// The step goal of a registered algorithm, if it has a bound. The port model
// is not a property of the algorithm's name: it is the schedule's own
// (schedule_ports), for the size limit and the proof alike.
// The family declares where the flat bound says little
// (Capabilities::flat_step_bound: traff-allgather, n blocks per rank; tra2,
// hierarchical).
std::optional<StepGoal> goal_of(const AlgorithmInfo& a) {
  switch (a.collective) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::reduce: return StepGoal::allreduce;
    case Collective::allgather:
      if (!a.capabilities.flat_step_bound) return std::nullopt;
      return StepGoal::allgather;
    case Collective::alltoall:
      if (!a.capabilities.flat_step_bound) return std::nullopt;
      return StepGoal::alltoall;
    case Collective::broadcast: return StepGoal::broadcast;
  }
  return std::nullopt;
}

// k of the k-port model the query proves for this instance: Schedule::ports()
// of the variant's schedule (trivance, bruck-allreduce and swing paper-odd's
// extra node: 2; trivance-torus: 2 per dimension; the others 1).
// `blocks`: the schedule's blocks per rank (the n of an n-block broadcast).
struct ScheduleShape {
  int ports;
  uint64_t blocks;
};
ScheduleShape schedule_shape(const VariantInfo& vi, const InstanceParams& ip) {
  const std::unique_ptr<Schedule> s = vi.make(ip);
  return {std::max(1, s->ports()), s->num_blocks()};
}

// Limits chosen so that a default run finishes within the default 60 s:
// measured (2-core machine under load) allreduce one target p = 16 0.07 s,
// p = 32 82 s, p = 64 > 120 s; two ports p = 27 0.3 s (more ports: fewer
// steps to refute); broadcast p = 8, n = 8 (10 steps) 8 s, p = 16, n = 8
// > 120 s. find_schedule takes larger problems. The n-block broadcast is
// not monotone in p: at n = 8 (10 steps) p = 6 took 0.6 s, p = 8 7 s, p = 7
// 15 s and p = 5 64 s (loaded), past the default budget, so the query
// stops at 9 steps (the 8-step refutation).
constexpr uint64_t kMaxP = 27, kMaxPOnePort = 16;
constexpr int kMaxBroadcastSteps = 9;

std::optional<std::string> size_limit(StepGoal goal, int ports, uint64_t blocks, const InstanceParams& ip) {
  if (ip.p > kMaxP)
    return "p = " + std::to_string(ip.p) + " is beyond the step-bound query (p <= 16 one-port, p <= 27 two-port; "
           "one-port p = 32 takes ~80 s, p = 64 more than 120 s)";
  if (ports < 2 && ip.p > kMaxPOnePort)
    return "p = " + std::to_string(ip.p) + " is beyond the one-port step-bound query (p <= 16; p = 32 takes ~80 s)";
  if (goal == StepGoal::broadcast) {
    if (blocks > kMaxBroadcastSteps + 1)  // n - 1 + ceil(log2 p) > 9 for every p; below, n fits 32 bits
      return "the n-block broadcast's n = " + std::to_string(blocks) + " is beyond the step-bound query (at most " +
             std::to_string(kMaxBroadcastSteps) + " steps: n - 1 + ceil(log2 p) of them)";
    int bound = information_bound(goal, ip.p, ports, static_cast<uint32_t>(blocks));
    if (bound > kMaxBroadcastSteps)
      return "the n-block broadcast bound n-1+ceil(log2 p) = " + std::to_string(bound) +
             " is beyond the step-bound query (at most " + std::to_string(kMaxBroadcastSteps) +
             " steps; p = 5, n = 8 (10 steps) takes about a minute, p = 16, n = 8 more than 120 s)";
  }
  return std::nullopt;
}

// Called after size_limit() passed: a broadcast's n is at most kMaxBroadcastSteps + 1.
StepProblem problem_of(StepGoal goal, int ports, uint64_t blocks, const InstanceParams& ip) {
  StepProblem P;
  P.goal = goal;
  P.p = ip.p;
  P.model.ports = ports;
  P.model.content = Content::knowledge;
  if (goal == StepGoal::broadcast) {
    P.blocks = static_cast<uint32_t>(blocks);  // the broadcast's n (traff: --n, default 8)
    P.root = ip.root;
  }
  // Reductions, allgather, alltoall: only rank 0 must complete (a relaxation:
  // its unsat is the full problem's unsat, and it is far easier for SAT).
  P.one_target = goal != StepGoal::broadcast;
  return P;
}

}  // namespace

std::vector<Query> lower_bound_queries() {
  Query q;
  q.name = "smt-step-lower-bound";
  q.summary =
      "SAT: no schedule beats the step bound of the algorithm's port model (ceil(log_{k+1} p); Traff's n-1+ceil(log2 "
      "p) for n-block broadcast), in the most permissive content model; the claim is compared with it";
  q.applies = [](const AlgorithmInfo& a, const VariantInfo&) { return goal_of(a).has_value(); };
  q.unsupported = [](const InstanceParams& ip) -> std::optional<std::string> {
    if (ip.p > kMaxP) return size_limit(StepGoal::allreduce, 2, 0, ip);
    return std::nullopt;
  };
  // The limit of the port model the schedule has (the one run() proves).
  // An instance the variant itself excludes is left to run(), which reports
  // it as skipped, as at every p.
  q.unsupported_variant = [](const AlgorithmInfo& a, const VariantInfo& vi,
                             const InstanceParams& ip) -> std::optional<std::string> {
    std::optional<StepGoal> g = goal_of(a);
    if (!g) return std::nullopt;
    if (ip.p > kMaxP) return size_limit(*g, 2, 0, ip);  // never builds a schedule of an unbounded p
    if (vi.violates && vi.violates(ip)) return std::nullopt;
    const ScheduleShape shape = schedule_shape(vi, ip);
    return size_limit(*g, shape.ports, shape.blocks, ip);
  };
  q.run = [](const AlgorithmInfo& a, const VariantInfo& vi, const InstanceParams& ip, const QueryContext& ctx) {
    std::optional<StepGoal> g = goal_of(a);
    if (vi.violates)
      if (auto why = vi.violates(ip)) return support::skipped("smt-step-lower-bound", *why);
    if (ip.p > kMaxP) return support::skipped("smt-step-lower-bound", *size_limit(*g, 2, 0, ip));
    const ScheduleShape shape = schedule_shape(vi, ip);
    const int ports = shape.ports;
    if (auto why = size_limit(*g, ports, shape.blocks, ip)) return support::skipped("smt-step-lower-bound", *why);
    StepProblem P = problem_of(*g, ports, shape.blocks, ip);
    if (*g == StepGoal::alltoall && ip.p > 16)
      return support::skipped("smt-step-lower-bound", "all-to-all bound encoded for p <= 16 (p^3 variables per step)");
    int bound = information_bound(P.goal, P.p, P.model.ports, P.blocks);
    P.steps = std::max(bound - 1, 0);
    if (auto why = unsupported(P)) return support::skipped("smt-step-lower-bound", *why);
    Verdict v = prove_step_lower_bound(P, ctx.timeout_ms, ctx.smt2_dir);
    v.property = "smt-step-lower-bound";
    int claimed = vi.claim ? vi.claim(ip).steps : -1;
    if (claimed >= 0) {
      v.stats["claimed_steps"] = std::to_string(claimed);
      if (claimed == bound)
        v.stats["optimal"] = "yes: the claimed step count equals the proven bound";
      else if (claimed > bound)
        v.stats["optimal"] = "the claim exceeds the bound by " + std::to_string(claimed - bound) + " step(s)";
      if (claimed < bound && v.status == Status::holds) {
        Counterexample cx = Counterexample::at(ip.p, std::nullopt, claimed);
        cx.expected = "at least " + std::to_string(bound) + " steps";
        cx.actual = std::to_string(claimed) + " steps claimed";
        cx.message = "the algorithm claims fewer steps than the proven lower bound";
        v.fail(std::move(cx));
      }
    }
    return v;
  };
  return {q};
}

}  // namespace collcheck::smt
