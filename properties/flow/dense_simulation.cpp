#include "properties/flow/dense_simulation.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>

#include "properties/causality.hpp"
#include "properties/exactly_once.hpp"
#include "properties/flow/word_pool.hpp"
#include "properties/matching.hpp"
#include "properties/postcondition.hpp"

namespace collcheck::flow {

namespace {

// ---- cell policies ---------------------------------------------------------
// A cell is `words` uint64_t. Exact: flow::ExactCells (flow_common.hpp).
// Fingerprint: {count, sum}.
struct FingerprintCells {
  size_t words = 2;
  std::vector<uint64_t> weights;  // one random field element per rank
  FingerprintCells(uint64_t seed, uint64_t p) : weights(fingerprint_weights(seed, p)) {}
  uint64_t weight(Rank r) const { return weights[r]; }
  void init(uint64_t* c, std::optional<Rank> who) const {
    if (!who) return;  // cells start zeroed (empty)
    c[0] = 1;
    c[1] = weight(*who);
  }
  bool empty(const uint64_t* c) const { return c[0] == 0; }
  std::optional<Rank> reduce(uint64_t* c, const uint64_t* in, bool& held) const {
    held = c[0] != 0;
    c[0] += in[0];
    c[1] = addmod(c[1], in[1]);
    return std::nullopt;  // doubles are only visible in the final fingerprint
  }
  std::optional<std::string> copy(uint64_t* c, const uint64_t* in) const {
    std::optional<std::string> lost;
    if (in[0] < c[0])
      lost = copy_loss_text(c[0], in[0]);
    c[0] = in[0];
    c[1] = in[1];
    return lost;
  }
};

// Messages of one rank in one step, restricted to the current block chunk.
struct Outbox {
  std::vector<std::vector<Block>> blocks;   // per send, blocks in the chunk
  std::vector<std::vector<uint64_t>> data;  // per send, cells in the same order
};

template <class Cells>
class FlowSimulator {
 public:
  FlowSimulator(const Schedule& s, const Cells& cells, const CheckOptions& o, bool step_local, const Claim* claim,
                const StepHook& hook)
      : s_(s),
        cells_(cells),
        p_(s.p()),
        nb_(s.num_blocks()),
        steps_(s.num_steps()),
        claim_(claim),
        hook_(hook),
        step_local_(step_local) {
    const uint64_t cell_bytes = cells_.words * 8;
    uint64_t per_block = std::max<uint64_t>(1, p_ * cell_bytes);
    chunk_ = static_cast<Block>(std::clamp<uint64_t>(o.memory_budget / per_block, 1, std::max<uint32_t>(nb_, 1)));
  }

  Verdicts run(CostMeasurement& cost) {
    std::vector<uint64_t> volume(p_, 0);
    int last_active = -1;
    for (Block lo = 0; lo < nb_; lo += chunk_) {
      Block hi = static_cast<Block>(std::min<uint64_t>(nb_, uint64_t{lo} + chunk_));
      const bool first_chunk = lo == 0;
      run_chunk(lo, hi, first_chunk && step_local_, volume, last_active);
      ++chunks_;
    }
    cost = measured_cost(volume, last_active);
    return merged(tls_);
  }
  uint64_t chunks() const { return chunks_; }

 private:
  uint64_t* cell(PooledWords& st, Rank r, Block b, Block lo, Block width) const {
    return st.data() + (uint64_t{r} * width + (b - lo)) * cells_.words;
  }

  void run_chunk(Block lo, Block hi, bool step_local, std::vector<uint64_t>& volume, int& last_active) {
    const Block width = hi - lo;
    // The state comes from the word pool (word_pool.hpp: reused across
    // instances, not per thread: while this thread waits inside a nested
    // parallel_for, TBB may run another instance on it). Its words are
    // stale; each rank's slice is zeroed here, in parallel, before its
    // cells are initialised.
    PooledWords state(p_ * width * cells_.words);
    const CollectiveSpec& spec = s_.spec();
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
      for (Rank r = rr.begin(); r != rr.end(); ++r) {
        uint64_t* c = cell(state, r, lo, lo, width);
        std::fill(c, c + uint64_t{width} * cells_.words, uint64_t{0});
        for (Block b = lo; b < hi; ++b, c += cells_.words) cells_.init(c, spec.initial_contributor(r, b));
      }
    });
    std::vector<RankStep> ops(p_);
    std::vector<Outbox> out(p_);
    for (int st = 0; st < steps_; ++st) {
      tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        for (Rank r = rr.begin(); r != rr.end(); ++r) s_.rank_step(r, st, ops[r]);
      });
      StepView sv{st, p_, s_.ports(), nb_, &ops};
      // Step-local properties, the step hook and cost accounting (first chunk only).
      if (step_local) step_local_checks(sv, hook_ ? hook_.at_step(st) : StepHook::RankCheck{}, tls_, volume, last_active);
      // Sends read the values before the step. If no rank receives into a
      // block it also sends in this step, no cell that is read is written,
      // and receives can read the sender's cells directly; otherwise every
      // send is first snapshotted into an outbox.
      std::atomic<bool> overlap{false};
      tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        for (Rank r = rr.begin(); r != rr.end() && !overlap.load(std::memory_order_relaxed); ++r)
          for (const Transfer& snd : ops[r].sends)
            for (const Transfer& rcv : ops[r].recvs)
              if (snd.blocks.intersects(rcv.blocks, lo, hi)) overlap = true;
      });
      const bool snapshot = overlap.load();
      // Causality (a): every sent block is held by its sender before the
      // step. With an outbox the check runs while snapshotting; without one
      // it runs when the receive reads the sender's cell (one pass over
      // memory instead of two), and for unreceived sends separately.
      if (snapshot) tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        Verdicts& v = tls_.local();
        for (Rank r = rr.begin(); r != rr.end(); ++r) {
          Outbox& o = out[r];
          const auto& sends = ops[r].sends;
          o.blocks.resize(sends.size());
          o.data.resize(sends.size());
          for (size_t i = 0; i < sends.size(); ++i) {
            o.blocks[i].clear();
            o.data[i].clear();
            for (const auto& rg : sends[i].blocks.ranges()) {
              const Block a = std::max(rg.lo, lo), z = std::min({rg.hi, hi, nb_});
              if (a >= z) continue;
              v[kCausality].checks += z - a;
              const uint64_t* c = cell(state, r, a, lo, width);
              for (Block b = a; b < z; ++b, c += cells_.words) {
                if (cells_.empty(c)) causality_sender_holds_nothing(v[kCausality], p_, r, st, b, sends[i].peer);
                o.blocks[i].push_back(b);
                o.data[i].insert(o.data[i].end(), c, c + cells_.words);
              }
            }
          }
        }
      });
      // Apply every receive.
      tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
        Verdicts& v = tls_.local();
        std::vector<const Transfer*> order;
        for (Rank r = rr.begin(); r != rr.end(); ++r) {
          if (!snapshot) {
            // Sends nobody receives still must send held data (with an
            // outbox this was checked while snapshotting). No receive of
            // this step writes these cells: that is what "no outbox" means.
            // A send is judged once (as with an outbox): by its first
            // receive if it has one and is the first of identical sends,
            // here otherwise.
            for (const Transfer& snd : ops[r].sends) {
              if (snd.peer < p_ && snd.peer != r && find_transfer(ops[snd.peer].recvs, r, snd.blocks, snd.combine) &&
                  find_transfer(ops[r].sends, snd.peer, snd.blocks, snd.combine) == &snd)
                continue;
              for (const auto& rg : snd.blocks.ranges()) {
                const Block a = std::max(rg.lo, lo), z = std::min({rg.hi, hi, nb_});
                for (Block b = a; b < z; ++b) {
                  ++v[kCausality].checks;
                  if (cells_.empty(cell(state, r, b, lo, width)))
                    causality_sender_holds_nothing(v[kCausality], p_, r, st, b, snd.peer);
                }
              }
            }
          }
          canonical_receive_order(ops[r].recvs, order);
          for (const Transfer* tp : order) {
            const Transfer& t = *tp;
            if (t.peer >= p_ || t.peer == r) continue;  // matching reports it
            const auto& peer_sends = ops[t.peer].sends;
            auto apply = [&](Block b, const uint64_t* in) {
              uint64_t* c = cell(state, r, b, lo, width);
              if (t.combine == Combine::reduce) {
                ++v[kCausality].checks;
                ++v[kExactlyOnce].checks;
                bool held = true;
                if (auto twice = cells_.reduce(c, in, held))
                  exactly_once_double(v[kExactlyOnce], p_, r, st, b, t.peer, *twice);
                if (!held) causality_reduce_into_undefined(v[kCausality], p_, r, st, b, t.peer);
              } else {
                ++v[kCausality].checks;
                if (auto lost = cells_.copy(c, in)) causality_copy_discards(v[kCausality], p_, r, st, b, t.peer, *lost);
              }
            };
            // Unmatched: only the blocks both ends list arrive (matching.hpp).
            for_each_delivery(peer_sends, ops[r].recvs, r, t, [&](size_t idx, bool whole) {
              if (snapshot) {
                const Outbox& o = out[t.peer];
                for (size_t k = 0; k < o.blocks[idx].size(); ++k)
                  if (whole || t.blocks.contains(o.blocks[idx][k]))
                    apply(o.blocks[idx][k], o.data[idx].data() + k * cells_.words);
                return;
              }
              // Causality (a) of the send, judged by its first receive only
              // (a send delivered in part was judged with the unreceived).
              const bool judge = whole && find_transfer(ops[r].recvs, t.peer, t.blocks, t.combine) == &t;
              const BlockSet part = whole ? BlockSet{} : t.blocks.intersect(peer_sends[idx].blocks);
              for (const auto& rg : (whole ? t.blocks : part).ranges()) {
                const Block a = std::max(rg.lo, lo), z = std::min({rg.hi, hi, nb_});
                const uint64_t* in = a < z ? cell(state, t.peer, a, lo, width) : nullptr;
                if (a < z && judge) v[kCausality].checks += z - a;
                for (Block b = a; b < z; ++b, in += cells_.words) {
                  if (judge && cells_.empty(in)) causality_sender_holds_nothing(v[kCausality], p_, t.peer, st, b, r);
                  apply(b, in);
                }
              }
            });
          }
        }
      });
    }
    judge_final(state, lo, hi);
  }

  void judge_final(PooledWords& state, Block lo, Block hi);

  const Schedule& s_;
  const Cells& cells_;
  uint64_t p_;
  uint64_t nb_;
  int steps_;
  const Claim* claim_;
  const StepHook& hook_;
  bool step_local_;
  Block chunk_ = 1;
  uint64_t chunks_ = 0;
  tbb::enumerable_thread_specific<Verdicts> tls_;
};

template <>
void FlowSimulator<ExactCells>::judge_final(PooledWords& state, Block lo, Block hi) {
  const Block width = hi - lo;
  const CollectiveSpec& spec = s_.spec();
  const int last = std::max(0, steps_ - 1);
  std::vector<uint64_t> full(cells_.bits, ~uint64_t{0});  // every rank's bit
  if (p_ % 64) full.back() = (uint64_t{1} << (p_ % 64)) - 1;
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
    Verdicts& v = tls_.local();
    for (Rank r = rr.begin(); r != rr.end(); ++r)
      for (Block b = lo; b < hi; ++b)
        judge_exact_cell(v[kPostcondition], spec, p_, r, last, b, cell(state, r, b, lo, width), cells_.bits, full);
  });
}

template <>
void FlowSimulator<FingerprintCells>::judge_final(PooledWords& state, Block lo, Block hi) {
  const Block width = hi - lo;
  const CollectiveSpec& spec = s_.spec();
  const int last = std::max(0, steps_ - 1);
  uint64_t all_sum = 0;
  for (Rank x = 0; x < p_; ++x) all_sum = addmod(all_sum, cells_.weight(x));
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p_)), [&](const auto& rr) {
    Verdicts& v = tls_.local();
    for (Rank r = rr.begin(); r != rr.end(); ++r) {
      for (Block b = lo; b < hi; ++b) {
        Requirement req = spec.required(r, b);
        if (req.kind == Requirement::Kind::none) continue;
        ++v[kPostcondition].checks;
        ++v[kExactlyOnce].checks;
        const uint64_t* c = cell(state, r, b, lo, width);
        const bool all = req.kind == Requirement::Kind::all_ranks;
        uint64_t want_count = all ? p_ : 1;
        uint64_t want_sum = all ? all_sum : cells_.weight(req.origin);
        if (c[0] == want_count && c[1] == want_sum) continue;
        if (c[0] > want_count || (c[0] == want_count && c[1] != want_sum))
          exactly_once_fingerprint(v[kExactlyOnce], p_, r, last, b, want_count, c[0], c[1] != want_sum);
        if (c[0] != want_count || c[1] != want_sum)
          postcondition_wrong(
              v[kPostcondition], p_, r, last, b,
              all ? "all " + std::to_string(p_) + " contributions (fingerprint)"
                  : "block from rank " + std::to_string(req.origin) + " (fingerprint)",
              std::to_string(c[0]) + " contribution(s), fingerprint " + (c[1] == want_sum ? "matches" : "differs"));
      }
    }
  });
}

template <class Cells>
DenseResult run_with(const Schedule& s, const Cells& cells, const Claim* claim, const StepHook& hook,
                     const CheckOptions& o) {
  FlowSimulator<Cells> sim(s, cells, o, true, claim, hook);
  DenseResult r;
  r.verdicts = sim.run(r.cost);
  r.chunks = sim.chunks();
  return r;
}

}  // namespace

DenseResult run_dense_exact(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o) {
  return run_with(s, ExactCells(s.p()), claim, hook, o);
}

DenseResult run_dense_fingerprint(const Schedule& s, const Claim* claim, const StepHook& hook,
                                  const CheckOptions& o) {
  return run_with(s, FingerprintCells(o.seed, s.p()), claim, hook, o);
}

}  // namespace collcheck::flow
