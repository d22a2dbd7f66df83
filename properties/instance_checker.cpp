#include "properties/instance_checker.hpp"

#include <tbb/blocked_range.h>
#include <unistd.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdio>
#include <tuple>

#include "properties/catalog.hpp"
#include "properties/causality.hpp"
#include "properties/cost.hpp"
#include "properties/exactly_once.hpp"
#include "properties/flow/flow_common.hpp"
#include "properties/flow/flow_interval.hpp"
#include "properties/flow/word_pool.hpp"
#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/extra_node_composition.hpp"
#include "properties/flow/fold_composition.hpp"
#include "properties/flow/group_quotient.hpp"
#include "properties/flow/held_enumeration.hpp"
#include "properties/parametric_decider.hpp"
#include "properties/swing/swing_rank_zero_masks.hpp"
#include "properties/flow/run_cells.hpp"
#include "properties/matching.hpp"
#include "properties/ports.hpp"
#include "properties/postcondition.hpp"
#include "properties/flow/root_cause.hpp"
#include "schedules/fold.hpp"
#include "schedules/swing/swing_odd_extra_node.hpp"
#include "schedules/input_error.hpp"
#include "schedules/int_math.hpp"

namespace collcheck {

bool CheckOptions::selected(const std::string& name) const {
  return properties.empty() || std::find(properties.begin(), properties.end(), name) != properties.end();
}

bool CheckOptions::any_generic_selected() const {
  for (const auto& info : property_catalog())
    if (info.generic && selected(info.name)) return true;
  return false;
}


const char* to_string(Exactness e) {
  switch (e) {
    case Exactness::automatic:
      return "auto";
    case Exactness::exact:
      return "exact";
    case Exactness::fingerprint:
      return "fingerprint";
  }
  return "?";
}

const char* to_string(Bookkeeping b) {
  switch (b) {
    case Bookkeeping::automatic:
      return "auto";
    case Bookkeeping::dense:
      return "dense";
    case Bookkeeping::intervals:
      return "intervals";
  }
  return "?";
}

namespace {

using namespace flow;

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

InstanceCheck assemble(const Schedule& s, Verdicts v, const CostMeasurement& cost, const Claim* claim,
                       const StepHook& hook, const std::string& mode) {
  const char* names[kSlots] = {prop::matching,     prop::ports,         prop::causality,
                               prop::exactly_once, prop::postcondition, ""};
  InstanceCheck out;
  out.mode = mode;
  for (int i = 0; i < kSlots; ++i) {
    v[i].property = names[i];
    bool flow = i == kCausality || i == kExactlyOnce || i == kPostcondition;
    v[i].mode = flow ? mode : "exact";
  }
  for (int i : {kMatching, kPorts, kCausality, kExactlyOnce, kPostcondition}) out.verdicts.push_back(v[i]);
  out.verdicts.push_back(judge_cost(s.p(), cost, claim));
  if (hook) {
    v[kHook].property = hook.property;
    out.verdicts.push_back(v[kHook]);
  }
  out.stats["steps"] = std::to_string(cost.steps);
  out.stats["max_volume_blocks"] = std::to_string(cost.max_volume);
  return out;
}

template <class Cells>
InstanceCheck run_with(const Schedule& s, const Cells& cells, const Claim* claim, const StepHook& hook,
                       const CheckOptions& o, const std::string& mode) {
  FlowSimulator<Cells> sim(s, cells, o, true, claim, hook);
  CostMeasurement cost;
  Verdicts v = sim.run(cost);
  InstanceCheck out = assemble(s, std::move(v), cost, claim, hook, mode);
  out.stats["chunks"] = std::to_string(sim.chunks());
  return out;
}

}  // namespace

namespace {
constexpr uint64_t kMaxDenseCells = uint64_t{1} << 32;  // p = 2^16 with p blocks: ~100 s
// p * nblocks for a message: the product, or "more than 2^64" (64-bit block counts).
std::string cell_count(uint64_t p, uint64_t nblocks) {
  const uint64_t c = sat_mul(p, nblocks);
  return c == UINT64_MAX ? "more than 2^64 - 2" : std::to_string(c);
}
}

std::optional<std::string> infeasible(uint64_t p, uint64_t nblocks, const CheckOptions& o) {
  Exactness e = o.exactness;
  if (e == Exactness::automatic) e = p <= o.exact_max_p ? Exactness::exact : Exactness::fingerprint;
  if (sat_mul(p, nblocks) > kMaxDenseCells && (e == Exactness::exact || o.bookkeeping == Bookkeeping::dense))
    return "p * nblocks = " + cell_count(p, nblocks) +
           " (rank, block) cells exceed the dense checker's limit of 2^32 (p = " + std::to_string(p) +
           "); fingerprint mode with interval bookkeeping (--state auto picks it where transfers are few block "
           "ranges) has no such limit";
  const uint64_t per_block = p * ((p + 63) / 64 + 1) * 8;
  if (e == Exactness::exact && per_block > o.memory_budget)
    return "exact mode needs " + std::to_string(per_block >> 20) + " MiB per block at p = " + std::to_string(p) +
           ", more than the memory budget; use --mode fingerprint or a larger --memory-gib";
  return std::nullopt;
}

namespace {
bool held_takes(const Schedule& s, const CheckOptions& o, Exactness e);
}  // namespace

std::optional<std::string> infeasible(const Schedule& s, const CheckOptions& o) {
  Exactness e = o.exactness;
  if (e == Exactness::automatic) e = s.p() <= o.exact_max_p ? Exactness::exact : Exactness::fingerprint;
  if (held_takes(s, o, e)) return std::nullopt;
  return infeasible(s.p(), s.num_blocks(), o);
}

namespace {

// The process itself (code, TBB's threads, the report), charged once.
constexpr uint64_t kProcessBaseline = uint64_t{32} << 20;

// The largest per-step range count and sent-block count of rank 0 (the
// estimate takes every rank to be like rank 0; exact for the rotation-
// invariant schedules, an assumption otherwise, stated in the estimate).
struct RankZeroSize {
  uint64_t ranges = 0, transfers = 0, sent_blocks = 0, recv_blocks = 0;
  uint64_t sent_total = 0, recv_total = 0;  // over all steps
};
RankZeroSize rank_zero_size(const Schedule& s) {
  RankZeroSize z;
  RankStep rs;
  for (int st = 0; st < s.num_steps(); ++st) {
    s.rank_step(0, st, rs);
    uint64_t ranges = 0, sent = 0, recv = 0;
    for (const Transfer& t : rs.sends) ranges += t.blocks.ranges().size(), sent += t.blocks.size();
    for (const Transfer& t : rs.recvs) ranges += t.blocks.ranges().size(), recv += t.blocks.size();
    z.ranges = std::max(z.ranges, ranges);
    z.transfers = std::max<uint64_t>(z.transfers, rs.sends.size() + rs.recvs.size());
    z.sent_blocks = std::max(z.sent_blocks, sent);
    z.recv_blocks = std::max(z.recv_blocks, recv);
    z.sent_total += sent;
    z.recv_total += recv;
  }
  return z;
}

// Whether exact enumeration keeps cells only for held blocks
// (flow/held_enumeration.hpp): an all-to-all, unless dense cells are asked for.
bool held_takes(const Schedule& s, const CheckOptions& o, Exactness e) {
  return e == Exactness::exact && o.bookkeeping != Bookkeeping::dense && flow::held_enumeration_applies(s);
}

MemoryEstimate generic_estimate(const Schedule& s, const CheckOptions& o, Exactness e, const RankZeroSize& z) {
  const uint64_t p = s.p(), nb = s.num_blocks();
  if (held_takes(s, o, e)) {
    const uint64_t cell_bytes = 8;  // one word per block (a single contribution; sets are copied as they come)
    const uint64_t state = flow::held_enumeration_bytes(s, z.recv_total);
    const uint64_t ops = p * (sizeof(RankStep) + 2 * 16 + z.transfers * (sizeof(Transfer) + 32) +
                              z.ranges * sizeof(BlockSet::Range));
    const uint64_t outbox = p * (sizeof(RankStep) + z.transfers * (2 * 40 + 2 * 32)) +
                            p * z.sent_blocks * (sizeof(Block) + cell_bytes);
    MemoryEstimate m;
    m.bytes = state + ops + outbox + p * 8 + kProcessBaseline;
    m.how = "exact simulation, held cells only: at most " + gib(state) + " of cells (" + std::to_string(p) +
            " own and " + std::to_string(z.recv_total) + " received blocks per rank), transfers " + gib(ops) +
            ", outbox " + gib(outbox) + ", process 0.0312 GiB (every rank taken to be like rank 0)";
    return m;
  }
  const uint64_t cell_bytes = e == Exactness::exact ? ((p + 63) / 64 + 1) * 8 : 16;
  const uint64_t per_block = std::max<uint64_t>(1, p * cell_bytes);
  const uint64_t chunk = std::clamp<uint64_t>(o.memory_budget / per_block, 1, std::max<uint64_t>(nb, 1));
  MemoryEstimate m;
  const uint64_t state = chunk * per_block;
  // Heap blocks carry ~16 bytes of malloc overhead and round up to 32.
  const uint64_t ops = p * (sizeof(RankStep) + 2 * 16 + z.transfers * (sizeof(Transfer) + 32) +
                            z.ranges * sizeof(BlockSet::Range));
  const uint64_t outbox = p * (sizeof(RankStep) + z.transfers * (2 * 40 + 2 * 32)) +
                          p * std::min<uint64_t>(z.sent_blocks, chunk) * (sizeof(Block) + cell_bytes);
  const uint64_t per_rank = p * 8 * 2 + kProcessBaseline;  // send volume, fingerprint weights
  m.bytes = state + ops + outbox + per_rank;
  m.how = std::string(e == Exactness::exact ? "exact" : "fingerprint") + " simulation: contribution state " +
          gib(state) + " (" + std::to_string(chunk) + " of " + std::to_string(nb) + " blocks per chunk), transfers " +
          gib(ops) + ", outbox " + gib(outbox) + ", process 0.0312 GiB (every rank taken to be like rank 0)";
  return m;
}

MemoryEstimate rotation_estimate(const Schedule& s, const RankZeroSize& z) {
  const uint64_t p = s.p(), nb = s.num_blocks();
  const auto* eq = dynamic_cast<const EquivariantSchedule*>(&s);
  const uint64_t words = eq ? flow::quotient_cell_words(*eq) : (p + 63) / 64 + 1;
  MemoryEstimate m;
  const uint64_t state = sat_mul(sat_mul(nb, words), 8);
  const uint64_t inbox = 2 * z.recv_blocks * words * 8;
  // RankStep headers for every rank; rank 0, its peers and one per thread in full.
  const uint64_t ops = p * sizeof(RankStep) + (z.transfers + 8) * (z.ranges * sizeof(BlockSet::Range) + sizeof(Transfer) + 32);
  m.bytes = state + inbox + ops + kProcessBaseline;
  m.how = "exact by symmetry: rank 0's contribution state " + gib(state) + ", received cells " + gib(inbox) +
          ", transfers " + gib(ops) + ", process 0.0312 GiB";
  return m;
}

// The certified quotient of an all-to-all (blocks as pairs): the cells rank
// 0 touches, at most its own p, the p it is judged on, and every block it
// sends or receives (a sent block it does not hold is touched too), one
// RankStep per rank, rank 0's and its peers' transfers.
MemoryEstimate held_estimate(const Schedule& s, const RankZeroSize& z) {
  MemoryEstimate m;
  const uint64_t held = 2 * s.p() + z.sent_total + z.recv_total;
  const uint64_t cells = held * 64;  // a hash map node (key, cell) and its bucket
  const uint64_t ops = s.p() * sizeof(RankStep) + (z.transfers + 8) * (z.ranges * sizeof(BlockSet::Range) + 64);
  m.bytes = cells + ops + kProcessBaseline;
  m.how = "exact by symmetry, rank 0's held blocks only: at most " + std::to_string(held) + " cells, " + gib(cells) +
          ", transfers " + gib(ops) + ", process 0.0312 GiB";
  return m;
}

// The certified quotient with runs of ranks: rank 0's cells (about log2 p
// runs each; their real size is checked as the quotient runs, at most the
// memory budget), one RankStep per rank, rank 0's and its peers' transfers.
MemoryEstimate runs_estimate(const Schedule& s, const RankZeroSize& z) {
  MemoryEstimate m;
  const uint64_t cells = uint64_t{s.num_blocks()} * (sizeof(flow::RunSet) + 8 * (2 + std::bit_width(s.p())));
  const uint64_t ops = s.p() * sizeof(RankStep) + (z.transfers + 8) * (z.ranges * sizeof(BlockSet::Range) + 64);
  m.bytes = cells + ops + kProcessBaseline;
  m.how = "exact by symmetry, runs of ranks: rank 0's cells about " + gib(cells) +
          " (checked as they grow, at most the memory budget), transfers " + gib(ops) + ", process 0.0312 GiB";
  return m;
}

// Whether fingerprint mode keeps interval state for `s` (with its plan):
// asked for, or predicted cheaper than dense cells. Over the dense limit
// with transfers too scattered for intervals to pay, the instance is bad
// input (as the dense limit always was), never an attempt at either.
std::optional<IntervalPlan> interval_plan(const Schedule& s, const CheckOptions& o, Exactness e) {
  if (e != Exactness::fingerprint || o.bookkeeping == Bookkeeping::dense) return std::nullopt;
  IntervalPlan plan = plan_intervals(s);
  if (o.bookkeeping == Bookkeeping::intervals || plan.cheaper()) return plan;
  if (sat_mul(s.p(), s.num_blocks()) > kMaxDenseCells)
    throw InputError("p * nblocks = " + cell_count(s.p(), s.num_blocks()) +
                     " (rank, block) cells exceed the dense checker's limit of 2^32, and the transfers are too "
                     "scattered for interval bookkeeping to pay (" + plan.how + ")");
  return std::nullopt;
}

}  // namespace

MemoryEstimate estimate_memory(const Schedule& s, const CheckOptions& o) {
  Exactness e = o.exactness;
  if (e == Exactness::automatic) e = s.p() <= o.exact_max_p ? Exactness::exact : Exactness::fingerprint;
  const RankZeroSize z = rank_zero_size(s);
  MemoryEstimate gen = generic_estimate(s, o, e, z);
  const auto* eq = dynamic_cast<const EquivariantSchedule*>(&s);
  if (eq && o.use_symmetry && o.exactness != Exactness::fingerprint && eq->action().block_action() == BlockAction::pairs) {
    MemoryEstimate held = held_estimate(s, z);
    held.fallback_bytes = gen.bytes;
    return held;
  }
  const bool symmetric = eq != nullptr || flow::probe_rotation(s);
  const uint64_t state = eq ? flow::quotient_state_bytes(*eq) : flow::rotation_state_bytes(s.p(), s.num_blocks());
  if (o.use_symmetry && o.exactness != Exactness::fingerprint && symmetric && state <= o.memory_budget) {
    MemoryEstimate rot = rotation_estimate(s, z);
    rot.fallback_bytes = gen.bytes;
    return rot;
  }
  if (quotient_uses_runs(s, o)) {
    MemoryEstimate runs = runs_estimate(s, z);
    runs.fallback_bytes = gen.bytes;
    return runs;
  }
  try {
    if (auto plan = interval_plan(s, o, e)) return {plan->memory_bytes, plan->how};
  } catch (const InputError&) {  // check_schedule refuses it; say what intervals would need
    const IntervalPlan plan = plan_intervals(s);
    return {plan.memory_bytes, plan.how};
  }
  return gen;
}

bool uses_intervals(const Schedule& s, const CheckOptions& o) {
  Exactness e = o.exactness;
  if (e == Exactness::automatic) e = s.p() <= o.exact_max_p ? Exactness::exact : Exactness::fingerprint;
  return interval_plan(s, o, e).has_value();
}

bool quotient_takes_1d(const Schedule& s, const CheckOptions& o) {
  if (!o.use_symmetry || o.exactness == Exactness::fingerprint) return false;
  const auto* eq = dynamic_cast<const EquivariantSchedule*>(&s);
  return eq && !eq->action().torus();
}

bool quotient_uses_runs(const Schedule& s, const CheckOptions& o) { return quotient_takes_1d(s, o); }

uint64_t quotient_bits_bytes(uint64_t p, uint64_t nblocks) { return flow::rotation_state_bytes(p, nblocks); }

uint64_t quotient_box_words(const Schedule& s, const CheckOptions& o) {
  if (!o.use_symmetry || o.exactness == Exactness::fingerprint) return 0;
  const auto* eq = dynamic_cast<const EquivariantSchedule*>(&s);
  if (!eq || !eq->action().torus() || flow::quotient_state_bytes(*eq) > o.memory_budget) return 0;
  return flow::quotient_cell_words(*eq);
}

uint64_t default_max_memory() {
  return physical_memory() / 4 * 3;  // unknown (0): no guard
}

std::string refusal(const MemoryEstimate& m, uint64_t limit) {
  return std::string(kRefusedPrefix) + " before allocating: needs an estimated " + gib(m.bytes) + " (" + m.how +
         "), more than --max-memory " + gib(limit);
}

// One trace per counterexample, only for the reported one.
void explain_final_values(const Schedule& s, const std::vector<Verdict*>& verdicts) {
  const int last = std::max(0, s.num_steps() - 1);
  std::vector<TraceRequest> requests;
  for (Verdict* vp : verdicts) {
    Verdict& v = *vp;
    const bool post = v.property == prop::postcondition, once = v.property == prop::exactly_once;
    if ((!post && !once) || !v.counterexample) continue;
    Counterexample& cx = *v.counterexample;
    if (!cx.rank || !cx.block || cx.step != last || (once && cx.peer)) continue;
    cx.root_cause.emplace();
    requests.push_back({*cx.rank, *cx.block, post ? TraceFocus::missing_first : TraceFocus::doubled_first,
                        &*cx.root_cause});
  }
  if (!requests.empty()) trace_root_causes(s, requests);
}

namespace {

InstanceCheck run_checks(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o);

}  // namespace

// The certified quotient of `eq` (flow_rotation.hpp, run_quotient) with
// the cells that fit: an all-to-all's held blocks, boxes under a torus
// group, else runs of ranks while they stay small, then p-bit sets while
// those fit the budget and --max-memory. nullopt: declined (`declined` says
// why). `cells`: the representation that decided, for the method text.
static std::optional<flow::RotationResult> certified_quotient(const EquivariantSchedule& eq, const StepHook& hook,
                                                              const CheckOptions& o, const RankZeroSize& z,
                                                              std::string* declined, const char** cells,
                                                              bool copy_superset = false) {
  const bool torus = eq.action().torus();
  const uint64_t bits_bytes = flow::quotient_state_bytes(eq);
  const bool bits_fit = bits_bytes <= o.memory_budget;
  const uint64_t runs_budget = o.max_memory ? std::min(o.memory_budget, o.max_memory) : o.memory_budget;
  const bool bits_allowed = bits_fit && !(o.max_memory && rotation_estimate(eq, z).bytes > o.max_memory);
  const bool runs_allowed = !torus && !(o.max_memory && runs_estimate(eq, z).bytes > o.max_memory);
  std::optional<flow::RotationResult> q;
  if (eq.action().block_action() == BlockAction::pairs) {
    // An all-to-all's (source, destination) pairs: p * p cells, of which
    // rank 0 holds only its own and what it receives.
    if (o.max_memory && held_estimate(eq, z).bytes > o.max_memory)
      *declined = "rank 0's held blocks exceed --max-memory";
    else if ((q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::sparse, runs_budget, copy_superset)))
      *cells = "the blocks it holds only (one contributor per cell, in a hash map, exact)";
  } else if (torus) {
    if (!bits_fit) *declined = "rank 0's exact state exceeds the memory budget";
    else if (!bits_allowed) *declined = "rank 0's exact state exceeds --max-memory";
    else if ((q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::bits, 0, copy_superset)))
      *cells = "boxes (products of per-dimension coordinate sets, exact)";
  } else {
    if (runs_allowed && (q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::runs,
                                                bits_allowed ? std::min(bits_bytes, runs_budget) : runs_budget,
                                                copy_superset)))
      *cells = "runs of ranks (exact)";
    if (!q && bits_allowed && (q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::bits, 0, copy_superset)))
      *cells = "p-bit sets";
    if (!q && !runs_allowed && !bits_allowed) *declined = "rank 0's exact state exceeds --max-memory";
  }
  return q;
}

bool grouped_takes(const Schedule& s, const CheckOptions& o) {
  if (!o.use_symmetry || o.exactness == Exactness::fingerprint || !o.grouped_quotient) return false;
  if (swing::swing_mask_schedule(s)) return true;
  if (const auto* odd = dynamic_cast<const SwingOddExtraNode*>(&s))
    return swing_odd_composition_expected(s.p(), odd->ring().rule());
  const auto* f = dynamic_cast<const FoldedSchedule*>(&s);
  return f && swing::swing_mask_schedule(f->inner()).has_value();
}

InstanceCheck check_schedule(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o) {
  InstanceCheck out = run_checks(s, claim, hook, o);
  if (!out.refused && o.trace_root_causes) {
    std::vector<Verdict*> all;
    for (Verdict& v : out.verdicts) all.push_back(&v);
    explain_final_values(s, all);
  }
  return out;
}

namespace {

// "" if both lists judge the same properties alike (status, checks,
// violations, minimal counterexample), else the first difference.
std::string verdict_difference(const std::vector<Verdict>& a, const std::vector<Verdict>& b) {
  if (a.size() != b.size()) return std::to_string(a.size()) + " verdicts against " + std::to_string(b.size());
  auto where = [](const Verdict& v) {
    return v.counterexample ? v.counterexample->location() + " " + v.counterexample->expected + " / " +
                                  v.counterexample->actual
                            : std::string("no counterexample");
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const Verdict &x = a[i], &y = b[i];
    if (x.property != y.property || x.status != y.status || x.checks != y.checks || x.violations != y.violations ||
        where(x) != where(y))
      return x.property + ": quotient " + to_string(x.status) + " (" + std::to_string(x.violations) + " of " +
             std::to_string(x.checks) + ", " + where(x) + "), enumerated " + to_string(y.status) + " (" +
             std::to_string(y.violations) + " of " + std::to_string(y.checks) + ", " + where(y) + ")";
  }
  return "";
}

// The group cap of a grouped quotient of `ms` within the memory budget and
// --max-memory, 0 if rank 0's masks do not fit.
uint64_t group_cap(const flow::MaskSchedule& ms, const CheckOptions& o) {
  const uint64_t mask_bytes = (ms.spec.p + 63) / 64 * 8;
  uint64_t limit = o.memory_budget;
  if (o.max_memory) limit = std::min(limit, o.max_memory);
  // Two masks per group plus the step's incoming groups (as many again) and
  // rank 0's step masks.
  const uint64_t fixed = (static_cast<uint64_t>(ms.steps) + 8) * mask_bytes;
  if (limit <= fixed + 64 * mask_bytes) return 0;
  return std::min<uint64_t>(512, (limit - fixed) / (4 * mask_bytes));
}

// The fold composition (flow/fold_composition.hpp) of `f` over its core
// `ms`, within the same budget.
std::optional<flow::FoldCompositionResult> fold_composition(const FoldedSchedule& f, const flow::MaskSchedule& ms,
                                                            const StepHook& hook, const CheckOptions& o,
                                                            std::string* declined) {
  const uint64_t cap = group_cap(ms, o);
  if (!cap) {
    *declined = "fold composition: the core's masks exceed the memory budget";
    return std::nullopt;
  }
  return flow::run_fold_composition(f, f.inner(), ms, hook, declined, cap);
}

// The grouped quotient (flow/group_quotient.hpp) of `ms` if it certifies
// the instance within the memory budget and --max-memory; nullopt otherwise
// (`declined` says why).
std::optional<flow::GroupQuotientResult> grouped_quotient(const flow::MaskSchedule& ms, const StepHook& hook,
                                                          const CheckOptions& o, std::string* declined) {
  const uint64_t cap = group_cap(ms, o);
  if (!cap) {
    *declined = "rank 0's masks exceed the memory budget";
    return std::nullopt;
  }
  return flow::run_group_quotient(ms, hook, declined, cap);
}

// Exact enumeration: every rank, every step. An all-to-all keeps cells only
// for the blocks each rank holds (flow/held_enumeration.hpp; the same
// verdicts as the dense cells, at a fraction of p^3 cells), unless dense
// cells are asked for; everything else keeps a cell per (rank, block).
InstanceCheck enumerate_exact(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o) {
  if (!held_takes(s, o, Exactness::exact)) return run_with(s, ExactCells(s.p()), claim, hook, o, "exact");
  flow::HeldEnumerationResult r = flow::run_held_enumeration(s, hook, o.max_memory);
  if (r.aborted) {
    InstanceCheck out;
    out.refused = std::string(kRefusedPrefix) + " while running: " + *r.aborted;
    return out;
  }
  InstanceCheck out = assemble(s, std::move(r.verdicts), r.cost, claim, hook, "exact");
  out.stats["method"] = flow::kHeldEnumerationMethod;
  out.stats["held_cells"] = std::to_string(r.max_cells);
  return out;
}

InstanceCheck run_checks(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o) {
  Exactness e = o.exactness;
  if (e == Exactness::automatic) e = s.p() <= o.exact_max_p ? Exactness::exact : Exactness::fingerprint;
  // Translation-invariant schedules: exact, by the verified symmetry of
  // flow_rotation.hpp, whatever p (an explicit --mode fingerprint keeps the
  // generic fingerprint simulation).
  // The memory guard: the estimate of the mode that will run, before
  // anything is allocated (the symmetry mode may fall back to the generic
  // simulation, which is estimated again before it starts).
  // Rank 0's step sizes, generated on first use (the grouped quotient never
  // needs them: its masks are sized by p).
  std::optional<RankZeroSize> z_;
  auto zsize = [&]() -> const RankZeroSize& {
    if (!z_) z_ = o.max_memory ? rank_zero_size(s) : RankZeroSize{};
    return *z_;
  };
  auto refused = [&](const MemoryEstimate& m) {
    InstanceCheck out;
    out.refused = refusal(m, o.max_memory);
    out.stats["memory_estimate_bytes"] = std::to_string(m.bytes);
    return out;
  };
  // A schedule equivariant by construction (schedules/symmetry.hpp): rank 0
  // alone, by the certified quotient (flow_rotation.hpp, run_quotient). It
  // declines (and the instance is enumerated, saying why) where the
  // quotient argument does not cover a step.
  std::string quotient_declined, grouped_declined, parametric_declined;
  // A parametric certificate proved for an interval holding p decides the
  // instance without simulating it (parametric_decider.hpp).
  if (o.parametric && !hook && o.use_symmetry && o.exactness != Exactness::fingerprint)
    if (auto d = o.parametric->decide(s, &parametric_declined)) {
      InstanceCheck out = assemble(s, std::move(d->verdicts), d->cost, claim, hook, "exact");
      out.stats["method"] = std::move(d->method);
      return out;
    }
  // A fold whose core comes as masks: a composition (flow/fold_composition.hpp),
  // the core by the grouped quotient at p', the wrapper checked directly.
  if (o.use_symmetry && o.exactness != Exactness::fingerprint && o.grouped_quotient)
    if (const auto* f = dynamic_cast<const FoldedSchedule*>(&s))
      if (auto ms = swing::swing_mask_schedule(f->inner())) {
        if (!o.reuse_certificates) ms->memo_key.clear();
        const auto* core = dynamic_cast<const EquivariantSchedule*>(&f->inner());
        if (auto fc = fold_composition(*f, *ms, hook, o, &grouped_declined)) {
          InstanceCheck out = assemble(s, std::move(fc->result.verdicts), fc->result.cost, claim, hook, "exact");
          // The same text for every p of a kind (reports group instances by method).
          const uint64_t extra = s.p() - f->inner().p();
          out.stats["method"] = "composition: fold of " + (extra == 1 ? std::string("rank p-1 onto the core of p-1 ranks")
                                                                       : "the extra ranks onto a core of p' ranks") +
                                "; core: " +
                                kQuotientMethod + ": " + core->action().describe() + "; certificate: " +
                                core->certificate() +
                                "; rank 0 simulated as groups of blocks sharing one contribution set (" +
                                ms->representation + "); obligations: " + fc->obligations;
          out.stats["max_groups"] = std::to_string(fc->max_groups);
          return out;
        }
      }
  // Swing's own odd-p scheme: the ring of p - 1 ranks by the grouped
  // quotient, the extra rank's exchanges read directly
  // (flow/extra_node_composition.hpp).
  if (o.use_symmetry && o.exactness != Exactness::fingerprint && o.grouped_quotient && grouped_declined.empty())
    if (const auto* odd = dynamic_cast<const SwingOddExtraNode*>(&s)) {
      const auto* core = dynamic_cast<const EquivariantSchedule*>(&odd->ring_steps());
      auto ms = core ? swing::swing_mask_schedule(*core) : std::nullopt;
      if (!ms) {
        grouped_declined = "extra-node composition: the ring of p - 1 ranks has no rank-0 masks";
      } else if (const uint64_t cap = group_cap(*ms, o); !cap) {
        grouped_declined = "extra-node composition: the core's masks exceed the memory budget";
      } else {
        if (!o.reuse_certificates) ms->memo_key.clear();
        if (auto ec = flow::run_extra_node_composition(s, *core, *ms, hook, &grouped_declined, cap)) {
          InstanceCheck out = assemble(s, std::move(ec->result.verdicts), ec->result.cost, claim, hook, "exact");
          out.stats["method"] = std::string("composition: the extra rank p-1 beside the ring of p-1 ranks; core: ") +
                                kQuotientMethod + ": " + core->action().describe() + "; certificate: " +
                                core->certificate() + "; rank 0 simulated as groups of blocks sharing one contribution set (" +
                                ms->representation + "); obligations: " + ec->obligations;
          out.stats["max_groups"] = std::to_string(ec->max_groups);
          return out;
        }
      }
    }
  // A fold over any other certified core (recursive doubling's hypercube,
  // Rabenseifner's): the same composition, the core by the certified
  // quotient at p' with the cells that fit.
  if (o.use_symmetry && o.exactness != Exactness::fingerprint && grouped_declined.empty())
    if (const auto* f = dynamic_cast<const FoldedSchedule*>(&s))
      if (const auto* core = dynamic_cast<const EquivariantSchedule*>(&f->inner());
          core && !swing::swing_mask_schedule(f->inner())) {
        const char* cells = nullptr;
        const RankZeroSize core_size = o.max_memory ? rank_zero_size(*core) : RankZeroSize{};
        auto fc = flow::run_fold_composition(
            s, *core,
            [&](const StepHook& core_hook, std::string* why) -> std::optional<flow::FoldCore> {
              auto q = certified_quotient(*core, core_hook, o, core_size, why, &cells, true);
              if (!q) return std::nullopt;
              const bool superset = q->every_copy_superset;
              return flow::FoldCore{std::move(*q), 0, superset, "the certified quotient"};
            },
            hook, &quotient_declined);
        if (fc) {
          InstanceCheck out = assemble(s, std::move(fc->result.verdicts), fc->result.cost, claim, hook, "exact");
          const uint64_t extra = s.p() - core->p();
          out.stats["method"] = "composition: fold of " +
                                (extra == 1 ? std::string("rank p-1 onto the core of p-1 ranks")
                                            : "the extra ranks onto a core of p' ranks") +
                                "; core: " + kQuotientMethod + ": " + core->action().describe() +
                                "; certificate: " + core->certificate() + "; rank 0 simulated with " + cells +
                                "; obligations: " + fc->obligations;
          return out;
        }
      }
  if (o.use_symmetry && o.exactness != Exactness::fingerprint) {
    if (const auto* eq = dynamic_cast<const EquivariantSchedule*>(&s)) {
      auto with_grouped = [&](InstanceCheck out) {
        if (!grouped_declined.empty()) out.stats["grouped_declined"] = grouped_declined;
        if (!parametric_declined.empty()) out.stats["parametric_declined"] = parametric_declined;
        return out;
      };
      // A refutation by a quotient is re-checked by enumeration while p is
      // small enough for exact mode (--exact-max-p): the counterexample is
      // already concrete (rank 0 is the identity's rank), and both checkers
      // must report the same properties, counts and minimal counterexamples.
      // A disagreement is a defect of collcheck: the enumerated verdicts are
      // reported, and the disagreement with them.
      auto rechecked = [&](InstanceCheck out) {
        const bool refuted = std::any_of(out.verdicts.begin(), out.verdicts.end(),
                                         [](const Verdict& v) { return v.status == Status::violated; });
        if (!refuted || s.p() > std::min(o.exact_max_p, o.recheck_max_p)) return with_grouped(std::move(out));
        InstanceCheck enumerated = enumerate_exact(s, claim, hook, o);
        if (enumerated.refused) {
          out.stats["quotient_rechecked"] = "not rechecked: " + *enumerated.refused;
          return with_grouped(std::move(out));
        }
        if (std::string diff = verdict_difference(out.verdicts, enumerated.verdicts); !diff.empty()) {
          enumerated.stats["quotient_disagreed"] = diff;
          return with_grouped(std::move(enumerated));
        }
        out.stats["quotient_rechecked"] = "the enumerated exact check agrees";
        return with_grouped(std::move(out));
      };
      // First the grouped quotient (flow/group_quotient.hpp) where rank 0's
      // steps come as masks. It decides what its word-parallel pass covers,
      // violations included (counted per group pair, the counterexample at
      // the pair's first block); anything else (a read-after-write hazard,
      // too many groups) declines to the cell-by-cell quotient below.
      auto ms = o.grouped_quotient ? swing::swing_mask_schedule(s) : std::nullopt;
      if (ms && !o.reuse_certificates) ms->memo_key.clear();
      if (ms)
        if (auto gq = grouped_quotient(*ms, hook, o, &grouped_declined)) {
          InstanceCheck out = assemble(s, std::move(gq->result.verdicts), gq->result.cost, claim, hook, "exact");
          out.stats["method"] = std::string(kQuotientMethod) + ": " + eq->action().describe() +
                                "; certificate: " + eq->certificate() +
                                "; rank 0 simulated as groups of blocks sharing one contribution set (" +
                                ms->representation + ")";
          out.stats["max_groups"] = std::to_string(gq->max_groups);
          return rechecked(std::move(out));
        }
      // Rank 0's row, under a 1D group, first as runs of ranks (exact, sized
      // by content: where the sets are intervals, as in the ring, Träff's
      // circulant collectives and Trivance at 3^k, far smaller and faster
      // than p-bit sets), stopped when the runs outgrow the p-bit row (or the
      // budget), then as p-bit sets while those fit; under a torus group as
      // boxes (flow_rotation.hpp).
      const char* cells = nullptr;
      std::optional<flow::RotationResult> q =
          certified_quotient(*eq, hook, o, zsize(), &quotient_declined, &cells);
      if (q) {
        InstanceCheck out = assemble(s, std::move(q->verdicts), q->cost, claim, hook, "exact");
        out.stats["method"] = std::string(kQuotientMethod) + ": " + eq->action().describe() +
                              "; certificate: " + eq->certificate() + "; rank 0 simulated with " + cells;
        return rechecked(std::move(out));
      }
    }
  }
  // Every enumerated result of an equivariant schedule says why the
  // quotient did not decide it.
  auto declined = [&](InstanceCheck out) {
    if (!quotient_declined.empty()) out.stats["quotient_declined"] = quotient_declined;
    if (!grouped_declined.empty()) out.stats["grouped_declined"] = grouped_declined;
    if (!parametric_declined.empty()) out.stats["parametric_declined"] = parametric_declined;
    return out;
  };
  // The symmetry method never runs with a step hook (run_rotation declines);
  // above --max-memory it is not refused but left to the generic estimate
  // below, which may still fit by chunking.
  if (o.use_symmetry && o.exactness != Exactness::fingerprint && !hook) {
    if (auto h = flow::probe_rotation(s);
        h && flow::rotation_state_bytes(s.p(), s.num_blocks()) <= o.memory_budget &&
        (!o.max_memory || rotation_estimate(s, zsize()).bytes <= o.max_memory)) {
      if (auto rot = flow::run_rotation(s, *h, hook)) {
        InstanceCheck out = assemble(s, std::move(rot->verdicts), rot->cost, claim, hook, "exact");
        out.stats["method"] = kRotationMethod;
        out.stats["invariance_checks"] = std::to_string(rot->invariance_checks);
        out.stats["block_shift"] = std::to_string(*h);
        return declined(std::move(out));
      }
    }
  }
  const std::string fingerprint_mode = "fingerprint (count + 61-bit weighted sum; false pass <= 2^-61 per check)";
  // Fingerprint mode: interval bookkeeping when it predicts less work than
  // the dense cells or is asked for (--state intervals); over the dense
  // limit with scattered transfers interval_plan throws (bad input).
  std::optional<IntervalPlan> plan;
  try {
    plan = interval_plan(s, o, e);
  } catch (const InputError& refused_outright) {
    // A valid instance no method decides: not decided (exit 3), saying why
    // each method declined; never bad input.
    InstanceCheck out;
    std::string why = std::string(kUndecidedPrefix) + ": " + refused_outright.what();
    if (!grouped_declined.empty()) why += "; the grouped quotient or fold composition declined: " + grouped_declined;
    if (!quotient_declined.empty()) {
      const bool budget = quotient_declined.find("memory budget") != std::string::npos;
      why += "; the certified quotient declined: " + quotient_declined + (budget ? " (raise --memory-gib)" : "");
    }
    out.refused = why;
    return declined(std::move(out));
  }
  if (plan) {
    if (o.max_memory && plan->memory_bytes > o.max_memory) return declined(refused({plan->memory_bytes, plan->how}));
    // The plan is an estimate from rank 0; the run itself stops (refused,
    // nothing judged) if the pieces outgrow --max-memory.
    IntervalResult r = run_intervals(s, fingerprint_weights(o.seed, s.p()), hook, o.max_memory);
    if (r.aborted) {
      InstanceCheck out;
      out.refused = std::string(kRefusedPrefix) + " while running: " + *r.aborted;
      return declined(std::move(out));
    }
    InstanceCheck out = assemble(s, std::move(r.verdicts), r.cost, claim, hook, fingerprint_mode);
    out.stats["method"] = kIntervalMethod;
    out.stats["max_pieces_per_rank"] = std::to_string(r.max_pieces);
    return declined(std::move(out));
  }
  if (o.max_memory) {
    const MemoryEstimate m = generic_estimate(s, o, e, zsize());
    if (m.bytes > o.max_memory) return declined(refused(m));
  }
  if (e == Exactness::exact) return declined(enumerate_exact(s, claim, hook, o));
  return declined(run_with(s, FingerprintCells(o.seed, s.p()), claim, hook, o, fingerprint_mode));
}

}  // namespace

std::optional<bool> grouped_decides(const Schedule& s, const CheckOptions& o) {
  if (!grouped_takes(s, o)) return std::nullopt;
  auto ms = swing::swing_mask_schedule(s);
  if (!ms) return std::nullopt;  // a fold or the odd-p scheme: a composition
  ms->memo_key.clear();
  std::string declined;
  return grouped_quotient(*ms, StepHook{}, o, &declined).has_value();
}

}  // namespace collcheck
