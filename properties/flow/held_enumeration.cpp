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

namespace collcheck::flow {

namespace {

// An open-addressing slot (key, cell word, distance) at the map's load factor.
constexpr uint64_t kNodeBytes = 48;

// A cell is one word: 0 empty; 1 + x the single contribution of rank x,
// counted once (every cell of a correct all-to-all); kSet | i any other
// value, as flow::ExactCells words (p bits, then the "counted more than
// once" flag) at offset i of the owner's `sets`.
constexpr uint64_t kSet = uint64_t{1} << 63;
bool single(uint64_t w) { return w != 0 && !(w & kSet); }

// The ExactCells words of cell word `w` (sets from `pool`) into `out`.
void expand(const ExactCells& cells, uint64_t w, const uint64_t* pool, uint64_t* out) {
  if (w & kSet) {
    std::copy(pool + (w & ~kSet), pool + (w & ~kSet) + cells.words, out);
    return;
  }
  std::fill(out, out + cells.words, uint64_t{0});
  if (w) cells.init(out, static_cast<Rank>(w - 1));
}

bool empty_cell(const ExactCells& cells, uint64_t w, const uint64_t* pool) {
  return w == 0 || ((w & kSet) && cells.empty(pool + (w & ~kSet)));
}

// One rank's cells: block -> cell word; the words of its set cells.
struct RankCells {
  tsl::robin_map<Block, uint64_t> at;
  std::vector<uint64_t> sets;
  uint64_t find(Block b) const {
    auto it = at.find(b);
    return it == at.end() ? 0 : it->second;
  }
  // A set cell for `value` (ExactCells words): the cell's own if it has
  // one, else new words; returns the cell word.
  uint64_t store(uint64_t w, const uint64_t* value, size_t words) {
    if (!(w & kSet)) {
      w = kSet | sets.size();
      sets.resize(sets.size() + words);
    }
    std::copy(value, value + words, sets.data() + (w & ~kSet));
    return w;
  }
};

// One rank's sends of one step, as the senders' cells were before it: per
// send the blocks in range and their cell words, set cells copied to `sets`.
struct Outbox {
  std::vector<std::vector<Block>> blocks;
  std::vector<std::vector<uint64_t>> cell;
  std::vector<uint64_t> sets;
};

}  // namespace

bool held_enumeration_applies(const Schedule& s) {
  return s.spec().kind == Collective::alltoall && s.num_blocks() == sat_mul(s.p(), s.p());
}

uint64_t held_enumeration_bytes(const Schedule& s, uint64_t recv_total) {
  const uint64_t p = s.p();
  return sat_mul(sat_mul(p, p + recv_total), kNodeBytes);
}

HeldEnumerationResult run_held_enumeration(const Schedule& s, const StepHook& hook, uint64_t max_memory) {
  HeldEnumerationResult out;
  const uint64_t p = s.p(), nb = s.num_blocks();
  const ExactCells cells(p);
  const size_t words = cells.words;
  const CollectiveSpec& spec = s.spec();
  const int steps = s.num_steps();
  std::vector<RankCells> state(p);
  // Rank r starts with its own blocks (r, j), j < p, each its own contribution.
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
    for (Rank r = rr.begin(); r != rr.end(); ++r) {
      state[r].at.reserve(4 * p);
      for (uint64_t j = 0; j < p; ++j) state[r].at.emplace(uint64_t{r} * p + j, uint64_t{r} + 1);
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
        o.cell.resize(sends.size());
        o.sets.clear();
        const RankCells& mine = state[r];
        for (size_t i = 0; i < sends.size(); ++i) {
          o.blocks[i].clear();
          o.cell[i].clear();
          for (const auto& rg : sends[i].blocks.ranges()) {
            const Block a = rg.lo, z = std::min<Block>(rg.hi, nb);
            if (a >= z) continue;
            v[kCausality].checks += z - a;
            for (Block b = a; b < z; ++b) {
              uint64_t w = mine.find(b);
              if (empty_cell(cells, w, mine.sets.data()))
                causality_sender_holds_nothing(v[kCausality], p, r, st, b, sends[i].peer);
              if (w & kSet) {
                const uint64_t* c = mine.sets.data() + (w & ~kSet);
                w = kSet | o.sets.size();
                o.sets.insert(o.sets.end(), c, c + words);
              }
              o.blocks[i].push_back(b);
              o.cell[i].push_back(w);
            }
          }
        }
      }
    });
    // Every matched receive, in canonical order, into the receiver's cells.
    std::atomic<uint64_t> bytes{0};
    tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
      Verdicts& v = tls.local();
      std::vector<const Transfer*> order;
      std::vector<uint64_t> mine_w(words), in_w(words);
      uint64_t local_bytes = 0;
      for (Rank r = rr.begin(); r != rr.end(); ++r) {
        RankCells& mine = state[r];
        canonical_receive_order(ops[r].recvs, order);
        for (const Transfer* tp : order) {
          const Transfer& t = *tp;
          if (t.peer >= p || t.peer == r) continue;  // matching reports it
          const auto& peer_sends = ops[t.peer].sends;
          const Outbox& o = outbox[t.peer];
          // Unmatched: only the blocks both ends list arrive (matching.hpp).
          for_each_delivery(peer_sends, ops[r].recvs, r, t, [&](size_t idx, bool whole) {
            for (size_t k = 0; k < o.blocks[idx].size(); ++k) {
              const Block b = o.blocks[idx][k];
              if (!whole && !t.blocks.contains(b)) continue;
              const uint64_t in = o.cell[idx][k];
              auto it = mine.at.try_emplace(b, 0).first;
              const uint64_t w = it->second;
              ++v[kCausality].checks;
              if (t.combine == Combine::reduce) {
                ++v[kExactlyOnce].checks;
                bool held = true;
                std::optional<Rank> twice;
                if (w == 0 && !(in & kSet)) {  // into an empty cell: the incoming value
                  held = false;
                  it.value() = in;
                } else {  // as ExactCells::reduce, on the expanded words
                  expand(cells, w, mine.sets.data(), mine_w.data());
                  expand(cells, in, o.sets.data(), in_w.data());
                  twice = cells.reduce(mine_w.data(), in_w.data(), held);
                  it.value() = mine.store(w, mine_w.data(), words);
                }
                if (twice) exactly_once_double(v[kExactlyOnce], p, r, st, b, t.peer, *twice);
                if (!held) causality_reduce_into_undefined(v[kCausality], p, r, st, b, t.peer);
              } else {
                std::optional<std::string> lost;
                if (!(w & kSet) && !(in & kSet)) {  // at most one contribution each
                  if (single(w) && in == 0) lost = copy_loss_text(1, 0);
                  it.value() = in;
                } else {  // as ExactCells::copy, on the expanded words
                  expand(cells, w, mine.sets.data(), mine_w.data());
                  expand(cells, in, o.sets.data(), in_w.data());
                  lost = cells.copy(mine_w.data(), in_w.data());
                  it.value() = (in & kSet) ? mine.store(w, in_w.data(), words) : in;
                }
                if (lost) causality_copy_discards(v[kCausality], p, r, st, b, t.peer, *lost);
              }
            }
          });
        }
        local_bytes += mine.at.size() * kNodeBytes + mine.sets.size() * 8;
      }
      bytes += local_bytes;
    });
    out.max_cells = 0;
    for (const RankCells& rc : state) out.max_cells += rc.at.size();
    if (max_memory && bytes.load() > max_memory) {
      out.aborted = "the held cells of step " + std::to_string(st) + " take " + std::to_string(bytes.load()) +
                    " bytes, more than --max-memory (" + std::to_string(max_memory) + ")";
      return out;
    }
  }
  // Every (rank, block) with a requirement: rank r must end with every (i, r).
  const int last = std::max(0, steps - 1);
  std::vector<uint64_t> full(cells.bits, ~uint64_t{0});
  if (p % 64) full.back() = (uint64_t{1} << (p % 64)) - 1;
  tbb::parallel_for(tbb::blocked_range<Rank>(0, static_cast<Rank>(p)), [&](const auto& rr) {
    Verdicts& v = tls.local();
    std::vector<uint64_t> c(words);
    for (Rank r = rr.begin(); r != rr.end(); ++r)
      for (uint64_t i = 0; i < p; ++i) {
        const Block b = i * p + r;
        expand(cells, state[r].find(b), state[r].sets.data(), c.data());
        judge_exact_cell(v[kPostcondition], spec, p, r, last, b, c.data(), cells.bits, full);
      }
  });
  out.cost = measured_cost(volume, last_active);
  out.verdicts = merged(tls);
  return out;
}

}  // namespace collcheck::flow
