#include "runtime/trace/message_trace.hpp"
#include "schedules/int_math.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace collcheck::runtime::trace {

namespace {

constexpr int64_t kSentinel = -7777777777;  // runtime/blackbox/payloads.hpp: kSentinel

struct Message {
  int src = 0, dst = 0, tag = 0;
  size_t send_event = 0, recv_event = 0;
  int step = 0;
  std::vector<Element> elements;  // decoded, empty ones dropped
};

bool reductive(Collective k) {
  return k == Collective::allreduce || k == Collective::reduce || k == Collective::reduce_scatter;
}

std::string rank_list(const std::vector<uint32_t>& counts) {
  std::string s;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) continue;
    s += (s.empty() ? "" : ", ") + std::to_string(k);
    if (counts[k] > 1) s += " (x" + std::to_string(counts[k]) + ")";
  }
  return "{" + s + "}";
}

std::string times(uint32_t n) { return n == 2 ? "a second time" : std::to_string(n) + " times"; }

// A finding and where it sits in time: the smallest key is reported.
struct Finding {
  std::tuple<int, int, size_t> key;  // round, rank, event
  std::string text;
};

}  // namespace

bool Element::empty() const {
  return std::all_of(counts.begin(), counts.end(), [](uint32_t c) { return c == 0; });
}

std::optional<Element> decode(const TraceSpec& s, const int64_t* v, std::string& why) {
  const uint64_t p = s.collective.p;
  Element e;
  e.counts.assign(p, 0);
  if (v[0] == kSentinel) {
    why = "holds the receive sentinel: data no rank had written yet";
    return std::nullopt;
  }
  if (s.encoding == Encoding::tagged_counters) {
    uint64_t total = 0;
    for (uint64_t k = 0; k < p; ++k) {
      if (v[k] < 0 || v[k] > INT32_MAX) {
        why = "counter " + std::to_string(k) + " holds " + std::to_string(v[k]) + ", not a number of contributions";
        return std::nullopt;
      }
      e.counts[k] = static_cast<uint32_t>(v[k]);
      total += static_cast<uint64_t>(v[k]);
    }
    const int64_t tag = v[p];
    if (total == 0) {
      if (tag == 0) return e;  // carries nothing
      why = "tag " + std::to_string(tag) + " without any contribution";
      return std::nullopt;
    }
    if (tag <= 0 || static_cast<uint64_t>(tag) % total != 0 || static_cast<uint64_t>(tag) / total > s.collective.nblocks) {
      why = "tag " + std::to_string(tag) + " is no block's for " + std::to_string(total) + " contributions";
      return std::nullopt;
    }
    e.block = static_cast<uint64_t>(tag) / total - 1;
    return e;
  }
  const uint64_t S = s.source_elements;
  if (v[0] < 0 || S == 0 || static_cast<uint64_t>(v[0]) >= p * S) {
    why = "holds " + std::to_string(v[0]) + ", no rank's element";
    return std::nullopt;
  }
  const uint64_t origin = static_cast<uint64_t>(v[0]) / S, j = static_cast<uint64_t>(v[0]) % S;
  if (s.collective.kind == Collective::broadcast && origin != s.collective.root) {
    why = "holds rank " + std::to_string(origin) + "'s element " + std::to_string(j) + ", but only the root's are sent";
    return std::nullopt;
  }
  e.block = s.collective.kind == Collective::allgather ? origin * S + j : j;
  e.counts[origin] = 1;
  return e;
}

TraceReport analyze(const TraceSpec& spec, const std::vector<std::vector<Event>>& events,
                    const std::vector<Result>& results) {
  const CollectiveSpec& cs = spec.collective;
  const uint64_t p = cs.p, nb = cs.nblocks, W = spec.width();
  TraceReport rep;
  auto who = [](const Event& e, int r) {
    return "rank " + std::to_string(r) + "'s " + (e.kind == Event::Kind::send ? "send to" : "receive from") +
           " rank " + std::to_string(e.peer) + " (tag " + std::to_string(e.tag) + ", " + std::to_string(e.elements) +
           " elements)";
  };

  // 1. Every message readable.
  for (int r = 0; r < static_cast<int>(p); ++r)
    for (const Event& e : events[static_cast<size_t>(r)]) {
      if (e.peer < 0 || static_cast<uint64_t>(e.peer) >= p) {
        rep.untraceable = who(e, r) + " names no rank of the collective's communicator";
        return rep;
      }
      if (e.peer == r) {
        rep.untraceable = who(e, r) + " is a message to itself, which the schedule model has no transfer for";
        return rep;
      }
      if (!e.same_comm) {
        rep.untraceable = who(e, r) + " is on another communicator than the collective's (collcheck traces only that one "
                                     "and congruent duplicates of it)";
        return rep;
      }
      if (!e.payload_type) {
        rep.untraceable = who(e, r) + " is in another datatype than the collective was called with, so what it carries "
                                     "cannot be read";
        return rep;
      }
      if (e.kind == Event::Kind::recv && e.data.size() != e.elements * W) {
        rep.untraceable = who(e, r) + ": the recorder kept " + std::to_string(e.data.size()) + " values, expected " +
                          std::to_string(e.elements * W);
        return rep;
      }
    }

  // 2. Matching: per (source, destination, tag), in the order sends were
  // posted and receives were posted (MPI's non-overtaking rule).
  std::vector<Message> msgs;
  std::vector<std::vector<size_t>> msg_of(p);
  std::map<std::tuple<int, int, int>, std::deque<size_t>> pending;  // (src, dst, tag) -> send event indices
  for (int r = 0; r < static_cast<int>(p); ++r) {
    const auto& ev = events[static_cast<size_t>(r)];
    msg_of[static_cast<size_t>(r)].assign(ev.size(), SIZE_MAX);
    for (size_t i = 0; i < ev.size(); ++i)
      if (ev[i].kind == Event::Kind::send) pending[{r, ev[i].peer, ev[i].tag}].push_back(i);
  }
  for (int d = 0; d < static_cast<int>(p); ++d) {
    const auto& ev = events[static_cast<size_t>(d)];
    std::vector<size_t> recvs;
    for (size_t i = 0; i < ev.size(); ++i)
      if (ev[i].kind == Event::Kind::recv) recvs.push_back(i);
    std::stable_sort(recvs.begin(), recvs.end(), [&](size_t a, size_t b) { return ev[a].posted < ev[b].posted; });
    for (size_t i : recvs) {
      auto& q = pending[{ev[i].peer, d, ev[i].tag}];
      if (q.empty()) {
        rep.untraceable = who(ev[i], d) + " matches no traced send of rank " + std::to_string(ev[i].peer);
        return rep;
      }
      Message m;
      m.src = ev[i].peer, m.dst = d, m.tag = ev[i].tag;
      m.send_event = q.front(), m.recv_event = i;
      q.pop_front();
      const Event& s = events[static_cast<size_t>(m.src)][m.send_event];
      if (s.elements != ev[i].elements) {
        rep.untraceable = who(s, m.src) + " arrived as " + std::to_string(ev[i].elements) + " elements";
        return rep;
      }
      msg_of[static_cast<size_t>(m.src)][m.send_event] = msgs.size();
      msg_of[static_cast<size_t>(d)][i] = msgs.size();
      msgs.push_back(std::move(m));
    }
  }
  for (const auto& [key, q] : pending)
    if (!q.empty()) {
      const int s = std::get<0>(key);
      rep.untraceable = who(events[static_cast<size_t>(s)][q.front()], s) +
                        " was never received (or its receive was completed by a call collcheck does not trace: "
                        "MPI_Waitsome, MPI_Testany, MPI_Testall, MPI_Testsome, probes)";
      return rep;
    }
  rep.messages = msgs.size();
  if (msgs.empty() && p > 1) {
    rep.untraceable = "no message passed through the traced point-to-point calls: the collective moved its data by other "
                      "means (an MPI library's own collectives call its internals, not MPI_Send), so it cannot be traced";
    return rep;
  }

  // 3. Rounds: the least fixed point of the per-rank order constraints.
  for (size_t iter = 0;; ++iter) {
    if (iter > msgs.size() + 1) {
      rep.untraceable = "no numbering of rounds fits the order in which the ranks sent and received";
      return rep;
    }
    bool changed = false;
    for (uint64_t r = 0; r < p; ++r) {
      int lo_send = 0, lo_recv = 0;  // the least round of the rank's next send / receive
      const auto& ev = events[r];
      for (size_t i = 0; i < ev.size(); ++i) {
        Message& m = msgs[msg_of[r][i]];
        const bool send = ev[i].kind == Event::Kind::send;
        const int need = send ? lo_send : lo_recv;
        if (m.step < need) m.step = need, changed = true;
        lo_recv = std::max(lo_recv, m.step);
        lo_send = std::max(lo_send, send ? m.step : m.step + 1);
      }
    }
    if (!changed) break;
  }
  for (const Message& m : msgs) rep.rounds = std::max(rep.rounds, m.step + 1);

  auto message_name = [](const Message& m) {
    return "rank " + std::to_string(m.src) + "'s message to rank " + std::to_string(m.dst) + " in round " +
           std::to_string(m.step) + " (tag " + std::to_string(m.tag) + ")";
  };
  std::vector<Finding> findings;
  auto note = [&](int round, int rank, size_t event, std::string text) {
    findings.push_back({{round, rank, event}, std::move(text)});
  };
  auto first = [&]() -> std::optional<std::string> {
    if (findings.empty()) return std::nullopt;
    return std::min_element(findings.begin(), findings.end(),
                            [](const Finding& a, const Finding& b) { return a.key < b.key; })
        ->text;
  };

  // 4. What every message carries.
  bool readable = true;
  for (Message& m : msgs) {
    const Event& rv = events[static_cast<size_t>(m.dst)][m.recv_event];
    std::vector<bool> seen(nb, false);
    for (uint64_t i = 0; i < rv.elements; ++i) {
      std::string why;
      auto e = decode(spec, rv.data.data() + i * W, why);
      if (!e) {
        note(m.step, m.src, m.send_event, message_name(m) + ", its element " + std::to_string(i) + ": " + why);
        readable = false;
        break;
      }
      if (e->empty()) continue;
      if (seen[e->block]) {
        note(m.step, m.src, m.send_event, message_name(m) + " carries element " + std::to_string(e->block) + " twice");
        readable = false;
        break;
      }
      seen[e->block] = true;
      for (uint64_t k = 0; k < p; ++k)
        if (e->counts[k] > 1) {
          note(m.step, m.src, m.send_event,
               message_name(m) + " carries rank " + std::to_string(k) + "'s contribution to element " +
                   std::to_string(e->block) + " " + times(e->counts[k]));
          break;
        }
      m.elements.push_back(std::move(*e));
    }
  }
  rep.defect = first();
  if (!readable) {
    rep.untraceable = "a message carries no element of the payload (the defect above)";
    return rep;
  }
  findings.clear();

  // 5. The model, step by step, checked against every message.
  if (sat_mul(sat_mul(p, p), nb) > (uint64_t{1} << 26)) {
    rep.untraceable = "too large to model: p^2 x blocks = " + std::to_string(sat_mul(sat_mul(p, p), nb)) +
                      " counters (at most 2^26; trace a smaller count)";
    return rep;
  }
  std::vector<uint32_t> st(p * nb * p, 0);
  auto at = [&](uint64_t r, uint64_t b) { return st.data() + (r * nb + b) * p; };
  for (uint64_t r = 0; r < p; ++r)
    for (uint64_t b = 0; b < nb; ++b)
      if (auto c = cs.initial_contributor(static_cast<Rank>(r), static_cast<Block>(b))) at(r, b)[*c] = 1;
  std::vector<std::vector<size_t>> by_step(static_cast<size_t>(rep.rounds));
  for (size_t i = 0; i < msgs.size(); ++i) by_step[static_cast<size_t>(msgs[i].step)].push_back(i);
  rep.schedule.spec = cs;
  rep.schedule.steps.assign(static_cast<size_t>(rep.rounds), std::vector<RankStep>(p));
  bool faithful = true;
  const bool reduction = reductive(cs.kind);
  // What rank d is next seen holding for block b after round s: its next
  // send of b, else its result (nullptr: never seen again).
  std::vector<std::vector<size_t>> sends_of(p);
  for (size_t i = 0; i < msgs.size(); ++i) sends_of[static_cast<size_t>(msgs[i].src)].push_back(i);
  for (auto& v : sends_of)
    std::sort(v.begin(), v.end(), [&](size_t a, size_t b) {
      return std::tie(msgs[a].step, msgs[a].send_event) < std::tie(msgs[b].step, msgs[b].send_event);
    });
  auto next_seen = [&](int d, int s, Block b) -> std::optional<std::vector<uint32_t>> {
    for (size_t id : sends_of[static_cast<size_t>(d)]) {
      if (msgs[id].step <= s) continue;
      for (const Element& e : msgs[id].elements)
        if (e.block == b) return e.counts;
    }
    if (static_cast<size_t>(d) < results.size()) {
      const Result& res = results[static_cast<size_t>(d)];
      for (size_t i = 0; i < res.blocks.size(); ++i)
        if (res.blocks[i] == b) {
          std::string why;
          if (auto e = decode(spec, res.data.data() + i * W, why)) return e->counts;
        }
    }
    return std::nullopt;
  };
  for (int s = 0; s < rep.rounds; ++s) {
    auto& ids = by_step[static_cast<size_t>(s)];
    for (size_t id : ids) {  // sends carry what the sender held before the step
      const Message& m = msgs[id];
      for (const Element& e : m.elements) {
        const uint32_t* held = at(static_cast<uint64_t>(m.src), e.block);
        if (std::equal(e.counts.begin(), e.counts.end(), held)) continue;
        note(s, m.src, m.send_event,
             message_name(m) + " carries the contributions " + rank_list(e.counts) + " for element " +
                 std::to_string(e.block) + ", but the messages rank " + std::to_string(m.src) + " had received by then give " +
                 rank_list(std::vector<uint32_t>(held, held + p)) + ": rank " + std::to_string(m.src) +
                 " changed its data between messages (a lost or extra local combine, or data moved outside the "
                 "traced point-to-point messages, e.g. by a collective inside the implementation)");
        faithful = false;
        break;
      }
    }
    // receives apply after the step, in each receiver's order
    std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) {
      return std::tie(msgs[a].dst, msgs[a].recv_event) < std::tie(msgs[b].dst, msgs[b].recv_event);
    });
    for (size_t id : ids) {
      const Message& m = msgs[id];
      std::vector<Block> copied, reduced;
      for (const Element& e : m.elements) {
        uint32_t* held = at(static_cast<uint64_t>(m.dst), e.block);
        bool disjoint = true, contains = true;
        for (uint64_t k = 0; k < p; ++k) {
          disjoint = disjoint && (held[k] == 0 || e.counts[k] == 0);
          contains = contains && e.counts[k] >= held[k];
        }
        // Overlapping data that contains what is held: copied over it, unless
        // the rank is next seen holding both (reduced: counted twice).
        // Disjoint data: reduced into it, unless the rank is next seen holding
        // the message's contributions alone (copied over a partial result it
        // held: an allgather copy over an incompletely reduced block).
        bool reduce = reduction && (disjoint || !contains);
        if (reduction && !reduce) {
          std::vector<uint32_t> sum(held, held + p);
          for (uint64_t k = 0; k < p; ++k) sum[k] += e.counts[k];
          reduce = next_seen(m.dst, s, e.block) == sum;
        } else if (reduction && disjoint && std::any_of(held, held + p, [](uint32_t c) { return c != 0; })) {
          reduce = next_seen(m.dst, s, e.block) != e.counts;
        }
        for (uint64_t k = 0; k < p; ++k) held[k] = reduce ? held[k] + e.counts[k] : e.counts[k];
        (reduce ? reduced : copied).push_back(e.block);
      }
      for (auto [blocks, mode] : {std::pair{&copied, Combine::copy}, std::pair{&reduced, Combine::reduce}}) {
        if (blocks->empty()) continue;
        const BlockSet set = BlockSet::from_blocks(*blocks);
        auto& step = rep.schedule.steps[static_cast<size_t>(s)];
        step[static_cast<size_t>(m.src)].sends.push_back({static_cast<Rank>(m.dst), set, mode});
        step[static_cast<size_t>(m.dst)].recvs.push_back({static_cast<Rank>(m.src), set, mode});
      }
    }
  }

  // 6. Every result against what the messages gave.
  for (uint64_t r = 0; r < p && r < results.size(); ++r) {
    const Result& res = results[r];
    for (size_t i = 0; i < res.blocks.size(); ++i) {
      std::string why;
      auto e = decode(spec, res.data.data() + i * W, why);
      const uint32_t* held = at(r, res.blocks[i]);
      const std::string el = "rank " + std::to_string(r) + "'s result for element " + std::to_string(res.blocks[i]);
      if (!e) {
        note(rep.rounds, static_cast<int>(r), SIZE_MAX, el + " " + why);
        break;
      }
      if (e->empty() && std::all_of(held, held + p, [](uint32_t c) { return c == 0; })) continue;
      if (!e->empty() && e->block != res.blocks[i]) {
        note(rep.rounds, static_cast<int>(r), SIZE_MAX,
             el + " holds element " + std::to_string(e->block) + "'s data: stored in the wrong place");
        break;
      }
      if (std::equal(e->counts.begin(), e->counts.end(), held)) continue;
      std::string extra;
      for (uint64_t k = 0; k < p && extra.empty(); ++k)
        if (e->counts[k] > held[k] && held[k] > 0)
          extra = " (rank " + std::to_string(k) + "'s contribution added again locally)";
      note(rep.rounds, static_cast<int>(r), SIZE_MAX,
           el + " holds " + rank_list(e->counts) + ", but the messages it received give " +
               rank_list(std::vector<uint32_t>(held, held + p)) + ": it changed after or outside the traced messages" +
               extra);
      break;
    }
  }
  if (!faithful) {
    rep.untraceable = first();
    rep.schedule = {};
    return rep;
  }
  rep.local_change = first();
  int ports = 1;
  for (const auto& step : rep.schedule.steps)
    for (const RankStep& rs : step)
      ports = std::max({ports, static_cast<int>(rs.sends.size()), static_cast<int>(rs.recvs.size())});
  rep.schedule.ports = ports;
  return rep;
}

}  // namespace collcheck::runtime::trace
