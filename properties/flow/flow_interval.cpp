#include "properties/flow/flow_interval.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdio>

#include "properties/causality.hpp"
#include "properties/exactly_once.hpp"
#include "properties/matching.hpp"
#include "properties/postcondition.hpp"
#include "properties/step_view.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/check.hpp"

namespace collcheck::flow {

void for_each_initial_run(const CollectiveSpec& spec, Rank r,
                          const std::function<void(Block, Block, std::optional<Rank>)>& f) {
  const Block nb = spec.nblocks;
  if (nb == 0) return;
  auto window = [&](uint64_t lo, uint64_t hi) {  // r's own blocks [lo, hi), nothing elsewhere
    lo = std::min<uint64_t>(lo, nb);
    hi = std::min<uint64_t>(hi, nb);
    if (lo > 0) f(0, static_cast<Block>(lo), std::nullopt);
    if (lo < hi) f(static_cast<Block>(lo), static_cast<Block>(hi), r);
    if (hi < nb && std::max(lo, hi) < nb) f(static_cast<Block>(std::max(lo, hi)), nb, std::nullopt);
  };
  switch (spec.kind) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::reduce: f(0, nb, r); return;
    case Collective::allgather: {
      const uint64_t k = nb / spec.p;
      COLLCHECK_CHECK(k > 0, "allgather needs at least one block per rank");
      window(uint64_t{r} * k, (uint64_t{r} + 1) * k);
      return;
    }
    case Collective::broadcast: f(0, nb, r == spec.root ? std::optional<Rank>(r) : std::nullopt); return;
    case Collective::alltoall: window(uint64_t{r} * spec.p, (uint64_t{r} + 1) * spec.p); return;
  }
}

void for_each_required_run(const CollectiveSpec& spec, Rank r,
                           const std::function<void(Block, Block, Requirement)>& f) {
  using K = Requirement::Kind;
  const Block nb = spec.nblocks;
  if (nb == 0) return;
  switch (spec.kind) {
    case Collective::allreduce: f(0, nb, {K::all_ranks, 0}); return;
    case Collective::reduce: f(0, nb, r == spec.root ? Requirement{K::all_ranks, 0} : Requirement{}); return;
    case Collective::broadcast: f(0, nb, {K::single_origin, spec.root}); return;
    case Collective::reduce_scatter: {
      const uint64_t k = nb / spec.p;
      COLLCHECK_CHECK(k > 0, "reduce-scatter needs at least one block per rank");
      const uint64_t lo = std::min<uint64_t>(uint64_t{r} * k, nb), hi = std::min<uint64_t>(lo + k, nb);
      if (lo > 0) f(0, static_cast<Block>(lo), {});
      if (lo < hi) f(static_cast<Block>(lo), static_cast<Block>(hi), {K::all_ranks, 0});
      if (hi < nb) f(static_cast<Block>(hi), nb, {});
      return;
    }
    case Collective::allgather: {
      const uint64_t k = nb / spec.p;
      COLLCHECK_CHECK(k > 0, "allgather needs at least one block per rank");
      for (uint64_t lo = 0; lo < nb; lo += k)
        f(static_cast<Block>(lo), static_cast<Block>(std::min<uint64_t>(lo + k, nb)),
          {K::single_origin, static_cast<Rank>(lo / k)});
      return;
    }
    case Collective::alltoall: {  // block i*p + r comes from rank i
      const uint64_t p = spec.p;
      Block at = 0;
      for (uint64_t b = r; b < nb; b += p) {
        if (at < b) f(at, static_cast<Block>(b), {});
        f(static_cast<Block>(b), static_cast<Block>(b + 1), {K::single_origin, static_cast<Rank>(b / p)});
        at = static_cast<Block>(b + 1);
      }
      if (at < nb) f(at, nb, {});
      return;
    }
  }
}

namespace {

struct Cell {
  uint64_t count = 0;
  uint64_t sum = 0;
  friend bool operator==(const Cell&, const Cell&) = default;
};

// [lo, next piece's lo) -> cell; the last piece ends at nblocks.
struct Piece {
  Block lo;
  Cell cell;
};

// Part of a send: [lo, hi) of the sender's state before the step.
struct Segment {
  Block lo, hi;
  Cell cell;
};

// One rank's snapshot of its sends: segments of send i are
// segs[first[i] .. first[i+1]).
struct Outbox {
  std::vector<size_t> first;
  std::vector<Segment> segs;
};

using Pieces = std::vector<Piece>;

// Appends [lo, ..) -> c, merged with the previous piece when equal.
void emit(Pieces& out, Block lo, const Cell& c) {
  if (!out.empty() && out.back().cell == c) return;
  out.push_back({lo, c});
}

// Adds n - 1 violations to a verdict that has just recorded one failure for
// the first block of an n-block piece (the dense checker records one per block).
void more_violations(Verdict& v, uint64_t n) { v.violations += n - 1; }

class IntervalSimulator {
 public:
  IntervalSimulator(const Schedule& s, const std::vector<uint64_t>& weights, const StepHook& hook, uint64_t limit)
      : s_(s), w_(weights), p_(s.p()), nb_(s.num_blocks()), steps_(s.num_steps()), hook_(hook), limit_(limit) {}

  IntervalResult run() {
    IntervalResult res;
    std::vector<Pieces> state(p_);
    const CollectiveSpec& spec = s_.spec();
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
      for (Rank r = rr.begin(); r != rr.end(); ++r)
        for_each_initial_run(spec, r, [&](Block lo, Block, std::optional<Rank> who) {
          emit(state[r], lo, who ? Cell{1, w_[*who]} : Cell{});
        });
    });
    std::vector<uint64_t> volume(p_, 0);
    int last_active = -1;
    std::vector<RankStep> ops(p_);
    std::vector<Outbox> out(p_);
    for (int st = 0; st < steps_; ++st) {
      tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        for (Rank r = rr.begin(); r != rr.end(); ++r) s_.rank_step(r, st, ops[r]);
      });
      StepView sv{st, p_, s_.ports(), nb_, &ops};
      step_local_checks(sv, hook_ ? hook_.at_step(st) : StepHook::RankCheck{}, tls_, volume, last_active);
      // Snapshot every send (values before the step); causality (a).
      tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        Verdicts& v = tls_.local();
        for (Rank r = rr.begin(); r != rr.end(); ++r) snapshot(r, st, ops[r].sends, state[r], out[r], v);
      });
      // Apply every receive, in the canonical order (peer, combine).
      tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        Verdicts& v = tls_.local();
        std::vector<const Transfer*> order;
        Pieces scratch;
        std::vector<Segment> clipped;
        uint64_t most = 0;
        for (Rank r = rr.begin(); r != rr.end(); ++r) {
          canonical_receive_order(ops[r].recvs, order);
          for (const Transfer* t : order) {
            if (t->peer >= p_ || t->peer == r) continue;  // matching reports it
            const auto& peer_sends = ops[t->peer].sends;
            const Outbox& o = out[t->peer];
            // Unmatched: only the blocks both ends list arrive (matching.hpp).
            for_each_delivery(peer_sends, ops[r].recvs, r, *t, [&](size_t idx, bool whole) {
              const Segment* seg = o.segs.data() + o.first[idx];
              const Segment* end = o.segs.data() + o.first[idx + 1];
              if (!whole) {
                clip(seg, end, t->blocks, clipped);
                seg = clipped.data();
                end = seg + clipped.size();
              }
              apply(r, st, *t, seg, end, state[r], scratch, v);
            });
          }
          most = std::max<uint64_t>(most, state[r].size());
        }
        uint64_t seen = max_pieces_.load(std::memory_order_relaxed);
        while (most > seen && !max_pieces_.compare_exchange_weak(seen, most)) {
        }
        uint64_t held = 0;  // bytes of this range's pieces and outboxes
        for (Rank r = rr.begin(); r != rr.end(); ++r)
          held += state[r].capacity() * sizeof(Piece) + out[r].segs.capacity() * sizeof(Segment) +
                  out[r].first.capacity() * sizeof(size_t);
        bytes_.fetch_add(held, std::memory_order_relaxed);
      });
      const uint64_t held = bytes_.exchange(0) + p_ * (sizeof(Pieces) + sizeof(Outbox) + sizeof(RankStep));
      if (limit_ && held > limit_) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "the interval state grew to %.3g GiB after step %d (of %d), more than --max-memory %.3g GiB",
                      static_cast<double>(held) / (1ULL << 30), st, steps_, static_cast<double>(limit_) / (1ULL << 30));
        res.aborted = buf;
        return res;
      }
    }
    judge_final(state);
    res.cost = measured_cost(volume, last_active);
    res.verdicts = merged(tls_);
    res.max_pieces = max_pieces_.load();
    return res;
  }

 private:
  // The index of the piece holding block b (pieces start at block 0).
  static size_t piece_of(const Pieces& ps, Block b) {
    auto it = std::upper_bound(ps.begin(), ps.end(), b, [](Block x, const Piece& q) { return x < q.lo; });
    return static_cast<size_t>(it - ps.begin()) - 1;
  }
  Block end_of(const Pieces& ps, size_t i) const { return i + 1 < ps.size() ? ps[i + 1].lo : nb_; }

  void snapshot(Rank r, int st, const std::vector<Transfer>& sends, const Pieces& mine, Outbox& o, Verdicts& v) {
    o.first.assign(1, 0);
    o.segs.clear();
    for (const Transfer& snd : sends) {
      for (const auto& rg : snd.blocks.ranges()) {
        const Block a = rg.lo, z = std::min(rg.hi, nb_);
        if (a >= z) continue;
        v[kCausality].checks += z - a;
        for (size_t i = piece_of(mine, a); i < mine.size() && mine[i].lo < z; ++i) {
          const Block lo = std::max(mine[i].lo, a), hi = std::min(end_of(mine, i), z);
          if (mine[i].cell.count == 0) {
            causality_sender_holds_nothing(v[kCausality], p_, r, st, lo, snd.peer);
            more_violations(v[kCausality], hi - lo);
          }
          o.segs.push_back({lo, hi, mine[i].cell});
        }
      }
      o.first.push_back(o.segs.size());
    }
  }

  // The parts of segments [seg, end) (sorted, disjoint) inside `blocks`.
  static void clip(const Segment* seg, const Segment* end, const BlockSet& blocks, std::vector<Segment>& out) {
    out.clear();
    for (; seg != end; ++seg)
      for (const BlockSet::Range& rg : blocks.ranges()) {
        const Block lo = std::max(seg->lo, rg.lo), hi = std::min(seg->hi, rg.hi);
        if (lo < hi) out.push_back({lo, hi, seg->cell});
      }
  }

  // Applies one matched receive (its segments sorted and disjoint) to rank
  // r's pieces by one merge pass.
  void apply(Rank r, int st, const Transfer& t, const Segment* seg, const Segment* seg_end, Pieces& cur,
             Pieces& next, Verdicts& v) {
    if (seg == seg_end) return;
    next.clear();
    size_t i = 0;
    Block from = 0;  // cur[i] before `from` is already emitted
    const size_t n = cur.size();
    for (; seg != seg_end; ++seg) {
      while (i < n && end_of(cur, i) <= seg->lo) {
        emit(next, std::max(cur[i].lo, from), cur[i].cell);
        ++i;
      }
      if (i < n && std::max(cur[i].lo, from) < seg->lo) emit(next, std::max(cur[i].lo, from), cur[i].cell);
      from = seg->lo;
      while (i < n && from < seg->hi) {
        const Block e = std::min(end_of(cur, i), seg->hi);
        emit(next, from, combine(r, st, t, from, e - from, cur[i].cell, seg->cell, v));
        from = e;
        if (e == end_of(cur, i)) ++i;
      }
    }
    for (; i < n; ++i) emit(next, std::max(cur[i].lo, from), cur[i].cell);
    cur.swap(next);
  }

  // The receiver's cell after one incoming piece of n blocks starting at b,
  // recording what the dense fingerprint mode records for each block.
  Cell combine(Rank r, int st, const Transfer& t, Block b, uint64_t n, const Cell& have, const Cell& in,
               Verdicts& v) const {
    if (t.combine == Combine::reduce) {
      v[kCausality].checks += n;
      v[kExactlyOnce].checks += n;  // doubles show only in the final fingerprint
      if (have.count == 0) {
        causality_reduce_into_undefined(v[kCausality], p_, r, st, b, t.peer);
        more_violations(v[kCausality], n);
      }
      return {have.count + in.count, addmod(have.sum, in.sum)};
    }
    v[kCausality].checks += n;
    if (in.count < have.count) {
      causality_copy_discards(v[kCausality], p_, r, st, b, t.peer,
                              copy_loss_text(have.count, in.count));
      more_violations(v[kCausality], n);
    }
    return in;
  }

  void judge_final(const std::vector<Pieces>& state) {
    const CollectiveSpec& spec = s_.spec();
    const int last = std::max(0, steps_ - 1);
    uint64_t all_sum = 0;
    for (Rank x = 0; x < p_; ++x) all_sum = addmod(all_sum, w_[x]);
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
      Verdicts& v = tls_.local();
      for (Rank r = rr.begin(); r != rr.end(); ++r) {
        const Pieces& ps = state[r];
        size_t i = 0;
        for_each_required_run(spec, r, [&](Block lo, Block hi, Requirement req) {
          while (end_of(ps, i) <= lo) ++i;
          if (req.kind == Requirement::Kind::none) return;
          const bool all = req.kind == Requirement::Kind::all_ranks;
          const uint64_t want_count = all ? p_ : 1;
          const uint64_t want_sum = all ? all_sum : req.origin < p_ ? w_[req.origin] : kFingerprintPrime;
          for (size_t j = i; j < ps.size() && ps[j].lo < hi; ++j) {
            const Block a = std::max(ps[j].lo, lo), z = std::min(end_of(ps, j), hi);
            const Cell& c = ps[j].cell;
            v[kPostcondition].checks += z - a;
            v[kExactlyOnce].checks += z - a;
            if (c.count == want_count && c.sum == want_sum) continue;
            if (c.count > want_count || (c.count == want_count && c.sum != want_sum)) {
              exactly_once_fingerprint(v[kExactlyOnce], p_, r, last, a, want_count, c.count, c.sum != want_sum);
              more_violations(v[kExactlyOnce], z - a);
            }
            postcondition_wrong(
                v[kPostcondition], p_, r, last, a,
                all ? "all " + std::to_string(p_) + " contributions (fingerprint)"
                    : "block from rank " + std::to_string(req.origin) + " (fingerprint)",
                std::to_string(c.count) + " contribution(s), fingerprint " + (c.sum == want_sum ? "matches" : "differs"));
            more_violations(v[kPostcondition], z - a);
          }
        });
      }
    });
  }

  const Schedule& s_;
  const std::vector<uint64_t>& w_;
  uint64_t p_;
  uint64_t nb_;
  int steps_;
  const StepHook& hook_;
  uint64_t limit_;
  VerdictTls tls_;
  std::atomic<uint64_t> max_pieces_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace

IntervalPlan plan_intervals(const Schedule& s) {
  const uint64_t p = s.p(), nb = s.num_blocks();
  IntervalPlan plan;
  RankStep rs;
  uint64_t recv_ranges = 0, dense_moves = 0, max_ranges = 0, max_transfers = 0;
  std::vector<std::pair<uint64_t, uint64_t>> per_step;  // (transfers, ranges)
  for (int st = 0; st < s.num_steps(); ++st) {
    s.rank_step(0, st, rs);
    uint64_t ranges = 0;
    for (const Transfer& t : rs.sends) ranges += t.blocks.ranges().size(), dense_moves += t.blocks.size();
    for (const Transfer& t : rs.recvs) {
      ranges += t.blocks.ranges().size();
      recv_ranges += t.blocks.ranges().size();
      dense_moves += t.blocks.size();
    }
    per_step.push_back({rs.sends.size() + rs.recvs.size(), ranges});
    max_ranges = std::max(max_ranges, ranges);
    max_transfers = std::max<uint64_t>(max_transfers, rs.sends.size() + rs.recvs.size());
  }
  plan.pieces = std::max<uint64_t>(1, std::min<uint64_t>(nb, 3 + 2 * recv_ranges));
  double interval = 0;
  for (auto [transfers, ranges] : per_step) interval += double(transfers) * double(plan.pieces) + 2.0 * double(ranges);
  // Both: the initial state and the final judgement of every (rank, block)
  // cell (dense) or piece (intervals), plus every step's work (in double:
  // a schedule file can make these exceed 2^64).
  plan.dense_work = double(p) * (2.0 * double(nb) + double(dense_moves));
  plan.interval_work = double(p) * (2.0 * double(plan.pieces) + interval);
  // Memory: every rank's pieces (24 bytes each, vector header), one step's
  // transfers and outbox segments (32 bytes each) for every rank.
  const uint64_t state = p * (sizeof(Pieces) + plan.pieces * sizeof(Piece));
  const uint64_t ops = p * (sizeof(RankStep) + 2 * 16 + max_transfers * (sizeof(Transfer) + 32) +
                            max_ranges * sizeof(BlockSet::Range));
  const uint64_t outbox = p * (sizeof(Outbox) + (max_transfers + 1) * 4 + max_ranges * 2 * sizeof(Segment));
  const uint64_t fixed = p * 8 * 2 + (uint64_t{32} << 20);  // weights, volume, process
  plan.memory_bytes = state + ops + outbox + fixed;
  plan.how = "interval fingerprint simulation: pieces " + gib(state) + " (about " + std::to_string(plan.pieces) +
             " per rank), transfers " + gib(ops) + ", outbox " + gib(outbox) +
             ", process 0.0312 GiB (every rank taken to be like rank 0)";
  return plan;
}

IntervalResult run_intervals(const Schedule& s, const std::vector<uint64_t>& weights, const StepHook& hook,
                             uint64_t memory_limit) {
  return IntervalSimulator(s, weights, hook, memory_limit).run();
}

}  // namespace collcheck::flow
