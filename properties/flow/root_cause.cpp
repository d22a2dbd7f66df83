#include "properties/flow/root_cause.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "properties/flow/flow_common.hpp"
#include "properties/matching.hpp"
#include "properties/postcondition.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

template <class T>
T sat_add(T a, T b) {
  return a > std::numeric_limits<T>::max() - b ? std::numeric_limits<T>::max() : static_cast<T>(a + b);
}

std::string step_text(int t) { return t < 0 ? "from the start" : "after step " + std::to_string(t); }

// One applied receive of the traced block.
struct Edge {
  Rank src, dst;
  Combine combine;
};

// One listed transfer of a step, any blocks: every send, and every receive
// that no send matches exactly (a matched receive is its send's link).
struct Link {
  Rank src, dst;
  bool send;     // listed by the sender
  bool carries;  // a send: it carries the traced block; a receive: it lists it, and the block does not arrive
                 // as the schedule says (from no send, or from a send another identical receive has)
  bool excess = false;  // a receive: one of more identical receives than the peer lists identical sends
};

// The flow graph of one block (root_cause.hpp): node (t, q) for t = -1..last.
class BlockFlow {
 public:
  BlockFlow(const Schedule& s, Block b) : s_(s), p_(s.p()), b_(b), steps_(s.num_steps()) {}

  uint64_t p() const { return p_; }
  int steps() const { return steps_; }
  size_t nodes() const { return static_cast<size_t>(steps_ + 1) * p_; }
  size_t node(int t, Rank q) const { return static_cast<size_t>(t + 1) * p_ + q; }

  // Every rank's transfers of step t (in parallel), into ops.
  void generate(int t, std::vector<RankStep>& ops) const {
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
      for (Rank q = rr.begin(); q != rr.end(); ++q) s_.rank_step(q, t, ops[q]);
    });
  }

  // Generates every step once: the applied receives of the block, every
  // listed transfer and every rank's number of sends and receives. False
  // (with `why`) above the limits.
  bool build(const RootCauseLimits& lim, std::string& why) {
    if (nodes() > lim.max_nodes) {
      why = "p * (steps + 1) = " + std::to_string(nodes()) + " trace cells exceed the trace's limit of " +
            std::to_string(lim.max_nodes);
      return false;
    }
    const ScheduleShape shape = s_.shape();
    const EquivariantSchedule* eq = shape.group;
    if (eq && lim.by_symmetry && build_by_symmetry(*eq, lim, why)) return true;
    if (!why.empty()) return false;
    if (shape.kind == ScheduleShape::Kind::extra_rank && lim.by_symmetry) {
      if (build_extra_node(*shape.core, lim, why)) return true;
      if (!why.empty()) return false;
    }
    if (!lim.allow_generation) {
      why = "no build from symmetry covers this schedule, and generating every rank's steps is not allowed";
      return false;
    }
    if (eq) {
      // Every rank's steps are rank 0's mapped block by block: count the
      // blocks rank 0 lists before mapping any (stops at the limit).
      RankStep rep;
      uint64_t per_rank = 0;
      const uint64_t cap = lim.max_block_images / std::max<uint64_t>(p_, 1) + 1;
      for (int t = 0; t < steps_ && per_rank < cap; ++t) {
        eq->representative_step(t, rep);
        for (const auto* list : {&rep.sends, &rep.recvs})
          for (const Transfer& x : *list) per_rank += x.blocks.size();
      }
      if (per_rank >= cap || per_rank * p_ > lim.max_block_images) {
        why = "every rank's steps would map about " + std::to_string(p_) + " x " + std::to_string(per_rank) +
              (per_rank >= cap ? "+" : "") + " blocks (rank 0's, by the group action), beyond the trace's limit of " +
              std::to_string(lim.max_block_images) + " (the quotient decided the instance from rank 0 alone)";
        return false;
      }
    }
    std::vector<RankStep> ops(p_);
    std::vector<const Transfer*> order;
    begin_graph();
    for (int t = 0; t < steps_; ++t) {
      generate(t, ops);
      for (Rank q = 0; q < p_; ++q) {
        nsend_[node(t, q)] = listed(ops[q].sends.size());
        nrecv_[node(t, q)] = listed(ops[q].recvs.size());
        for (const Transfer& x : ops[q].sends)
          if (x.peer < p_ && x.peer != q) links_.push_back({q, x.peer, true, x.blocks.contains(b_)});
        flow::canonical_receive_order(ops[q].recvs, order);
        size_t run = 0;  // order[run..] are the receives from the current peer
        for (size_t i = 0; i < order.size(); ++i) {
          const Transfer* x = order[i];
          if (order[run]->peer != x->peer) run = i;
          if (x->peer >= p_ || x->peer == q) continue;
          // As the checkers apply it (for_each_delivery): a matched receive
          // brings its send's blocks, an unmatched one those both ends list.
          const auto& sends = ops[x->peer].sends;
          const bool wanted = x->blocks.contains(b_);
          bool matched = false;
          size_t arrivals = 0;
          for_each_delivery(sends, ops[q].recvs, q, *x, [&](size_t i, bool whole) {
            matched = matched || whole;
            arrivals += wanted && sends[i].blocks.contains(b_);
          });
          if (!matched) links_.push_back({x->peer, q, false, wanted && arrivals == 0});
          // The checkers let identical receives share one send, so the k-th
          // of them beyond the peer's identical sends gets a copy no send
          // provides: matching fails there, and so does what it brings.
          if (matched && i > run && excess_receive(order, run, i, sends, q))
            links_.push_back({x->peer, q, false, wanted, true});
          for (size_t k = 0; k < arrivals; ++k) edges_.push_back({x->peer, q, x->combine});
        }
        if (!within_entries(lim, why)) return false;
      }
      end_step();
    }
    return true;
  }

  // The same graph from rank 0's steps alone, for an equivariant schedule
  // whose receives are all matched: rank q's step is g_q of rank 0's (the
  // schedule's construction; the group acts regularly, g_q g_y = g_{g_q(y)}),
  // so its transfers go to g_q of rank 0's peers, in rank 0's order, and
  // carry block b iff rank 0's carry g_q^{-1}(b); rank q's receive from
  // g_q(y) is matched iff rank 0's from y is (checked by generating rank
  // 0's peers' steps). No block set is mapped: O(p) per step. False with an
  // empty `why`: not applicable (an unmatched receive), build() generates.
  bool build_by_symmetry(const EquivariantSchedule& eq, const RootCauseLimits& lim, std::string& why) {
    const GroupAction& g = eq.action();
    std::vector<RankStep> rep(static_cast<size_t>(steps_));
    RankStep peer_step;
    for (int t = 0; t < steps_; ++t) {
      eq.representative_step(t, rep[static_cast<size_t>(t)]);
      for (const Transfer& x : rep[static_cast<size_t>(t)].recvs) {
        if (x.peer >= p_ || x.peer == 0) continue;
        eq.rank_step(x.peer, t, peer_step);
        if (!find_transfer(peer_step.sends, 0, x.blocks, x.combine)) return false;
      }
    }
    begin_graph();
    struct Receive {
      Rank peer;
      Combine combine;
      bool carries;
    };
    // Whether a transfer of rank 0 carries a block, asked p times per
    // transfer: its blocks as a bitmap over the block space when all of them
    // fit in lim.max_membership_bits (a word read instead of a binary search
    // over the set's ranges, which for Swing's scattered sets was most of
    // the trace), else the set itself.
    const uint64_t nb = s_.num_blocks();
    uint64_t listed_transfers = 0;
    for (const RankStep& r0 : rep) listed_transfers += r0.sends.size() + r0.recvs.size();
    const bool bitmaps = nb > 0 && listed_transfers <= lim.max_membership_bits / nb;
    const size_t words = bitmaps ? static_cast<size_t>((nb + 63) / 64) : 0;
    std::vector<uint64_t> bits;
    auto build_bits = [&](const std::vector<Transfer>& xs) {
      bits.assign(xs.size() * words, 0);
      for (size_t k = 0; k < xs.size(); ++k)
        for (const BlockSet::Range& r : xs[k].blocks.ranges())
          for (Block x = r.lo; x < std::min<Block>(r.hi, nb); ++x) bits[k * words + x / 64] |= uint64_t{1} << (x % 64);
    };
    std::vector<uint64_t> send_bits;
    auto carries = [&](const std::vector<uint64_t>& in, size_t k, const Transfer& x, Block source) {
      if (!bitmaps) return x.blocks.contains(source);
      return source < nb && (in[k * words + source / 64] >> (source % 64) & 1) != 0;
    };
    std::vector<Receive> mine;
    for (int t = 0; t < steps_; ++t) {
      const RankStep& r0 = rep[static_cast<size_t>(t)];
      if (bitmaps) {
        build_bits(r0.sends);
        send_bits.swap(bits);
        build_bits(r0.recvs);
      }
      for (Rank q = 0; q < p_; ++q) {
        nsend_[node(t, q)] = listed(r0.sends.size());
        nrecv_[node(t, q)] = listed(r0.recvs.size());
        const Block source = g.inverse_block(q, b_);  // rank 0's block that g_q maps to b
        for (size_t k = 0; k < r0.sends.size(); ++k) {
          const Transfer& x = r0.sends[k];
          const Rank peer = g.rank(q, x.peer);
          if (peer < p_ && peer != q) links_.push_back({q, peer, true, carries(send_bits, k, x, source)});
        }
        mine.clear();
        for (size_t k = 0; k < r0.recvs.size(); ++k) {
          const Transfer& x = r0.recvs[k];
          mine.push_back({g.rank(q, x.peer), x.combine, carries(bits, k, x, source)});
        }
        if (mine.size() > 1)  // flow::canonical_receive_order on the mapped peers
          std::stable_sort(mine.begin(), mine.end(), [](const Receive& a, const Receive& c) {
            return std::tie(a.peer, a.combine) < std::tie(c.peer, c.combine);
          });
        for (const Receive& x : mine)
          if (x.peer < p_ && x.peer != q && x.carries) edges_.push_back({x.peer, q, x.combine});
        if (q % 4096 == 4095 && !within_entries(lim, why)) return false;  // every 4096 ranks: past the limit by little
      }
      if (!within_entries(lim, why)) return false;
      end_step();
    }
    return true;
  }

  // The same graph for an extra rank beside a core (ScheduleShape::
  // extra_rank; Swing's odd-p scheme, swing_odd_extra_node.hpp)
  // without generating every ring rank's step: a ring rank lists its ring's
  // step, g_q of rank 0's (the ring's equivariant construction, as
  // build_by_symmetry reads it), then the mirror of the extra rank's
  // exchange with it (the schedule's construction: SwingOddExtraNode::
  // rank_step); the extra rank's steps are generated (one block each way
  // with each ring rank it serves). Every receive is matched: the ring's as
  // build_by_symmetry checks, the exchange's by its mirror. False with an
  // empty `why`: not applicable, build() generates.
  bool build_extra_node(const Schedule& core, const RootCauseLimits& lim, std::string& why) {
    const EquivariantSchedule* ring = core.shape().group;
    if (!ring || ring->p() + 1 != p_ || ring->num_steps() != steps_) return false;
    const GroupAction& g = ring->action();
    const uint64_t m = ring->p(), nb = ring->num_blocks();
    const auto x = static_cast<Rank>(m);
    std::vector<RankStep> rep(static_cast<size_t>(steps_)), extra(static_cast<size_t>(steps_));
    RankStep peer_step;
    for (int t = 0; t < steps_; ++t) {
      ring->representative_step(t, rep[static_cast<size_t>(t)]);
      for (const Transfer& y : rep[static_cast<size_t>(t)].recvs) {
        if (y.peer >= m || y.peer == 0) continue;
        ring->rank_step(y.peer, t, peer_step);
        if (!find_transfer(peer_step.sends, 0, y.blocks, y.combine)) return false;
      }
      s_.rank_step(x, t, extra[static_cast<size_t>(t)]);
      for (const auto* list : {&extra[static_cast<size_t>(t)].sends, &extra[static_cast<size_t>(t)].recvs})
        for (const Transfer& y : *list)
          if (y.peer >= m) return false;
    }
    begin_graph();
    struct Receive {
      Rank peer;
      Combine combine;
      bool carries;
    };
    size_t most = 0;  // rank 0's transfers in one step
    for (const RankStep& r0 : rep) most = std::max(most, r0.sends.size() + r0.recvs.size());
    const bool bitmaps = nb > 0 && most <= lim.max_membership_bits / nb;
    const size_t words = bitmaps ? static_cast<size_t>((nb + 63) / 64) : 0;
    auto build_bits = [&](const std::vector<Transfer>& xs, std::vector<uint64_t>& bits) {
      bits.assign(xs.size() * words, 0);
      for (size_t k = 0; k < xs.size(); ++k)
        for (const BlockSet::Range& r : xs[k].blocks.ranges())
          for (Block y = r.lo; y < std::min<Block>(r.hi, nb); ++y) bits[k * words + y / 64] |= uint64_t{1} << (y % 64);
    };
    std::vector<uint64_t> send_bits, recv_bits;
    auto carries = [&](const std::vector<uint64_t>& in, size_t k, const Transfer& y, Block source) {
      if (!bitmaps) return y.blocks.contains(source);
      return source < nb && (in[k * words + source / 64] >> (source % 64) & 1) != 0;
    };
    // The extra rank's exchange, by ring rank: its send to j (which j
    // receives) and its receive from j (which j sends), this step.
    std::vector<std::vector<const Transfer*>> to_ring(m), from_ring(m);
    std::vector<Receive> mine;
    for (int t = 0; t < steps_; ++t) {
      const RankStep& r0 = rep[static_cast<size_t>(t)];
      const RankStep& e = extra[static_cast<size_t>(t)];
      if (bitmaps) {
        build_bits(r0.sends, send_bits);
        build_bits(r0.recvs, recv_bits);
      }
      for (auto& v : to_ring) v.clear();
      for (auto& v : from_ring) v.clear();
      for (const Transfer& y : e.sends) to_ring[y.peer].push_back(&y);
      for (const Transfer& y : e.recvs) from_ring[y.peer].push_back(&y);
      for (Rank q = 0; q < m; ++q) {
        nsend_[node(t, q)] = listed(r0.sends.size() + from_ring[q].size());
        nrecv_[node(t, q)] = listed(r0.recvs.size() + to_ring[q].size());
        const Block source = b_ < nb ? g.inverse_block(q, b_) : nb;  // rank 0's block that g_q maps to b
        for (size_t k = 0; k < r0.sends.size(); ++k) {
          const Rank peer = g.rank(q, r0.sends[k].peer);
          if (peer < m && peer != q) links_.push_back({q, peer, true, carries(send_bits, k, r0.sends[k], source)});
        }
        for (const Transfer* y : from_ring[q]) links_.push_back({q, x, true, y->blocks.contains(b_)});
        mine.clear();
        for (size_t k = 0; k < r0.recvs.size(); ++k)
          mine.push_back({g.rank(q, r0.recvs[k].peer), r0.recvs[k].combine, carries(recv_bits, k, r0.recvs[k], source)});
        for (const Transfer* y : to_ring[q]) mine.push_back({x, y->combine, y->blocks.contains(b_)});
        if (mine.size() > 1)  // flow::canonical_receive_order on the peers
          std::stable_sort(mine.begin(), mine.end(), [](const Receive& a, const Receive& c) {
            return std::tie(a.peer, a.combine) < std::tie(c.peer, c.combine);
          });
        for (const Receive& y : mine)
          if (y.peer < p_ && y.peer != q && y.carries) edges_.push_back({y.peer, q, y.combine});
        if (q % 4096 == 4095 && !within_entries(lim, why)) return false;
      }
      // The extra rank: its own steps.
      nsend_[node(t, x)] = listed(e.sends.size());
      nrecv_[node(t, x)] = listed(e.recvs.size());
      for (const Transfer& y : e.sends) links_.push_back({x, y.peer, true, y.blocks.contains(b_)});
      mine.clear();
      for (const Transfer& y : e.recvs) mine.push_back({y.peer, y.combine, y.blocks.contains(b_)});
      std::stable_sort(mine.begin(), mine.end(), [](const Receive& a, const Receive& c) {
        return std::tie(a.peer, a.combine) < std::tie(c.peer, c.combine);
      });
      for (const Receive& y : mine)
        if (y.carries) edges_.push_back({y.peer, x, y.combine});
      if (!within_entries(lim, why)) return false;
      end_step();
    }
    return true;
  }

  // Whether order[i] is an identical receive beyond the peer's identical
  // sends to q (order[run..i) are q's earlier receives from that peer).
  static bool excess_receive(const std::vector<const Transfer*>& order, size_t run, size_t i,
                             const std::vector<Transfer>& peer_sends, Rank q) {
    const Transfer& x = *order[i];
    auto same = [&](const Transfer& y) { return y.combine == x.combine && y.blocks == x.blocks; };
    size_t before = 0, sent = 0;
    for (size_t j = run; j < i; ++j) before += same(*order[j]);
    if (before == 0) return false;
    for (const Transfer& y : peer_sends) sent += y.peer == q && same(y);
    return before >= sent;
  }

  // The graph-building steps both builds share.
  void begin_graph() {
    off_.assign(1, 0);
    link_off_.assign(1, 0);
    nsend_.assign(nodes(), 0);
    nrecv_.assign(nodes(), 0);
  }
  static uint16_t listed(size_t n) { return static_cast<uint16_t>(std::min<size_t>(n, UINT16_MAX)); }
  bool within_entries(const RootCauseLimits& lim, std::string& why) const {
    if (edges_.size() + links_.size() <= lim.max_entries) return true;
    why = "more than " + std::to_string(lim.max_entries) + " transfers and receives of block " + std::to_string(b_) +
          " exceed the trace's limit";
    return false;
  }
  // Closes a step: its receives end here, its links sorted by (src, dst).
  void end_step() {
    off_.push_back(edges_.size());
    // Both builds list a step's links rank by rank: usually in order already.
    auto by_ends = [](const Link& x, const Link& y) { return std::tie(x.src, x.dst) < std::tie(y.src, y.dst); };
    const auto first = links_.begin() + static_cast<std::ptrdiff_t>(link_off_.back());
    if (!std::is_sorted(first, links_.end(), by_ends)) std::sort(first, links_.end(), by_ends);
    link_off_.push_back(links_.size());
  }

  // Step t's listed transfers, by (src, dst).
  std::pair<const Link*, const Link*> links(int t) const {
    return {links_.data() + link_off_[t], links_.data() + link_off_[t + 1]};
  }
  // Whether step t lists any transfer from h to a.
  bool lists(int t, Rank h, Rank a) const {
    auto [lo, hi] = links(t);
    return std::binary_search(lo, hi, Link{h, a, false, false},
                              [](const Link& x, const Link& y) { return std::tie(x.src, x.dst) < std::tie(y.src, y.dst); });
  }
  uint16_t sends_listed(int t, Rank q) const { return nsend_[node(t, q)]; }
  uint16_t receives_listed(int t, Rank q) const { return nrecv_[node(t, q)]; }

  // f(q, lo, hi) for every rank of step t, [lo, hi) its receives of the block.
  template <class F>
  void each_rank(int t, F f) const {
    size_t k = off_[t];
    for (Rank q = 0; q < p_; ++q) {
      const size_t lo = k;
      while (k < off_[t + 1] && edges_[k].dst == q) ++k;
      f(q, lo, k);
    }
  }
  // The sources of (t, q) given its receives [lo, hi): g(src rank, edge
  // index or npos for the cell's own previous value), in application order.
  template <class G>
  void sources(Rank q, size_t lo, size_t hi, G g) const {
    size_t from = lo;
    bool keep = true;
    for (size_t k = lo; k < hi; ++k)
      if (edges_[k].combine == Combine::copy) from = k, keep = false;
    if (keep) g(q, npos);
    for (size_t k = from; k < hi; ++k) g(edges_[k].src, k);
  }
  bool has_copy(size_t lo, size_t hi) const {
    for (size_t k = lo; k < hi; ++k)
      if (edges_[k].combine == Combine::copy) return true;
    return false;
  }
  // Whether h's value reaches a through a receive of step t.
  bool delivers(int t, Rank h, Rank a) const {
    auto lo = std::lower_bound(edges_.begin() + static_cast<std::ptrdiff_t>(off_[t]),
                               edges_.begin() + static_cast<std::ptrdiff_t>(off_[t + 1]), a,
                               [](const Edge& e, Rank x) { return e.dst < x; });
    for (; lo != edges_.begin() + static_cast<std::ptrdiff_t>(off_[t + 1]) && lo->dst == a; ++lo)
      if (lo->src == h) return true;
    return false;
  }
  const Edge& edge(size_t k) const { return edges_[k]; }
  // Whether h lists a send to a in step t.
  bool sends_to(int t, Rank h, Rank a) const {
    auto [lo, hi] = links(t);
    auto by_ends = [](const Link& x, const Link& y) { return std::tie(x.src, x.dst) < std::tie(y.src, y.dst); };
    for (auto [l, end] = std::equal_range(lo, hi, Link{h, a, false, false}, by_ends); l != end; ++l)
      if (l->send) return true;
    return false;
  }
  // The earliest receive (step, then receiver, then peer) that lists the
  // block although the block does not arrive, into a cell whose value
  // reaches the target: (step, receiver, peer).
  struct Mismatch {
    int step;
    Rank receiver, peer;
    bool excess;  // an identical receive beyond the peer's identical sends
  };
  std::optional<Mismatch> unmatched_receive(const std::vector<uint8_t>& to_target) const {
    for (int t = 0; t < steps_; ++t) {
      std::optional<Mismatch> best;
      for (auto [l, end] = links(t); l != end; ++l)
        if (!l->send && l->carries && to_target[node(t, l->dst)] &&
            (!best || std::tie(l->dst, l->src) < std::tie(best->receiver, best->peer)))
          best = Mismatch{t, l->dst, l->src, l->excess};
      if (best) return best;
    }
    return std::nullopt;
  }
  // What `from` lists as sends to (receives from) `to` in step t, e.g.
  // "{2} reduce", or "nothing" (read from the schedule again: for texts).
  std::string listed_between(int t, Rank from, Rank to, bool sends) const {
    RankStep st;
    s_.rank_step(from, t, st);
    std::string out;
    for (const Transfer& x : sends ? st.sends : st.recvs)
      if (x.peer == to) out += (out.empty() ? "" : ", ") + x.blocks.to_string() + " " + to_string(x.combine);
    return out.empty() ? "nothing" : out;
  }
  // Marks every rank that sends the block in step t.
  void senders(int t, std::vector<char>& out) const {
    std::fill(out.begin(), out.end(), 0);
    for (size_t k = off_[t]; k < off_[t + 1]; ++k) out[edges_[k].src] = 1;
  }

  // Values pushed forward: v(t, q) = the sum of its sources' values.
  template <class T, class Init>
  std::vector<T> forward(Init init) const {
    std::vector<T> v(nodes(), 0);
    for (Rank q = 0; q < p_; ++q) v[node(-1, q)] = init(q);
    for (int t = 0; t < steps_; ++t)
      each_rank(t, [&](Rank q, size_t lo, size_t hi) {
        T x = 0;
        sources(q, lo, hi, [&](Rank src, size_t) { x = sat_add(x, v[node(t - 1, src)]); });
        v[node(t, q)] = x;
      });
    return v;
  }
  // The number of paths (saturated at 255) from every node to (last, r).
  std::vector<uint8_t> paths_to(Rank r) const {
    std::vector<uint8_t> n(nodes(), 0);
    n[node(steps_ - 1, r)] = 1;
    for (int t = steps_ - 1; t >= 0; --t)
      each_rank(t, [&](Rank q, size_t lo, size_t hi) {
        const uint8_t here = n[node(t, q)];
        if (here) sources(q, lo, hi, [&](Rank src, size_t) { n[node(t - 1, src)] = sat_add(n[node(t - 1, src)], here); });
      });
    return n;
  }

  static constexpr size_t npos = static_cast<size_t>(-1);

 private:
  const Schedule& s_;
  uint64_t p_;
  Block b_;
  int steps_;
  std::vector<Edge> edges_;  // step by step, by receiver, in application order
  std::vector<size_t> off_;  // step t's edges are [off_[t], off_[t + 1])
  std::vector<Link> links_;  // step by step, by (src, dst)
  std::vector<size_t> link_off_;
  std::vector<uint16_t> nsend_, nrecv_;  // per node (t, q), t >= 0: transfers listed (saturated)
};

std::string whose(Rank c, Rank holder) {
  return holder == c ? "its own contribution" : "rank " + std::to_string(c) + "'s contribution";
}

// ---- a missing contribution ------------------------------------------------

struct Candidate {
  enum Kind { unmatched, pattern, short_handed, partner, stuck, idle } kind = stuck;
  int step = 0;
  Rank holder = 0;
  std::optional<Rank> peer;
  bool reverse = false;  // partner: the peer sends block b to the holder in that step (the designed direction)
  std::string detail;    // stuck, idle: how the held value ended; pattern: which pattern
  bool covers = false;   // the holder also carries every other missing contribution
  bool busy = false;     // the holder sends block b to some other rank in that step
  bool toward = false;   // the holder lists a send to the peer in that step (other blocks)
  // Both ends break the step's shape, as a transfer dropped at both ends does.
  bool shape_break() const { return kind == pattern || kind == short_handed; }
  // The ranking of root_cause.hpp: smaller is better.
  auto key() const {
    return std::make_tuple(!covers, reverse, !shape_break(), step, !busy, holder, static_cast<int>(kind), !toward,
                           peer.value_or(0));
  }
};

class MissingTrace {
 public:
  MissingTrace(const BlockFlow& f, const CollectiveSpec& spec, Rank r, Block b, Rank c,
               const std::vector<Rank>& missing, const std::vector<uint8_t>& to_target)
      : f_(f), spec_(spec), r_(r), b_(b), c_(c), n_(to_target) {
    held_ = f.forward<uint8_t>([&](Rank q) { return uint8_t{spec.initial_contributor(q, b) == c}; });
    std::vector<char> in_missing(f.p(), 0);
    for (Rank x : missing) in_missing[x] = 1;
    all_ = f.forward<uint32_t>([&](Rank q) {
      auto who = spec.initial_contributor(q, b);
      return uint32_t{who && in_missing[*who]};
    });
    need_ = static_cast<uint32_t>(missing.size());
  }

  RootCause run() {
    stuck_candidates();
    exchange_candidates();
    RootCause rc;
    rc.contributor = c_;
    if (!best_) {
      std::vector<Rank> ends;
      for (Rank q = 0; q < f_.p(); ++q)
        if (held_[f_.node(f_.steps() - 1, q)]) ends.push_back(q);
      rc.text = "rank " + std::to_string(c_) + "'s contribution to block " + std::to_string(b_) +
                " never enters a value that reaches rank " + std::to_string(r_) + " (at the end ranks " +
                describe_ranks(ends) + " hold it); no single step where its path ends was found";
      return rc;
    }
    const Candidate& k = *best_;
    rc.kind = RootCause::Kind::lost;
    rc.step = k.step;
    rc.rank = k.holder;
    rc.peer = k.peer;
    const std::string h = "rank " + std::to_string(k.holder);
    const std::string held = h + " held " + whose(c_, k.holder) + " to block " + std::to_string(b_) + " " +
                             step_text(k.step - 1);
    const std::string a = k.peer ? "rank " + std::to_string(*k.peer) : std::string();
    const std::string in_step = " in step " + std::to_string(k.step);
    const std::string reaches = a + "'s block " + std::to_string(b_) + " reaches rank " + std::to_string(r_);
    switch (k.kind) {
      case Candidate::unmatched:
        rc.text = h + " sent " + whose(c_, k.holder) + " to block " + std::to_string(b_) + " to " + a + in_step +
                  ", but " + a + " lists no matching receive, so it never arrived (" + reaches + ")";
        break;
      case Candidate::pattern:
        rc.text = held + " but sent nothing to " + a + in_step + ", although " + k.detail + " (" + reaches + ")";
        break;
      case Candidate::short_handed:
        rc.text = held + " but did not send it to " + a + in_step + ", where " + h + " sends and " + a +
                  " receives fewer messages than most ranks (" + reaches + ")";
        break;
      case Candidate::partner:
        rc.text = held + " but did not send it to " + a + in_step + " (" + between(k.step, k.holder, *k.peer) +
                  ", and " + reaches + ")";
        break;
      case Candidate::stuck:
      case Candidate::idle:
        rc.text = held + " and never forwarded it (" + k.detail + ")";
        break;
    }
    return rc;
  }

 private:
  bool covers(int t, Rank h) const { return all_[f_.node(t, h)] >= need_; }
  // What the two partners do exchange in step t, said from the holder's side first.
  std::string between(int t, Rank h, Rank a) const {
    const std::string hs = "rank " + std::to_string(h), as = "rank " + std::to_string(a);
    if (f_.sends_to(t, h, a)) return hs + " sends " + f_.listed_between(t, h, a, true) + " to " + as + " there instead";
    if (f_.sends_to(t, a, h)) return as + " sends " + f_.listed_between(t, a, h, true) + " to " + hs + " there";
    const std::string at_a = f_.listed_between(t, a, h, false);
    if (at_a != "nothing") return as + " lists a receive of " + at_a + " from " + hs + " there";
    return hs + " lists a receive of " + f_.listed_between(t, h, a, false) + " from " + as + " there";
  }
  void offer(Candidate k) {
    k.covers = covers(k.step - 1, k.holder);
    if (!best_ || k.key() < best_->key()) best_ = std::move(k);
  }

  // Held values of c's contribution that were never sent anywhere and then
  // were replaced, or stayed to the end at a rank that does not need them.
  void stuck_candidates() {
    const uint64_t p = f_.p();
    const int steps = f_.steps();
    std::vector<int> updated(p, -1);  // the held value's last update
    std::vector<char> forwarded(p, 0), sent(p, 0);
    for (int t = 0; t < steps; ++t) {
      f_.senders(t, sent);
      f_.each_rank(t, [&](Rank q, size_t lo, size_t hi) {
        const bool before = held_[f_.node(t - 1, q)] > 0, after = held_[f_.node(t, q)] > 0;
        if (before && sent[q]) forwarded[q] = 1;
        if (before && !after) {  // replaced by a copy without it
          Rank from = q;
          for (size_t k = lo; k < hi; ++k)
            if (f_.edge(k).combine == Combine::copy) from = f_.edge(k).src;
          if (!forwarded[q])
            offer({Candidate::stuck, updated[q] + 1, q, std::nullopt, false,
                   "a copy from rank " + std::to_string(from) + " replaced it in step " + std::to_string(t), false});
        }
        if (after && (!before || f_.has_copy(lo, hi))) {  // a new value holding it
          forwarded[q] = 0;
          updated[q] = t;
        } else if (after && lo < hi) {
          updated[q] = t;
        }
      });
    }
    // At the end: a holder that does not need it is stuck; one that needs
    // it but never passed it on (though steps were left) is idle, offered
    // only when every final holder is (otherwise the contribution did travel
    // on, and an idle final holder explains nothing).
    std::vector<Rank> idle;
    bool all_idle = true;
    for (Rank q = 0; q < p; ++q) {
      if (!held_[f_.node(steps - 1, q)]) continue;
      const bool quiet = !forwarded[q] && updated[q] + 1 <= steps - 1;
      const Requirement req = spec_.required(q, b_);
      const bool needed = req.kind == Requirement::Kind::all_ranks ||
                          (req.kind == Requirement::Kind::single_origin && req.origin == c_);
      if (quiet && !needed)
        offer({Candidate::stuck, updated[q] + 1, q, std::nullopt, false,
               "it stayed there to the end, and rank " + std::to_string(q) + " does not need it", false});
      if (needed) {
        all_idle = all_idle && quiet;
        if (quiet) idle.push_back(q);
      }
    }
    if (all_idle)
      for (Rank q : idle)
        offer({Candidate::idle, updated[q] + 1, q, std::nullopt, false, "it stayed there to the end", false});
  }

  // Ranks holding it that do not pass it on to a rank whose cell reaches
  // the target although they exchange other data with it in that step
  // (partner), or although every other rank sends to the rank at that
  // distance in that step and neither of the two lists a transfer between
  // them (pattern). A second pass over the rank programs.
  void exchange_candidates() {
    const uint64_t p = f_.p();
    std::vector<char> sent(p);
    for (int t = 0; t < f_.steps(); ++t) {
      if (best_ && best_->covers && !best_->reverse && best_->shape_break() && best_->step < t) return;
      f_.senders(t, sent);
      auto offer_pair = [&](Candidate::Kind kind, Rank h, Rank a, std::string detail = {}) {
        offer({kind, t, h, a, kind == Candidate::partner && f_.delivers(t, a, h), std::move(detail), false,
               sent[h] != 0, f_.sends_to(t, h, a)});
      };
      auto candidate = [&](Rank h, Rank a) {
        return held_[f_.node(t - 1, h)] && n_[f_.node(t, a)] && !f_.delivers(t, h, a);
      };
      // (dst - src) mod p over every send of the step, by offset. A step
      // has a handful of distinct offsets: a short list searched from the
      // last hit, a hash map only past 16 (not a std::map insert per send).
      offsets_.clear();
      std::unordered_map<uint64_t, uint64_t> many;
      uint64_t sends = 0;
      size_t last = 0;
      for (auto [l, end] = f_.links(t); l != end; ++l) {
        if (l->send) {
          ++sends;
          const uint64_t d = l->dst >= l->src ? l->dst - l->src : l->dst + p - l->src;
          if (last < offsets_.size() && offsets_[last].first == d) {
            ++offsets_[last].second;
          } else if (many.empty()) {
            last = 0;
            while (last < offsets_.size() && offsets_[last].first != d) ++last;
            if (last == offsets_.size()) offsets_.push_back({d, 0});
            ++offsets_[last].second;
            if (offsets_.size() > 16) {
              for (const auto& [x, n] : offsets_) many[x] += n;
              offsets_.clear();
            }
          } else {
            ++many[d];
          }
        }
        if (candidate(l->src, l->dst))
          offer_pair(l->send && l->carries ? Candidate::unmatched : Candidate::partner, l->src, l->dst);
        if (candidate(l->dst, l->src)) offer_pair(Candidate::partner, l->dst, l->src);
      }
      for (const auto& [x, n] : many) offsets_.push_back({x, n});
      std::sort(offsets_.begin(), offsets_.end());  // by offset, as the candidates were always offered
      for (const auto& [d, n] : offsets_) {
        if (2 * n <= p) continue;  // not the step's regular pattern
        for (Rank h = 0; h < p; ++h) {
          const Rank a = static_cast<Rank>((h + d) % p);
          if (candidate(h, a) && !f_.lists(t, h, a))
            offer_pair(Candidate::pattern, h, a,
                       std::to_string(n) + " of the " + std::to_string(sends) + " sends of that step go to the rank " +
                           std::to_string(d) + " further on (mod p)");
        }
      }
      // Ranks that send, and ranks that receive, fewer transfers than most
      // ranks do in this step (a transfer dropped at both ends).
      // Ranks by their number of transfers (a count indexes the table; the
      // mode is the smallest count with the most ranks).
      send_counts_.assign(1, 0);
      recv_counts_.assign(1, 0);
      for (Rank x = 0; x < p; ++x) {
        const uint16_t ns = f_.sends_listed(t, x), nr = f_.receives_listed(t, x);
        if (ns >= send_counts_.size()) send_counts_.resize(size_t{ns} + 1, 0);
        if (nr >= recv_counts_.size()) recv_counts_.resize(size_t{nr} + 1, 0);
        ++send_counts_[ns];
        ++recv_counts_[nr];
      }
      auto mode = [](const std::vector<uint64_t>& m) {
        return static_cast<uint16_t>(std::max_element(m.begin(), m.end()) - m.begin());
      };
      const uint16_t usual_sends = mode(send_counts_), usual_recvs = mode(recv_counts_);
      std::vector<Rank> few_sends, few_recvs;
      for (Rank x = 0; x < p; ++x) {
        if (f_.sends_listed(t, x) < usual_sends && held_[f_.node(t - 1, x)]) few_sends.push_back(x);
        if (f_.receives_listed(t, x) < usual_recvs && n_[f_.node(t, x)]) few_recvs.push_back(x);
      }
      if (few_sends.size() * few_recvs.size() <= 4096)
        for (Rank h : few_sends)
          for (Rank a : few_recvs)
            if (h != a && candidate(h, a)) offer_pair(Candidate::short_handed, h, a);
    }
  }

  std::vector<std::pair<uint64_t, uint64_t>> offsets_;  // exchange_candidates' per-step tables
  std::vector<uint64_t> send_counts_, recv_counts_;

  const BlockFlow& f_;
  const CollectiveSpec& spec_;
  Rank r_;
  Block b_;
  Rank c_;
  const std::vector<uint8_t>& n_;  // paths to the target
  std::vector<uint8_t> held_;      // multiplicity of c's contribution (saturated)
  std::vector<uint32_t> all_;      // multiplicity of all missing contributions (saturated)
  uint32_t need_ = 0;
  std::optional<Candidate> best_;
};

// ---- a doubled contribution ------------------------------------------------

RootCause trace_double(const BlockFlow& f, const CollectiveSpec& spec, Block b, Rank c,
                       const std::vector<uint8_t>& to_target) {
  const std::vector<uint8_t> held =
      f.forward<uint8_t>([&](Rank q) { return uint8_t{spec.initial_contributor(q, b) == c}; });
  RootCause rc;
  rc.contributor = c;
  for (int t = 0; t < f.steps() && !rc.step; ++t)
    f.each_rank(t, [&](Rank q, size_t lo, size_t hi) {
      if (rc.step || !to_target[f.node(t, q)] || held[f.node(t, q)] < 2) return;
      // Its sources each hold it at most once (this is the earliest such
      // ancestor): the first two that hold it are the two paths.
      std::vector<std::pair<Rank, size_t>> with;  // (source rank, edge or npos)
      f.sources(q, lo, hi, [&](Rank src, size_t k) {
        if (held[f.node(t - 1, src)]) with.push_back({src, k});
      });
      if (with.size() < 2) return;  // cannot be: every source holds it at most once
      rc.kind = RootCause::Kind::counted_twice;
      rc.step = t;
      rc.rank = q;
      rc.peer = with[1].first;
      const std::string what = whose(c, q) + " to block " + std::to_string(b);
      const std::string how =
          with[0].second == BlockFlow::npos
              ? "it already held it and received it again from rank " + std::to_string(with[1].first)
          : with[0].first == with[1].first
              ? "two receives of it from rank " + std::to_string(with[1].first) + " in that step"
              : "from rank " + std::to_string(with[0].first) + " and from rank " + std::to_string(with[1].first);
      // Where the two paths split: the latest cell holding it that both
      // sources come from (marks 1 and 2, propagated backward level by level).
      std::vector<uint8_t> mark(f.nodes(), 0);
      mark[f.node(t - 1, with[0].first)] |= 1;
      mark[f.node(t - 1, with[1].first)] |= 2;
      std::optional<std::pair<int, Rank>> split;
      for (int u = t - 1; u >= -1 && !split; --u) {
        for (Rank x = 0; x < f.p() && !split; ++x)
          if (mark[f.node(u, x)] == 3) split = {u, x};
        if (!split && u >= 0)
          f.each_rank(u, [&](Rank x, size_t l, size_t h) {
            const uint8_t m = mark[f.node(u, x)];
            if (m)
              f.sources(x, l, h, [&](Rank src, size_t) {
                if (held[f.node(u - 1, src)]) mark[f.node(u - 1, src)] |= m;
              });
          });
      }
      rc.text = "rank " + std::to_string(q) + " combined " + what + " twice in step " + std::to_string(t) + " (" + how +
                ")";
      if (split)
        rc.text += "; the two paths split at rank " + std::to_string(split->second) + ", which held it " +
                   step_text(split->first);
    });
  if (!rc.step)
    rc.text = "rank " + std::to_string(c) + "'s contribution to block " + std::to_string(b) +
              " reaches the final value more than once, but no single step where two paths meet was found";
  return rc;
}

// A value that rests on a receive no send matches: what the receive gets
// is not defined by the schedule (an execution waits for it, or fills it
// with some other message), so the final value is not what any execution
// would produce, and no cause is traced from it: the mismatch is named.
RootCause rests_on_mismatch(const BlockFlow& f, Rank r, Block b, const BlockFlow::Mismatch& m) {
  const int t = m.step;
  const Rank a = m.receiver, h = m.peer;
  RootCause rc;
  rc.kind = RootCause::Kind::unmatched;
  rc.step = t;
  rc.rank = a;
  rc.peer = h;
  const std::string as = "rank " + std::to_string(a), hs = "rank " + std::to_string(h);
  if (m.excess) {
    rc.text = "matching fails first on this value's path: " + as + " lists the receives " +
              f.listed_between(t, a, h, false) + " from " + hs + " in step " + std::to_string(t) + ", and " + hs +
              " only " + f.listed_between(t, h, a, true) + " to " + as + " there: one of those receives of block " +
              std::to_string(b) + " gets a message no send provides; rank " + std::to_string(r) + "'s block " +
              std::to_string(b) + " depends on it, so its final value is not what any execution would produce, " +
              "and no root cause is traced from it";
    return rc;
  }
  rc.text = "matching fails first on this value's path: " + as + " lists a receive of " +
            f.listed_between(t, a, h, false) + " from " + hs + " in step " + std::to_string(t) + ", and its block " +
            std::to_string(b) + " arrives from no send (" + hs + " sends " + f.listed_between(t, h, a, true) + " to " +
            as + " there); rank " + std::to_string(r) + "'s block " + std::to_string(b) +
            " depends on that receive, so its final value is not what any execution would "
            "produce, and no root cause is traced from it";
  return rc;
}

// One counterexample on a built flow graph.
RootCause trace_on(const BlockFlow& f, const CollectiveSpec& spec, Rank r, Block b, TraceFocus focus) {
  const std::vector<uint8_t> to_target = f.paths_to(r);
  if (auto m = f.unmatched_receive(to_target)) return rests_on_mismatch(f, r, b, *m);
  // Every contributor's multiplicity in the target.
  std::vector<uint32_t> count(f.p(), 0);
  for (Rank q = 0; q < f.p(); ++q)
    if (auto who = spec.initial_contributor(q, b)) count[*who] = sat_add<uint32_t>(count[*who], to_target[f.node(-1, q)]);
  const Requirement req = spec.required(r, b);
  std::vector<Rank> missing, doubled;
  bool unexpected = false;
  for (Rank x = 0; x < f.p(); ++x) {
    const bool need = req.kind == Requirement::Kind::all_ranks ||
                      (req.kind == Requirement::Kind::single_origin && req.origin == x);
    if (need && count[x] == 0) missing.push_back(x);
    if (count[x] >= 2) doubled.push_back(x);
    unexpected = unexpected || (!need && count[x] > 0);
  }
  // Both missing and doubled: the cause that comes first in time (a loss
  // traced after the double would explain a value already wrong), the
  // focus when they tie or one has no step.
  if (!missing.empty() && !doubled.empty()) {
    RootCause lost = MissingTrace(f, spec, r, b, missing.front(), missing, to_target).run();
    RootCause twice = trace_double(f, spec, b, doubled.front(), to_target);
    if (lost.step && twice.step && *lost.step != *twice.step) return *twice.step < *lost.step ? twice : lost;
    return focus == TraceFocus::doubled_first ? twice : lost;
  }
  if (!missing.empty()) return MissingTrace(f, spec, r, b, missing.front(), missing, to_target).run();
  if (!doubled.empty()) return trace_double(f, spec, b, doubled.front(), to_target);
  RootCause rc;
  rc.text = "not traced: rank " + std::to_string(r) + "'s block " + std::to_string(b) +
            " misses no contribution and counts none twice" +
            (unexpected ? "; it holds contributions it must not hold" : "");
  return rc;
}

}  // namespace

void trace_root_causes(const Schedule& s, const std::vector<TraceRequest>& requests, const RootCauseLimits& lim) {
  std::map<Block, std::vector<const TraceRequest*>> by_block;
  for (const TraceRequest& q : requests) {
    RootCause& rc = *q.out;
    if (s.num_steps() < 1 || q.rank >= s.p() || q.block >= s.num_blocks()) {
      rc = RootCause{};
      rc.text = "not traced: the schedule has no step, or the cell is outside it";
    } else {
      by_block[q.block].push_back(&q);
    }
  }
  for (const auto& [b, qs] : by_block) {
    BlockFlow f(s, b);
    std::string why;
    const bool built = f.build(lim, why);
    for (const TraceRequest* q : qs) {
      if (built) {
        *q->out = trace_on(f, s.spec(), q->rank, b, q->focus);
      } else {
        *q->out = RootCause{};
        q->out->text = "not traced: " + why;
      }
    }
  }
}

RootCause trace_root_cause(const Schedule& s, Rank r, Block b, TraceFocus focus, const RootCauseLimits& lim) {
  RootCause rc;
  trace_root_causes(s, {{r, b, focus, &rc}}, lim);
  return rc;
}

}  // namespace collcheck
