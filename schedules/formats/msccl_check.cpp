// MSCCL program checker: FIFO matching, happens-before, races, and a
// simulation of contribution multisets (see msccl_check.hpp).
#include "schedules/formats/msccl_check.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <iterator>
#include <optional>
#include <set>
#include <tuple>

#include "schedules/formats/msccl_clocks.hpp"
#include "schedules/input_error.hpp"

namespace collcheck::msccl {

const char* to_string(Mode m) { return m == Mode::in_place ? "in-place" : "out-of-place"; }

std::vector<Mode> modes(const Program& p) {
  std::vector<Mode> out;
  if (p.inplace) out.push_back(Mode::in_place);
  if (p.outofplace) out.push_back(Mode::out_of_place);
  return out;
}

namespace {

const char* kMode = "msccl simulation (multiplicity)";
// A racy cell beyond Limits::max_pair_listing: the minimal counterexample is
// searched among the pairs of its earliest racing steps within this many
// comparisons (else the pairs a linear scan finds are reported too).
constexpr uint64_t kMaxMinimalSearch = uint64_t{1} << 26;
const char* kNotJudged = "not judged: coll=custom has no postcondition";
using Accesses = std::vector<std::pair<size_t, bool>>;  // (step, writes), in simulation order

struct Op {
  int gpu, tb;
  const Step* st;
  int peer_send, peer_recv, chan;
};

// A chunk's value: has data, and its contributions (sorted, repeats kept).
struct Value {
  bool has = false;
  std::vector<uint64_t> ids;
  std::vector<uint32_t> trail = {};  // the last steps that moved or combined it, oldest first (at most kTrail)
};
constexpr size_t kTrail = 6;

struct Cell {
  Buf buf;
  int64_t off;
  bool operator<(const Cell& o) const { return std::tie(buf, off) < std::tie(o.buf, o.off); }
};

class Checker {
 public:
  Checker(const Program& p, Mode mode, const Limits& limits)
      : p_(p), mode_(mode), limits_(limits), inplace_(mode == Mode::in_place), custom_(p.coll == Collective::custom) {
    for (const char* name : {"matching", "causality", "exactly-once", "postcondition"}) {
      Verdict v;
      v.property = name;
      v.mode = kMode;
      verdicts_.push_back(v);
    }
    for (const Gpu& g : p.gpus)
      for (const ThreadBlock& tb : g.tbs)
        for (const Step& st : tb.steps) ops_.push_back({g.id, tb.id, &st, tb.send, tb.recv, tb.chan});
    base_.resize(p.ngpus);
    size_t k = 0;
    uint32_t chain = 0;
    for (const Gpu& g : p.gpus) {
      base_[g.id].resize(g.tbs.size());
      gpu_chains_.push_back(chain);
      for (const ThreadBlock& tb : g.tbs) {
        base_[g.id][tb.id] = k;
        k += tb.steps.size();
        for (const Step& st : tb.steps) {
          chain_.push_back(chain);
          pos_.push_back(st.s);
        }
        ++chain;
      }
    }
    gpu_chains_.push_back(chain);
  }

  CheckResult run() {
    connections_owned();
    match();
    order();
    dependencies_signal();
    simulate();
    races();
    if (!custom_) postcondition();
    CheckResult r;
    r.mode = mode_;
    r.verdicts = std::move(verdicts_);
    for (Verdict& v : r.verdicts) {
      if (v.violations > 0) v.status = Status::violated;
      if (v.property == "causality" && v.status == Status::holds && !races_unchecked_.empty()) {
        v.status = Status::unknown;  // a race check that did not run is never "holds"
        v.stats["reason_unknown"] = races_unchecked_;
      }
      if (custom_ && (v.property == "exactly-once" || v.property == "postcondition")) v = not_judged(v.property);
    }
    r.stats = std::move(stats_);
    return r;
  }

  StepGraph graph() {
    match();
    order();
    std::vector<int> gpu;
    for (const Op& o : ops_) gpu.push_back(o.gpu);
    return {std::move(gpu), chain_, pos_, succ_, topo_, gpu_chains_};
  }

 private:
  // What needs the collective's postcondition, for coll="custom".
  static Verdict not_judged(const std::string& property) {
    Verdict v;
    v.property = property;
    v.mode = kMode;
    v.status = Status::unknown;
    v.stats["reason_unknown"] = kNotJudged;
    return v;
  }
  Verdict& verdict(const char* name) {
    for (Verdict& v : verdicts_)
      if (v.property == name) return v;
    return verdicts_.front();
  }
  size_t id(int gpu, int tb, int s) const { return base_[gpu][tb] + static_cast<size_t>(s); }
  // Which of two steps a counterexample names when either could: the one
  // whose counterexample comes first (step, then gpu; Counterexample's
  // order), then the threadblock and the program order.
  bool earlier(size_t a, size_t b) const {
    const Op &x = ops_[a], &y = ops_[b];
    return std::make_tuple(x.st->s, x.gpu, x.tb, a) < std::make_tuple(y.st->s, y.gpu, y.tb, b);
  }
  std::string where(size_t v) const {
    const Op& o = ops_[v];
    return step_name(o.gpu, o.tb, o.st->s) + " (line " + std::to_string(o.st->line) + ", " + to_string(o.st->type) + ")";
  }
  Counterexample at(size_t v, std::optional<Block> block, std::optional<int> peer) const {
    const Op& o = ops_[v];
    std::optional<Rank> pr;
    if (peer && *peer >= 0) pr = static_cast<Rank>(*peer);
    return Counterexample::at(static_cast<uint64_t>(p_.ngpus), static_cast<Rank>(o.gpu), o.st->s, block, pr);
  }
  void fail(const char* property, size_t v, std::optional<Block> block, std::optional<int> peer, std::string expected,
            std::string actual, std::string message) {
    Counterexample cx = at(v, block, peer);
    cx.expected = std::move(expected);
    cx.actual = std::move(actual);
    cx.message = where(v) + ": " + message;
    verdict(property).fail(std::move(cx));
  }
  static std::optional<Block> block_of(int64_t off) {
    return off >= 0 ? std::optional<Block>(static_cast<Block>(off)) : std::nullopt;
  }

  // In-place buffers alias as in msccl-tools' collectives.py.
  Cell resolve(int gpu, Buf b, int64_t off) const {
    if (!inplace_) return {b, off};
    const int64_t C = p_.chunk_factor;
    switch (p_.coll) {
      case Collective::allreduce:
      case Collective::alltoall: return b == Buf::output ? Cell{Buf::input, off} : Cell{b, off};
      case Collective::allgather: return b == Buf::input ? Cell{Buf::output, off + gpu * C} : Cell{b, off};
      case Collective::reduce_scatter: return b == Buf::output ? Cell{Buf::input, off + gpu * C} : Cell{b, off};
      case Collective::custom: return {b, off};  // msccl-tools' base Collective aliases nothing
    }
    return {b, off};
  }
  std::vector<Value>& storage(int gpu, Buf b) { return mem_[gpu][static_cast<int>(b)]; }

  // 1a. Each end of a connection belongs to one threadblock: the runtime
  //     keeps one FIFO state per (peer, channel) and direction, so a second
  //     threadblock on it is a program it cannot run (well-formed XML, a
  //     defect of the algorithm).
  void connections_owned() {
    Verdict& m = verdict("matching");
    for (const Gpu& g : p_.gpus) {
      std::map<std::pair<int, int>, int> sender, receiver;  // (peer, chan) -> the first tb on it
      for (const ThreadBlock& tb : g.tbs) {
        own(m, g, tb, tb.send, sender, "send to");
        own(m, g, tb, tb.recv, receiver, "receive from");
      }
    }
  }
  void own(Verdict& m, const Gpu& g, const ThreadBlock& tb, int peer, std::map<std::pair<int, int>, int>& owner,
           const std::string& verb) {
    if (peer < 0) return;
    ++m.checks;
    const auto [it, fresh] = owner.insert({{peer, tb.chan}, tb.id});
    if (fresh) return;
    const ThreadBlock& first = g.tbs[static_cast<size_t>(it->second)];
    const std::string conn = "gpu " + std::to_string(peer) + " on channel " + std::to_string(tb.chan);
    auto name = [&](const ThreadBlock& t) {
      return "tb " + std::to_string(t.id) + " (line " + std::to_string(t.line) + ")";
    };
    Counterexample cx = Counterexample::at(static_cast<uint64_t>(p_.ngpus), static_cast<Rank>(g.id), std::nullopt,
                                           std::nullopt, static_cast<Rank>(peer));
    cx.expected = "one threadblock of gpu " + std::to_string(g.id) + " that may " + verb + " " + conn;
    cx.actual = name(first) + " and " + name(tb);
    cx.message = "gpu " + std::to_string(g.id) + " " + name(first) + " and " + name(tb) + " both " + verb + " " +
                 conn + ": the connection is one FIFO, which the runtime gives to one threadblock, so it cannot run "
                 "this program";
    m.fail(std::move(cx));
  }

  // 1b. FIFO pairing per connection.
  void match() {
    std::map<std::tuple<int, int, int>, std::vector<size_t>> snd, rcv;
    for (size_t v = 0; v < ops_.size(); ++v) {
      const Op& o = ops_[v];
      if (sends(o.st->type)) snd[{o.gpu, o.peer_send, o.chan}].push_back(v);
      if (receives(o.st->type)) rcv[{o.peer_recv, o.gpu, o.chan}].push_back(v);
    }
    partner_.assign(ops_.size(), SIZE_MAX);  // receive -> its send
    Verdict& m = verdict("matching");
    auto conn = [](const std::tuple<int, int, int>& c) {
      return "gpu " + std::to_string(std::get<0>(c)) + " -> gpu " + std::to_string(std::get<1>(c)) + " channel " +
             std::to_string(std::get<2>(c));
    };
    std::set<std::tuple<int, int, int>> keys;
    for (const auto& [k, _] : snd) keys.insert(k);
    for (const auto& [k, _] : rcv) keys.insert(k);
    for (const auto& k : keys) {
      const auto& s = snd[k];
      const auto& r = rcv[k];
      const size_t n = std::max(s.size(), r.size());
      for (size_t i = 0; i < n; ++i) {
        ++m.checks;
        if (i >= r.size()) {
          fail("matching", s[i], block_of(ops_[s[i]].st->srcoff), std::get<1>(k),
               "a receive for message " + std::to_string(i + 1) + " on " + conn(k),
               "gpu " + std::to_string(std::get<1>(k)) + " receives " + std::to_string(r.size()) + " message(s)",
               "sends message " + std::to_string(i + 1) + " on " + conn(k) + ", which no step of gpu " +
                   std::to_string(std::get<1>(k)) + " receives");
          continue;
        }
        if (i >= s.size()) {
          fail("matching", r[i], block_of(ops_[r[i]].st->dstoff), std::get<0>(k),
               "a send for message " + std::to_string(i + 1) + " on " + conn(k),
               "gpu " + std::to_string(std::get<0>(k)) + " sends " + std::to_string(s.size()) + " message(s)",
               "waits for message " + std::to_string(i + 1) + " on " + conn(k) + ", which gpu " +
                   std::to_string(std::get<0>(k)) + " never sends (the receive blocks forever)");
          continue;
        }
        partner_[r[i]] = s[i];
        if (ops_[s[i]].st->cnt != ops_[r[i]].st->cnt)
          fail("matching", r[i], block_of(ops_[r[i]].st->dstoff), std::get<0>(k),
               "cnt=" + std::to_string(ops_[s[i]].st->cnt) + " (the matching send " + where(s[i]) + ")",
               "cnt=" + std::to_string(ops_[r[i]].st->cnt),
               "receives message " + std::to_string(i + 1) + " on " + conn(k) + " with a different chunk count than it was sent");
      }
    }
  }

  // 2. Happens-before: threadblock order, depid/deps, send -> receive.
  //    Kahn's order; what is left waits on a cycle or on a missing send.
  void order() {
    const size_t n = ops_.size();
    succ_.assign(n, {});
    std::vector<uint32_t> indeg(n, 0);
    auto edge = [&](size_t a, size_t b) {
      succ_[a].push_back(b);
      ++indeg[b];
    };
    for (const Gpu& g : p_.gpus)
      for (const ThreadBlock& tb : g.tbs)
        for (const Step& st : tb.steps) {
          const size_t v = id(g.id, tb.id, st.s);
          if (st.s > 0) edge(v - 1, v);
          if (st.depid >= 0) edge(id(g.id, st.depid, st.deps), v);
        }
    for (size_t v = 0; v < n; ++v) {
      if (!receives(ops_[v].st->type)) continue;
      if (partner_[v] != SIZE_MAX) edge(partner_[v], v);
      else ++indeg[v];  // waits for a send that never comes (reported by matching)
    }
    std::deque<size_t> ready;
    for (size_t v = 0; v < n; ++v)
      if (indeg[v] == 0) ready.push_back(v);
    level_.assign(n, 0);
    while (!ready.empty()) {
      const size_t v = ready.front();
      ready.pop_front();
      topo_.push_back(v);
      for (size_t w : succ_[v]) {
        level_[w] = std::max(level_[w], level_[v] + 1);
        if (--indeg[w] == 0) ready.push_back(w);
      }
    }
    done_.assign(n, false);
    for (size_t v : topo_) done_[v] = true;
    Verdict& c = verdict("causality");
    c.checks += n;
    // A cycle among the steps that never complete: deadlock. Find one by
    // walking predecessors that are stuck too (each stuck step with indegree
    // left has a stuck predecessor, unless it waits only for a missing send).
    std::vector<std::vector<size_t>> pred(n);
    for (size_t a = 0; a < n; ++a)
      if (!done_[a])
        for (size_t b : succ_[a])
          if (!done_[b]) pred[b].push_back(a);
    std::vector<int> color(n, 0);  // 0 new, 1 on stack, 2 finished
    std::optional<size_t> best;
    for (size_t s = 0; s < n; ++s) {
      if (done_[s] || color[s]) continue;
      std::vector<std::pair<size_t, size_t>> stack{{s, 0}};
      std::vector<size_t> path{s};
      color[s] = 1;
      while (!stack.empty()) {
        auto& [v, i] = stack.back();
        if (i < pred[v].size()) {
          const size_t w = pred[v][i++];
          if (color[w] == 1) {  // cycle: path from w to v
            auto it = std::find(path.begin(), path.end(), w);
            for (; it != path.end(); ++it)
              if (!best || earlier(*it, *best)) best = *it;
          } else if (color[w] == 0) {
            color[w] = 1;
            stack.push_back({w, 0});
            path.push_back(w);
          }
        } else {
          color[v] = 2;
          stack.pop_back();
          path.pop_back();
        }
      }
    }
    if (best) {
      size_t stuck = 0;
      for (size_t v = 0; v < n; ++v) stuck += !done_[v];
      const Op& o = ops_[*best];
      fail("causality", *best, std::nullopt, std::nullopt, "every step completes",
           std::to_string(stuck) + " step(s) never complete",
           "deadlock: waits on a cycle of threadblock order, dependencies (depid/deps) and receives that includes "
           "itself (tb " + std::to_string(o.tb) + " of gpu " + std::to_string(o.gpu) + ")");
    }
    size_t depth = 0;
    for (size_t v : topo_) depth = std::max<size_t>(depth, level_[v] + 1);
    stats_["depth"] = std::to_string(depth);
  }

  // 2b. The runtime signals only steps with hasdep="1".
  void dependencies_signal() {
    Verdict& c = verdict("causality");
    for (size_t v = 0; v < ops_.size(); ++v) {
      const Step& st = *ops_[v].st;
      if (st.depid < 0) continue;
      ++c.checks;
      const size_t d = id(ops_[v].gpu, st.depid, st.deps);
      if (!ops_[d].st->hasdep)
        fail("causality", v, std::nullopt, std::nullopt, "hasdep=\"1\" on " + where(d), "hasdep=\"0\"",
             "waits for " + where(d) + ", which has hasdep=\"0\" and so never signals: the runtime would wait forever");
    }
  }

  // 3. Simulation in topological order.
  // Input chunks per rank: the collective's, or for custom (no
  // precondition in the file) every chunk of every input buffer.
  int64_t inputs_per_rank() const {
    const int64_t C = p_.chunk_factor, n = p_.ngpus;
    if (custom_) {
      int64_t most = 1;
      for (const Gpu& g : p_.gpus) most = std::max(most, g.i_chunks);
      return most;
    }
    return (p_.coll == Collective::allreduce || p_.coll == Collective::allgather) ? C : n * C;
  }

  void simulate() {
    const int64_t per_rank = inputs_per_rank();
    mem_.assign(p_.ngpus, {});
    writer_.assign(p_.ngpus, {});
    for (const Gpu& g : p_.gpus) {
      storage(g.id, Buf::input).assign(g.i_chunks, {});
      storage(g.id, Buf::output).assign(g.o_chunks, {});
      storage(g.id, Buf::scratch).assign(g.s_chunks, {});
      for (int64_t k = 0; k < (custom_ ? g.i_chunks : per_rank); ++k) {
        Cell c = resolve(g.id, Buf::input, k);
        cell(g.id, c) = Value{true, {static_cast<uint64_t>(g.id) * per_rank + k}};
      }
    }
    per_rank_ = per_rank;
    // Aliased references must stay inside the storage they alias.
    for (size_t v = 0; v < ops_.size(); ++v) {
      const Op& o = ops_[v];
      auto check = [&](Buf b, int64_t off) {
        for (int64_t k = 0; k < o.st->cnt; ++k) {
          Cell c = resolve(o.gpu, b, off + k);
          if (c.off >= static_cast<int64_t>(storage(o.gpu, c.buf).size()))
            throw InputError(p_.path + ":" + std::to_string(o.st->line) + ": " + step_name(o.gpu, o.tb, o.st->s) +
                             ": " + to_string(b) + "[" + std::to_string(off + k) + "] is " + to_string(c.buf) + "[" +
                             std::to_string(c.off) + "] in place, outside gpu " + std::to_string(o.gpu) + "'s " +
                             to_string(c.buf) + " buffer of " + std::to_string(storage(o.gpu, c.buf).size()) + " chunks");
        }
      };
      if (reads_src(o.st->type)) check(o.st->srcbuf, o.st->srcoff);
      if (writes_dst(o.st->type)) check(o.st->dstbuf, o.st->dstoff);
    }
    msg_.assign(ops_.size(), {});
    std::vector<uint64_t> sent(p_.ngpus, 0), received(p_.ngpus, 0);
    uint64_t messages = 0;
    for (size_t v : topo_) {
      const Op& o = ops_[v];
      const Step& st = *o.st;
      const OpType t = st.type;
      std::vector<Value> in;
      if (receives(t)) {
        in = msg_[partner_[v]];
        in.resize(static_cast<size_t>(st.cnt));
        received[o.gpu] += static_cast<uint64_t>(st.cnt);
      }
      std::vector<Value> src;
      if (reads_src(t)) src = read(v, st.srcbuf, st.srcoff, st.cnt);
      std::vector<Value> out;
      if (t == OpType::send || t == OpType::copy) out = src;
      else if (t == OpType::recv || t == OpType::recv_copy_send) out = in;
      else if (t == OpType::reduce) out = combine(v, read(v, st.dstbuf, st.dstoff, st.cnt), src, st.dstoff);
      else if (reduces(t)) out = combine(v, in, src, st.srcoff);
      for (Value& x : out) {  // the value's trail: this step last
        if (x.trail.size() >= kTrail) x.trail.erase(x.trail.begin());
        x.trail.push_back(static_cast<uint32_t>(v));
      }
      if (writes_dst(t)) write(v, st.dstbuf, st.dstoff, out);
      if (sends(t)) {
        msg_[v] = out;
        sent[o.gpu] += static_cast<uint64_t>(st.cnt);
        ++messages;
      }
    }
    stats_["messages"] = std::to_string(messages);
    stats_["max_chunks_sent"] = std::to_string(*std::max_element(sent.begin(), sent.end()));
    stats_["max_chunks_received"] = std::to_string(*std::max_element(received.begin(), received.end()));
    stats_["steps"] = std::to_string(ops_.size());
    size_t tbs = 0;
    for (const Gpu& g : p_.gpus) tbs += g.tbs.size();
    stats_["threadblocks"] = std::to_string(tbs);
  }

  Value& cell(int gpu, const Cell& c) { return storage(gpu, c.buf)[static_cast<size_t>(c.off)]; }

  std::vector<Value> read(size_t v, Buf b, int64_t off, int64_t cnt) {
    const Op& o = ops_[v];
    std::vector<Value> out;
    bool reported = false;
    for (int64_t k = 0; k < cnt; ++k) {
      const Cell c = resolve(o.gpu, b, off + k);
      access_[o.gpu][c].push_back({v, false});
      out.push_back(cell(o.gpu, c));
      ++verdict("causality").checks;
      if (!out.back().has && !reported) {
        reported = true;
        fail("causality", v, block_of(off + k), std::nullopt, "data in " + std::string(to_string(b)) + "[" + std::to_string(off + k) + "]",
             "no data", "reads " + std::string(to_string(b)) + "[" + std::to_string(off + k) + "] of gpu " +
                             std::to_string(o.gpu) + ", which holds no data at that point");
      }
    }
    return out;
  }

  void write(size_t v, Buf b, int64_t off, const std::vector<Value>& vals) {
    const Op& o = ops_[v];
    for (size_t k = 0; k < vals.size(); ++k) {
      const Cell c = resolve(o.gpu, b, off + static_cast<int64_t>(k));
      access_[o.gpu][c].push_back({v, true});
      cell(o.gpu, c) = vals[k];
      writer_[o.gpu][c] = v;
    }
  }

  std::string step_of(size_t v) const { return step_name(ops_[v].gpu, ops_[v].tb, ops_[v].st->s); }
  std::string trail_of(const Value& x) const {
    std::string t;
    for (auto it = x.trail.rbegin(); it != x.trail.rend(); ++it) t += std::string(t.empty() ? "" : " <- ") + step_of(*it);
    return t.empty() ? t : "; one operand came through " + t;
  }

  std::string contribution(uint64_t id) const {
    return "(gpu " + std::to_string(id / per_rank_) + ", chunk " + std::to_string(id % per_rank_) + ")";
  }

  std::vector<Value> combine(size_t v, const std::vector<Value>& a, const std::vector<Value>& b, int64_t off) {
    std::vector<Value> out(std::max(a.size(), b.size()));
    Verdict& e = verdict("exactly-once");
    for (size_t k = 0; k < out.size(); ++k) {
      const Value x = k < a.size() ? a[k] : Value{};
      const Value y = k < b.size() ? b[k] : Value{};
      out[k].has = x.has || y.has;
      out[k].trail = x.has ? x.trail : y.trail;
      std::merge(x.ids.begin(), x.ids.end(), y.ids.begin(), y.ids.end(), std::back_inserter(out[k].ids));
      ++e.checks;
      std::vector<uint64_t> both;
      std::set_intersection(x.ids.begin(), x.ids.end(), y.ids.begin(), y.ids.end(), std::back_inserter(both));
      if (!both.empty())
        fail("exactly-once", v, block_of(off + static_cast<int64_t>(k)), std::nullopt,
             "operands with disjoint contributions", "both hold " + contribution(both.front()),
             "reduces two values that both contain " + contribution(both.front()) + " (" + std::to_string(both.size()) +
                 " shared contribution(s)): it would be counted twice" + trail_of(x));
    }
    return out;
  }

  // 4. Races: two accesses to one chunk, one a write, not ordered by
  //    happens-before. Decided exactly with vector clocks over the gpu's
  //    threadblocks (msccl_clocks.hpp), one gpu at a time, among the steps
  //    that run; what the clock budget or a deadlock leaves out is said.
  void races() {
    std::vector<int> over;  // gpus whose clocks exceed the budget
    uint64_t worst = 0;
    for (const auto& [g, cells] : access_) {
      if (!shares_cells(cells)) continue;  // steps of one threadblock are ordered
      const uint32_t lo = gpu_chains_[g], hi = gpu_chains_[g + 1];
      const uint64_t bytes = 4 * ChainClocks::entries(ops_.size(), hi - lo);
      if (bytes > limits_.max_clock_bytes) {
        over.push_back(g);
        worst = std::max(worst, bytes);
        continue;
      }
      const ChainClocks hb(succ_, topo_, chain_, pos_, lo, hi);
      for (const auto& [cl, acc] : cells) check_cell(g, cl, acc, hb);
    }
    race_coverage(over, worst);
  }

  // Some chunk is touched by two threadblocks, one of them writing.
  bool shares_cells(const std::map<Cell, Accesses>& cells) const {
    for (const auto& [cl, acc] : cells) {
      bool write = false, two = false;
      for (const auto& [v, w] : acc) {
        write = write || w;
        two = two || chain_[v] != chain_[acc.front().first];
      }
      if (write && two) return true;
    }
    return false;
  }

  void race_coverage(const std::vector<int>& over, uint64_t worst) {
    std::string said;
    if (!over.empty()) {
      std::string gpus;
      for (size_t i = 0; i < over.size() && i < 4; ++i) gpus += (i ? ", " : "") + std::to_string(over[i]);
      if (over.size() > 4) gpus += ", ... (" + std::to_string(over.size()) + " gpus)";
      races_unchecked_ = "races not checked on gpu " + gpus + ": its vector clocks (" + std::to_string(ops_.size()) +
                         " steps x the gpu's threadblocks x 4 bytes: " + std::to_string(worst) +
                         " bytes) exceed the budget of " + std::to_string(limits_.max_clock_bytes) + " bytes";
      said = "no (" + races_unchecked_ + ")";
    }
    const size_t stuck = ops_.size() - topo_.size();
    if (stuck > 0)
      said += std::string(said.empty() ? "yes" : ";") + " among the " + std::to_string(topo_.size()) +
              " steps that run; not for the " + std::to_string(stuck) + " steps that never run (deadlock)";
    stats_["races_checked"] = said.empty() ? "yes" : said;
    if (!said.empty()) verdict("causality").stats["races_checked"] = said;
  }

  // The unordered conflicting pairs a linear scan of one chunk's accesses
  // (simulation order, a topological order) finds. None exactly when the
  // chunk is race free: then its writes form a chain and every read lies
  // between the write before it and the write after it, which orders every
  // pair with a write.
  static std::vector<std::pair<size_t, size_t>> scan(const Accesses& acc, const ChainClocks& hb) {
    std::vector<std::pair<size_t, size_t>> bad;
    std::optional<size_t> last_write;
    std::vector<size_t> reads;  // since last_write
    for (const auto& [v, w] : acc) {
      if (last_write && !hb.before(*last_write, v) && *last_write != v) bad.push_back({*last_write, v});
      if (!w) {
        reads.push_back(v);
        continue;
      }
      for (size_t r : reads)
        if (r != v && !hb.before(r, v)) bad.push_back({r, v});
      reads.clear();
      last_write = v;
    }
    return bad;
  }

  // A racy chunk lists every unordered pair (the minimal counterexample
  // among all of them), up to Limits::max_pair_listing accesses; beyond, the
  // pairs of its earliest racing steps (minimal_races).
  void check_cell(int g, const Cell& cl, const Accesses& acc, const ChainClocks& hb) {
    Verdict& c = verdict("causality");
    std::vector<std::pair<size_t, size_t>> bad = scan(acc, hb);
    c.checks += acc.size();
    if (bad.empty()) return;
    if (acc.size() > limits_.max_pair_listing) {
      if (!minimal_races(g, cl, acc, hb))
        for (const auto& [a, b] : bad) race(g, cl, a, b);
      return;
    }
    for (size_t i = 0; i < acc.size(); ++i)
      for (size_t j = i + 1; j < acc.size(); ++j) {
        const auto [a, wa] = acc[i];
        const auto [b, wb] = acc[j];
        if (a == b || (!wa && !wb)) continue;
        ++c.checks;
        if (!hb.before(a, b) && !hb.before(b, a)) race(g, cl, a, b);
      }
  }

  // The minimal counterexample of a racy chunk names the step with the least
  // s that races: every pair of the steps with that s (and their partners)
  // is reported, in counterexample order, until one s has races. False
  // (report the scan's pairs too) past kMaxMinimalSearch comparisons.
  bool minimal_races(int g, const Cell& cl, const Accesses& acc, const ChainClocks& hb) {
    Accesses order = acc;
    std::sort(order.begin(), order.end(), [&](const auto& x, const auto& y) { return earlier(x.first, y.first); });
    uint64_t work = 0;
    std::optional<int> found;  // the s that races
    for (const auto& [x, wx] : order) {
      if (found && ops_[x].st->s != *found) return true;
      for (const auto& [y, wy] : acc) {
        if (++work > kMaxMinimalSearch) return false;
        if (y == x || (!wx && !wy) || hb.before(x, y) || hb.before(y, x)) continue;
        race(g, cl, x, y);
        found = ops_[x].st->s;
      }
    }
    return found.has_value();
  }

  void race(int g, const Cell& cl, size_t a, size_t b) {
    const size_t first = earlier(a, b) ? a : b, second = first == a ? b : a;
    fail("causality", first, block_of(cl.off), std::nullopt,
         "an order (tb order, depid/deps or a message) between the two steps", "none",
         "race on " + std::string(to_string(cl.buf)) + "[" + std::to_string(cl.off) + "] of gpu " + std::to_string(g) +
             " with " + where(second) + ": one writes, and nothing orders them");
  }

  // 5. Outputs against the collective.
  void postcondition() {
    const int64_t C = p_.chunk_factor, n = p_.ngpus;
    Verdict& post = verdict("postcondition");
    Verdict& once = verdict("exactly-once");
    // A reduction that already counted a contribution twice is the cause;
    // the outputs it reaches would only repeat it.
    const bool cause_known = once.violations > 0;
    for (int r = 0; r < p_.ngpus; ++r) {
      const int64_t outs = (p_.coll == Collective::reduce_scatter) ? C : (p_.coll == Collective::allreduce ? C : n * C);
      for (int64_t j = 0; j < outs; ++j) {
        std::vector<uint64_t> want;
        switch (p_.coll) {
          case Collective::allreduce:
            for (int64_t g = 0; g < n; ++g) want.push_back(static_cast<uint64_t>(g * per_rank_ + j));
            break;
          case Collective::reduce_scatter:
            for (int64_t g = 0; g < n; ++g) want.push_back(static_cast<uint64_t>(g * per_rank_ + r * C + j));
            break;
          case Collective::allgather: want.push_back(static_cast<uint64_t>((j / C) * per_rank_ + j % C)); break;
          case Collective::alltoall:
            want.push_back(static_cast<uint64_t>((j / C) * per_rank_ + r * C + j % C));
            break;
          case Collective::custom: return;  // no postcondition (run() does not call this)
        }
        const Cell c = resolve(r, Buf::output, j);
        const Value& got = cell(r, c);
        ++post.checks;
        ++once.checks;
        auto it = writer_[r].find(c);
        const std::string oname = "o[" + std::to_string(j) + "] of gpu " + std::to_string(r);
        auto report = [&](const char* property, std::string expected, std::string actual, std::string what) {
          if (it != writer_[r].end()) {
            std::string trail;
            for (auto t = got.trail.rbegin(); t != got.trail.rend(); ++t)
              if (*t != it->second) trail += std::string(trail.empty() ? "" : " <- ") + step_of(*t);
            fail(property, it->second, static_cast<Block>(j), std::nullopt, std::move(expected), std::move(actual),
                 oname + " ends " + what + " (last written by this step" +
                     (trail.empty() ? std::string() : "; its value came through " + trail) + ")");
          } else {
            Counterexample cx = Counterexample::at(static_cast<uint64_t>(n), static_cast<Rank>(r), std::nullopt,
                                                   static_cast<Block>(j));
            cx.expected = std::move(expected);
            cx.actual = std::move(actual);
            cx.message = oname + " ends " + what + " (no step writes it)";
            verdict(property).fail(std::move(cx));
          }
        };
        auto list = [&](const std::vector<uint64_t>& ids) {
          std::string s;
          for (size_t k = 0; k < ids.size() && k < 4; ++k) s += (k ? " + " : "") + contribution(ids[k]);
          if (ids.size() > 4) s += " + ... (" + std::to_string(ids.size()) + " in all)";
          return ids.empty() ? std::string("no data") : s;
        };
        auto dup = std::adjacent_find(got.ids.begin(), got.ids.end());
        if (dup != got.ids.end()) {
          if (cause_known) continue;
          report("exactly-once", "each contribution once", contribution(*dup) + " more than once",
                 "holding " + contribution(*dup) + " more than once");
          continue;
        }
        if (got.ids != want) {
          std::vector<uint64_t> missing, extra;
          std::set_difference(want.begin(), want.end(), got.ids.begin(), got.ids.end(), std::back_inserter(missing));
          std::set_difference(got.ids.begin(), got.ids.end(), want.begin(), want.end(), std::back_inserter(extra));
          std::string what = missing.empty() ? "" : "without " + list(missing);
          if (!extra.empty()) what += std::string(what.empty() ? "" : " and ") + "with " + list(extra);
          report("postcondition", list(want), list(got.ids), what);
        }
      }
    }
  }

  const Program& p_;
  const Mode mode_;
  const Limits limits_;
  const bool inplace_, custom_;
  std::vector<Op> ops_;
  std::vector<uint32_t> chain_;      // a step's threadblock, numbered over all gpus
  std::vector<int32_t> pos_;         // its s
  std::vector<uint32_t> gpu_chains_;  // gpu g's threadblocks: [gpu_chains_[g], gpu_chains_[g + 1])
  std::string races_unchecked_;      // why races were not checked on some gpu (empty: they were)
  std::vector<std::vector<size_t>> base_;
  std::vector<Verdict> verdicts_;
  std::map<std::string, std::string> stats_;
  std::vector<size_t> partner_;
  std::vector<std::vector<size_t>> succ_;
  std::vector<size_t> topo_, level_;
  std::vector<bool> done_;
  std::vector<std::array<std::vector<Value>, 3>> mem_;
  std::vector<std::map<Cell, size_t>> writer_;
  std::map<int, std::map<Cell, Accesses>> access_;
  std::vector<std::vector<Value>> msg_;
  int64_t per_rank_ = 1;
};

}  // namespace

CheckResult check_program(const Program& p, Mode mode, const Limits& limits) {
  // Bound memory before simulating: chunk cells, chunk accesses, and for the
  // reductions the contributions the cells can hold (up to ngpus each).
  constexpr uint64_t kMaxCells = uint64_t{1} << 24, kMaxAccesses = uint64_t{1} << 24, kMaxIds = uint64_t{1} << 28;
  uint64_t cells = 0, accesses = 0;
  for (const Gpu& g : p.gpus) {
    cells += static_cast<uint64_t>(g.i_chunks + g.o_chunks + g.s_chunks);
    for (const ThreadBlock& tb : g.tbs)
      for (const Step& st : tb.steps) accesses += 2 * static_cast<uint64_t>(st.cnt);
  }
  const bool reduction = p.coll == Collective::allreduce || p.coll == Collective::reduce_scatter ||
                         p.coll == Collective::custom;
  if (cells > kMaxCells || accesses > kMaxAccesses || (reduction && cells * static_cast<uint64_t>(p.ngpus) > kMaxIds))
    throw InputError(p.path + ": too large to simulate chunk by chunk (" + std::to_string(cells) + " buffer chunks, " +
                     std::to_string(accesses / 2) + " chunks moved, " + std::to_string(p.ngpus) +
                     " gpus; limits 2^24 chunks, 2^24 moves, 2^28 chunks x gpus for reductions)");
  return Checker(p, mode, limits).run();
}

CheckResult check_program(const Program& p) {
  const std::vector<Mode> m = modes(p);
  return check_program(p, m.empty() ? Mode::out_of_place : m.front());
}

std::vector<CheckResult> check_modes(const Program& p, const Limits& limits) {
  std::vector<CheckResult> out;
  for (Mode m : modes(p)) out.push_back(check_program(p, m, limits));
  return out;
}

StepGraph step_graph(const Program& p) { return Checker(p, Mode::out_of_place, {}).graph(); }

}  // namespace collcheck::msccl
