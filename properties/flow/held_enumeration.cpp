#include "properties/flow/held_enumeration.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tsl/robin_map.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "properties/causality.hpp"
#include "properties/exactly_once.hpp"
#include "properties/matching.hpp"
#include "schedules/int_math.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck::flow {

namespace {

// An open-addressing slot (key, offset, distance) at the map's load factor.
constexpr uint64_t kNodeBytes = 48;

// One rank's cells: block -> offset of its `words` words in `pool`.
struct RankCells {
  tsl::robin_map<Block, uint64_t> at;
  std::vector<uint64_t> pool;
  const uint64_t* find(Block b) const {
    auto it = at.find(b);
    return it == at.end() ? nullptr : pool.data() + it->second;
  }
  // The cell of b, a zeroed (empty) one if b was never held. The pointer is
  // valid until the next call.
  uint64_t* get(Block b, size_t words) {
    const uint64_t offset = pool.size();
    auto [it, fresh] = at.try_emplace(b, offset);
    if (!fresh) return pool.data() + it->second;
    pool.resize(offset + words, 0);
    return pool.data() + offset;
  }
};

// One rank's sends of one step, as the senders' cells were before it.
struct Outbox {
  std::vector<std::vector<Block>> blocks;   // per send, the blocks in range
  std::vector<std::vector<uint64_t>> data;  // per send, their cells in the same order
};

}  // namespace

bool held_enumeration_applies(const Schedule& s) {
  return s.spec().kind == Collective::alltoall && s.num_blocks() == sat_mul(s.p(), s.p());
}

uint64_t held_enumeration_bytes(const Schedule& s, uint64_t recv_total) {
  const uint64_t p = s.p();
  const uint64_t cell_bytes = ((p + 63) / 64 + 1) * 8 + kNodeBytes;
  return sat_mul(sat_mul(p, p + recv_total), cell_bytes);
}

HeldEnumerationResult run_held_enumeration(const Schedule& s, const StepHook& hook, uint64_t max_memory) {
  HeldEnumerationResult out;
  const uint64_t p = s.p(), nb = s.num_blocks();
  const ExactCells cells(p);
  const CollectiveSpec& spec = s.spec();
  const int steps = s.num_steps();
  std::vector<RankCells> state(p);
  // Rank r starts with its own blocks (r, j), j < p, each its own contribution.
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
    for (Rank r = rr.begin(); r != rr.end(); ++r) {
      state[r].at.reserve(4 * p);
      state[r].pool.reserve(4 * p * cells.words);
      for (uint64_t j = 0; j < p; ++j) cells.init(state[r].get(uint64_t{r} * p + j, cells.words), r);
    }
  });
  VerdictTls tls;
  std::vector<uint64_t> volume(p, 0);
  int last_active = -1;
  std::vector<RankStep> ops(p);
  std::vector<Outbox> outbox(p);
  for (int st = 0; st < steps; ++st) {
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
      for (Rank r = rr.begin(); r != rr.end(); ++r) s.rank_step(r, st, ops[r]);
    });
    const StepView sv{st, p, s.ports(), nb, &ops};
    step_local_checks(sv, hook ? hook.at_step(st) : StepHook::RankCheck{}, tls, volume, last_active);
    // Every send reads its sender's cells before the step (causality a:
    // each sent block judged once, here).
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
      Verdicts& v = tls.local();
      for (Rank r = rr.begin(); r != rr.end(); ++r) {
        Outbox& o = outbox[r];
        const auto& sends = ops[r].sends;
        o.blocks.resize(sends.size());
        o.data.resize(sends.size());
        for (size_t i = 0; i < sends.size(); ++i) {
          o.blocks[i].clear();
          o.data[i].clear();
          for (const auto& rg : sends[i].blocks.ranges()) {
            const Block a = rg.lo, z = std::min<Block>(rg.hi, nb);
            if (a >= z) continue;
            v[kCausality].checks += z - a;
            for (Block b = a; b < z; ++b) {
              const uint64_t* c = state[r].find(b);
              if (!c || cells.empty(c)) causality_sender_holds_nothing(v[kCausality], p, r, st, b, sends[i].peer);
              o.blocks[i].push_back(b);
              if (c)
                o.data[i].insert(o.data[i].end(), c, c + cells.words);
              else
                o.data[i].resize(o.data[i].size() + cells.words, 0);
            }
          }
        }
      }
    });
    // Every matched receive, in canonical order, into the receiver's cells.
    std::atomic<uint64_t> words{0};
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
      Verdicts& v = tls.local();
      std::vector<const Transfer*> order;
      uint64_t local_words = 0;
      for (Rank r = rr.begin(); r != rr.end(); ++r) {
        canonical_receive_order(ops[r].recvs, order);
        for (const Transfer* tp : order) {
          const Transfer& t = *tp;
          if (t.peer >= p || t.peer == r) continue;  // matching reports it
          const auto& peer_sends = ops[t.peer].sends;
          const Transfer* m = find_transfer(peer_sends, r, t.blocks, t.combine);
          if (!m) continue;  // unmatched: matching reports it; nothing arrives
          const Outbox& o = outbox[t.peer];
          const size_t idx = static_cast<size_t>(m - peer_sends.data());
          for (size_t k = 0; k < o.blocks[idx].size(); ++k) {
            const Block b = o.blocks[idx][k];
            const uint64_t* in = o.data[idx].data() + k * cells.words;
            uint64_t* c = state[r].get(b, cells.words);
            ++v[kCausality].checks;
            if (t.combine == Combine::reduce) {
              ++v[kExactlyOnce].checks;
              bool held = true;
              if (auto twice = cells.reduce(c, in, held)) exactly_once_double(v[kExactlyOnce], p, r, st, b, t.peer, *twice);
              if (!held) causality_reduce_into_undefined(v[kCausality], p, r, st, b, t.peer);
            } else if (auto lost = cells.copy(c, in)) {
              causality_copy_discards(v[kCausality], p, r, st, b, t.peer, *lost);
            }
          }
        }
        local_words += state[r].pool.size();
      }
      words += local_words;
    });
    const uint64_t bytes = words.load() * 8 + words.load() / cells.words * kNodeBytes;
    out.max_cells = words.load() / cells.words;
    if (max_memory && bytes > max_memory) {
      out.aborted = "the held cells of step " + std::to_string(st) + " take " + std::to_string(bytes) +
                    " bytes, more than --max-memory (" + std::to_string(max_memory) + ")";
      return out;
    }
  }
  // Every (rank, block) with a requirement: rank r must end with every (i, r).
  const int last = std::max(0, steps - 1);
  std::vector<uint64_t> full(cells.bits, ~uint64_t{0});
  if (p % 64) full.back() = (uint64_t{1} << (p % 64)) - 1;
  const std::vector<uint64_t> none(cells.words, 0);
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
    Verdicts& v = tls.local();
    for (Rank r = rr.begin(); r != rr.end(); ++r)
      for (uint64_t i = 0; i < p; ++i) {
        const Block b = i * p + r;
        const uint64_t* c = state[r].find(b);
        judge_exact_cell(v[kPostcondition], spec, p, r, last, b, c ? c : none.data(), cells.bits, full);
      }
  });
  out.cost = measured_cost(volume, last_active);
  out.verdicts = merged(tls);
  return out;
}

}  // namespace collcheck::flow
