#include "properties/flow/flow_rotation.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <unordered_map>
#include <atomic>
#include <functional>
#include <tuple>
#include <type_traits>

#include "properties/causality.hpp"
#include "properties/exactly_once.hpp"
#include "properties/flow/box_cells.hpp"
#include "properties/flow/run_cells.hpp"
#include "properties/flow/wide_kernels.hpp"
#include "properties/matching.hpp"
#include "properties/ports.hpp"
#include "schedules/int_math.hpp"

namespace collcheck::flow {

std::vector<Block> invariant_block_shifts(const CollectiveSpec& spec) {
  const uint64_t p = spec.p, nb = spec.nblocks;
  if (p < 1 || nb < 1) return {};
  switch (spec.kind) {
    case Collective::allreduce: {
      // Every rank starts with its own contribution in every block and must
      // end with all of them: invariant under any block shift.
      std::vector<Block> out;
      if (nb % p == 0) out.push_back(static_cast<Block>(nb / p));
      if (out.empty() || out.front() != 0) out.push_back(0);
      return out;
    }
    case Collective::allgather:
    case Collective::reduce_scatter:
      // owner(b) = b / (nb/p): owner(b + r*nb/p mod nb) = owner(b) + r mod p.
      if (nb % p == 0) return {static_cast<Block>(nb / p)};
      return {};
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::alltoall:
      return {};  // a root, or blocks indexed by (source, destination)
  }
  return {};
}

namespace {

// Appends [lo, hi) to a canonical range list under construction (merging
// with an adjacent predecessor).
void append(std::vector<BlockSet::Range>& out, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return;
  if (!out.empty() && out.back().hi == lo) {
    out.back().hi = static_cast<Block>(hi);
    return;
  }
  out.push_back({static_cast<Block>(lo), static_cast<Block>(hi)});
}

// The ranges of `a` shifted by `shift` modulo nb, canonical; false if `a`
// names a block >= nb.
bool rotate_ranges(const BlockSet& a, uint64_t shift, uint64_t nb, std::vector<BlockSet::Range>& out) {
  out.clear();
  const auto& rs = a.ranges();
  if (!rs.empty() && rs.back().hi > nb) return false;
  for (const auto& r : rs) {  // the parts that wrap land first, in [0, shift)
    const uint64_t lo = r.lo + shift, hi = r.hi + shift;
    if (hi > nb) append(out, std::max(lo, nb) - nb, hi - nb);
  }
  for (const auto& r : rs) {
    const uint64_t lo = r.lo + shift, hi = r.hi + shift;
    if (lo < nb) append(out, lo, std::min(hi, nb));
  }
  return true;
}

// Whether `mine` is `a` shifted by `shift` modulo nb. Fast path without
// building the rotated list: unless `a` holds both block 0 and block nb-1
// (then two pieces merge), the rotation is [the low part of a range
// straddling nb - shift] + [ranges >= nb - shift, moved down by nb - shift]
// + [ranges < nb - shift, moved up by shift] + [the straddler's high part].
bool rotation_of(const BlockSet& a, const BlockSet& mine, uint64_t shift, uint64_t nb,
                 std::vector<BlockSet::Range>& scratch) {
  const auto& ra = a.ranges();
  const auto& rb = mine.ranges();
  if (ra.empty() || shift == 0) return ra == rb && (ra.empty() || ra.back().hi <= nb);
  if (ra.back().hi > nb) return false;
  if (ra.front().lo == 0 && ra.back().hi == nb) {
    if (!rotate_ranges(a, shift, nb, scratch)) return false;
    return scratch == rb;
  }
  const uint64_t cut = nb - shift;  // blocks >= cut wrap
  // First range with hi > cut: either it straddles (lo < cut) or wraps whole.
  const size_t k = static_cast<size_t>(
      std::partition_point(ra.begin(), ra.end(), [&](const BlockSet::Range& x) { return x.hi <= cut; }) - ra.begin());
  const bool straddle = k < ra.size() && ra[k].lo < cut;
  if (rb.size() != ra.size() + (straddle ? 1 : 0)) return false;
  size_t j = 0;
  if (straddle && (rb[j].lo != 0 || rb[j++].hi != ra[k].hi - cut)) return false;
  for (size_t i = k + (straddle ? 1 : 0); i < ra.size(); ++i, ++j)
    if (rb[j].lo != ra[i].lo - cut || rb[j].hi != ra[i].hi - cut) return false;
  for (size_t i = 0; i < k; ++i, ++j)
    if (rb[j].lo != ra[i].lo + shift || rb[j].hi != ra[i].hi + shift) return false;
  if (straddle && (rb[j].lo != ra[k].lo + shift || rb[j].hi != nb)) return false;
  return true;
}

bool rotated_list(const std::vector<Transfer>& zero, const std::vector<Transfer>& mine, Rank r, uint64_t shift,
                  uint64_t p, uint64_t nb, std::vector<BlockSet::Range>& scratch) {
  if (zero.size() != mine.size()) return false;
  for (size_t i = 0; i < zero.size(); ++i) {
    const Transfer& a = zero[i];
    const Transfer& b = mine[i];
    if (a.combine != b.combine || a.peer >= p || b.peer != (a.peer + uint64_t{r}) % p) return false;
    if (!rotation_of(a.blocks, b.blocks, shift, nb, scratch)) return false;
  }
  return true;
}

inline uint64_t get64(const uint64_t* src, uint64_t pos, size_t words) {
  const size_t w = pos / 64, o = pos % 64;
  uint64_t v = src[w] >> o;
  if (o && w + 1 < words) v |= src[w + 1] << (64 - o);
  return v;
}

}  // namespace

bool rotated_equal(const RankStep& zero, const RankStep& mine, Rank r, Block h, uint64_t p, uint64_t nblocks,
                   std::vector<BlockSet::Range>& scratch) {
  const uint64_t shift = (uint64_t{r} * h) % nblocks;
  return rotated_list(zero.sends, mine.sends, r, shift, p, nblocks, scratch) &&
         rotated_list(zero.recvs, mine.recvs, r, shift, p, nblocks, scratch);
}

std::optional<Block> probe_rotation(const Schedule& s) {
  const uint64_t p = s.p();
  if (p < 3) return std::nullopt;
  std::vector<BlockSet::Range> scratch;
  RankStep zero, one, last;
  for (Block h : invariant_block_shifts(s.spec())) {
    bool ok = true;
    for (int st = 0; st < s.num_steps() && ok; ++st) {
      s.rank_step(0, st, zero);
      s.rank_step(1, st, one);
      s.rank_step(static_cast<Rank>(p - 1), st, last);
      ok = rotated_equal(zero, one, 1, h, p, s.num_blocks(), scratch) &&
           rotated_equal(zero, last, static_cast<Rank>(p - 1), h, p, s.num_blocks(), scratch);
    }
    if (ok) return h;
  }
  return std::nullopt;
}

void rotate_bits(uint64_t* dst, const uint64_t* src, uint64_t p, uint64_t q) {
  const size_t words = (p + 63) / 64;
  q %= p;
  if (q == 0) {
    std::copy(src, src + words, dst);
    return;
  }
  if (p < 64) {
    const uint64_t mask = (uint64_t{1} << p) - 1, x = src[0];
    dst[0] = ((x << q) | (x >> (p - q))) & mask;
    return;
  }
  // dst bit y = src bit (y - q) mod p; p >= 64, so 64 bits wrap at most once.
  uint64_t start = p - q;  // (64w - q) mod p, stepped up by 64 per word (p >= 64)
  for (size_t w = 0; w < words; ++w, start = start + 64 >= p ? start + 64 - p : start + 64) {
    uint64_t v = get64(src, start, words);  // bits >= p read as zero
    const uint64_t avail = p - start;
    if (avail < 64) v |= get64(src, 0, words) << avail;
    dst[w] = v;
  }
  if (p % 64) dst[words - 1] &= (uint64_t{1} << (p % 64)) - 1;
}

uint64_t rotation_state_bytes(uint64_t p, uint64_t nblocks) {
  const uint64_t words = (p + 63) / 64 + 1;
  // Rank 0's cells, plus the received cells of one step (at most 4 * nblocks
  // in the schedules this mode accepts; charged as 2 * nblocks), plus one
  // RankStep per rank.
  return 3 * uint64_t{nblocks} * words * 8 + p * sizeof(RankStep);
}

uint64_t quotient_cell_words(const EquivariantSchedule& s) {
  if (s.action().torus()) return BoxCells(s.action().dims()).words();
  return (s.p() + 63) / 64 + 1;
}

uint64_t quotient_state_bytes(const EquivariantSchedule& s) {
  return sat_mul(sat_mul(s.num_blocks(), quotient_cell_words(s)), 24) + s.p() * sizeof(RankStep);
}

namespace {

// How the rank-0 simulation sees the other ranks: rank 0's step and its
// peers' (ops[i] is kept[i]'s, kept[0] = 0; peers_step fills i >= 1 and
// returns false if the schedule is not symmetric at this step:
// give up), where a peer's cell comes from (g_q^{-1} of a block) and how a
// contribution set moves (g_q on p-bit sets).
struct RankZeroView {
  std::function<bool(int st, std::vector<RankStep>& ops, const std::vector<Rank>& kept)> peers_step;
  std::function<Block(Rank q, Block b)> source_block;
  bool translations = true;  // receive orders rotate with the ranks (recount_doubles applies)
  bool copy_superset = false;  // decide RotationResult::every_copy_superset
};

// Cells of a fixed number of words (p-bit sets, boxes), n at a time.
struct WordStore {
  size_t W;
  std::vector<uint64_t> words;
  WordStore(size_t w, size_t n) : W(w), words(n * w, 0) {}
  uint64_t* at(size_t i) { return words.data() + i * W; }
};

// Rank 0's cells as p-bit sets (ExactCells); the quotient's default.
// `map(q, src, dst)`: g_q of a whole cell (contribution set and flag word).
struct BitModel {
  using Store = WordStore;
  ExactCells cells;
  std::vector<uint64_t> full;  // every rank
  std::function<void(Rank q, const uint64_t* src, uint64_t* dst)> map;
  explicit BitModel(uint64_t p) : cells(p), full(cells.bits, ~uint64_t{0}) {
    if (p % 64) full.back() = (uint64_t{1} << (p % 64)) - 1;
  }
  Store store(size_t n) const { return Store(cells.words, n); }
  size_t words() const { return cells.words; }
  void init(uint64_t* c, std::optional<Rank> who) const { cells.init(c, who); }
  bool empty(const uint64_t* c) const { return cells.empty(c); }
  std::optional<Rank> reduce(uint64_t* c, const uint64_t* in, bool& held, bool& representable) const {
    representable = true;
    return cells.reduce(c, in, held);
  }
  std::optional<std::string> copy(uint64_t* c, const uint64_t* in) const { return cells.copy(c, in); }
  // Whether `in`'s contribution set contains `c`'s (the fold composition's
  // every_copy_superset).
  bool superset(const uint64_t* in, const uint64_t* c) const {
    for (size_t w = 0; w < cells.bits; ++w)
      if (c[w] & ~in[w]) return false;
    return true;
  }
  void duplicate(uint64_t* dst, const uint64_t* src) const { std::copy(src, src + cells.words, dst); }
  // Whether two cells are the same value (set and flag word), word for word.
  bool same(const uint64_t* a, const uint64_t* b) const { return std::equal(a, a + cells.words, b); }
  void judge(Verdict& v, const CollectiveSpec& spec, int last, Block b, const uint64_t* c) const {
    judge_exact_cell(v, spec, cells.p, 0, last, b, c, cells.bits, full);
  }
  static constexpr bool kBounded = true;  // the state's size is known before the run
  static constexpr bool kRecounts = true;  // recount_doubles under translations
  static constexpr bool kSparse = false;
  static constexpr const char* kUnrepresentable = "";  // every set is representable
  uint64_t bytes() const { return 0; }
};

// Boxes (box_cells.hpp) under the torus group g.
struct BoxModel : BoxCells {
  using Store = WordStore;
  const GroupAction& g;
  BoxModel(const GroupAction& action) : BoxCells(action.dims()), g(action) {}
  Store store(size_t n) const { return Store(words(), n); }
  void map(Rank q, const uint64_t* src, uint64_t* dst) const { BoxCells::map(g, q, src, dst); }
  bool superset(const uint64_t* in, const uint64_t* c) const { return includes(in, c); }
  // Word-for-word equal: the same value (unequal words may still be one
  // value; the caller then declines, which is only conservative).
  bool same(const uint64_t* a, const uint64_t* b) const { return std::equal(a, a + words(), b); }
  static constexpr bool kBounded = true;
  static constexpr bool kRecounts = false;  // a torus group is not the 1D translations
  static constexpr bool kSparse = false;
  static constexpr const char* kUnrepresentable = "a contribution set that is not a product of per-dimension sets";
  uint64_t bytes() const { return 0; }
};

// Runs of ranks (run_cells.hpp) under a 1D group g: sized by their content.
struct RunModel : RunCells {
  struct Store {
    std::vector<RunSet> cells;
    explicit Store(size_t n) : cells(n) {}
    RunSet* at(size_t i) { return cells.data() + i; }
  };
  const GroupAction& g;
  explicit RunModel(const GroupAction& action, uint64_t p) : RunCells(p), g(action) {}
  Store store(size_t n) const { return Store(n); }
  void map(Rank q, const RunSet* src, RunSet* dst) const { RunCells::map(q, g.reflects(q), src, dst); }
  void duplicate(RunSet* dst, const RunSet* src) const { RunCells::copy(dst, src); }
  bool superset(const RunSet* in, const RunSet* c) const { return in->ranks.includes(c->ranks); }
  // Runs are canonical (sorted, disjoint, non-adjacent): equal runs, equal sets.
  bool same(const RunSet* a, const RunSet* b) const { return a->ranks == b->ranks && a->doubled == b->doubled; }
  static constexpr bool kBounded = false;  // checked against the budget as it runs
  static constexpr bool kRecounts = true;   // recount_doubles under translations
  static constexpr bool kSparse = false;
  static constexpr const char* kUnrepresentable = "";  // every set is representable
  uint64_t bytes() const { return runs_held() * sizeof(BlockSet::Range); }
};

// An all-to-all under the translations with blocks as (source, destination)
// pairs (BlockAction::pairs): rank 0's row has p * p cells, of which it
// holds its own p and the ones it receives. Only those are kept, in a hash
// map (a cell not in it is empty), and a cell is its one contributor (an
// all-to-all only copies: block (i, j) carries i's contribution alone) or
// none, with the "counted twice" flag. A reduce that would put two ranks in
// one cell is not representable: the quotient declines and the instance is
// enumerated. Every answer is the p-bit model's for such cells: the copy
// loss by counts (1 -> 0), the postcondition's missing and unexpected ranks
// (flow_quotient_test.cpp compares it with p-bit sets over the whole row).
// Initial cells are rank 0's own blocks (0, j) = j, and the postcondition is
// judged on the blocks (i, 0) = i p, the only ones rank 0 must hold; every
// other cell of the row has no requirement (CollectiveSpec::required).
struct HeldModel {
  struct Cell {
    uint64_t who = 0;  // 0: empty; else the contributor + 1
    bool doubled = false;
  };
  struct Store {
    std::unordered_map<uint64_t, Cell> row;  // node-based: pointers stay valid
    std::vector<Cell> dense;                 // a step's received cells
    bool sparse;
    Store(size_t n, bool sp) : sparse(sp) {
      if (!sparse) dense.resize(n);
    }
    Cell* at(size_t i) { return sparse ? &row[i] : &dense[i]; }
  };
  const GroupAction& g;
  uint64_t p, nb;
  HeldModel(const GroupAction& action, uint64_t p_) : g(action), p(p_), nb(action.nblocks()) {}
  Store store(size_t n) const { return Store(n, n == nb); }  // the row itself: sparse
  void init(Cell* c, std::optional<Rank> who) const {
    if (who) c->who = uint64_t{*who} + 1;
  }
  bool empty(const Cell* c) const { return c->who == 0; }
  std::optional<Rank> reduce(Cell* c, const Cell* in, bool& held, bool& representable) const {
    held = c->who != 0;
    representable = true;
    std::optional<Rank> twice;
    if (c->who && in->who) {
      if (c->who != in->who) {
        representable = false;
        return std::nullopt;
      }
      twice = static_cast<Rank>(c->who - 1);
    }
    if (!c->who) c->who = in->who;
    c->doubled = c->doubled || in->doubled || twice.has_value();
    return twice;
  }
  std::optional<std::string> copy(Cell* c, const Cell* in) const {
    const uint64_t had = c->who != 0, got = in->who != 0;
    const bool contained = !c->who || c->who == in->who;
    *c = *in;
    if (contained || got >= had) return std::nullopt;
    return copy_loss_text(had, got);
  }
  void map(Rank q, const Cell* src, Cell* dst) const {
    // g_q of the contributor (pairs act under the translations, ring or torus)
    dst->who = src->who ? uint64_t{g.rank(q, static_cast<Rank>(src->who - 1))} + 1 : 0;
    dst->doubled = src->doubled;
  }
  void duplicate(Cell* dst, const Cell* src) const { *dst = *src; }
  bool superset(const Cell* in, const Cell* c) const { return !c->who || c->who == in->who; }
  bool same(const Cell* a, const Cell* b) const { return a->who == b->who && a->doubled == b->doubled; }
  void judge(Verdict& v, const CollectiveSpec& spec, int last_step, Block b, const Cell* c) const {
    const Requirement req = spec.required(0, b);
    if (req.kind == Requirement::Kind::none) return;
    ++v.checks;
    std::vector<Rank> missing, extra;
    if (req.kind == Requirement::Kind::all_ranks) {
      for (uint64_t x = 0; x < p && missing.size() < 9; ++x)
        if (c->who != x + 1) missing.push_back(static_cast<Rank>(x));
    } else {
      if (c->who != uint64_t{req.origin} + 1) missing.push_back(req.origin);
      if (c->who && c->who - 1 != req.origin && c->who - 1 < p) extra.push_back(static_cast<Rank>(c->who - 1));
    }
    report_wrong_cell(v, req, p, 0, last_step, b, missing, extra, c->doubled);
  }
  void init_row(Store& state, const CollectiveSpec& spec) const {
    state.row.reserve(2 * p);
    for (Block b = 0; b < spec.p; ++b) init(state.at(b), spec.initial_contributor(0, b));
  }
  template <class F>
  void for_each_required(const CollectiveSpec& spec, F&& f) const {
    for (uint64_t i = 0; i < spec.p; ++i) f(static_cast<Block>(i * spec.p));
  }
  static constexpr bool kBounded = true;    // at most p + the blocks received: checked before the run
  static constexpr bool kRecounts = false;  // no joint reductions to recount: one contributor per cell
  static constexpr bool kSparse = true;
  static constexpr const char* kUnrepresentable = "a contribution set of two ranks (an all-to-all cell holds one)";
  uint64_t bytes() const { return 0; }
};

// Exactly-once reports of one step summed over all ranks, when rank 0's
// reduces overlap. Rank r applies its receives sorted by ((q + r) mod p,
// combine); that order only changes where some q + r wraps past p, so the
// ranks fall into at most #receives + 1 intervals. For each, rank 0's step is
// replayed in that interval's order from the cells before the step (`saved`,
// aligned with `inbox`, both in rank 0's order), counting the reduces that
// find a contribution twice. The model's own reduce decides "twice", so the
// count is the same in every exact model (p-bit sets, runs).
template <class Model>
uint64_t recount_doubles(const Model& cells, const std::vector<const Transfer*>& order,
                         typename Model::Store& inbox, typename Model::Store& saved, uint64_t p) {
  struct Entry {
    Block b;
    size_t recv;  // index into `order`
    size_t cell;  // into inbox / saved
  };
  std::vector<Entry> entries;
  size_t k = 0;
  for (size_t i = 0; i < order.size(); ++i) order[i]->blocks.for_each([&](Block b) { entries.push_back({b, i, k++}); });
  std::vector<uint64_t> starts{0};
  for (const Transfer* t : order) starts.push_back((p - t->peer) % p);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  uint64_t total = 0;
  std::vector<size_t> rank_of(order.size());
  typename Model::Store cur = cells.store(1);
  for (size_t s = 0; s < starts.size(); ++s) {
    const uint64_t r = starts[s], len = (s + 1 < starts.size() ? starts[s + 1] : p) - r;
    std::vector<size_t> idx(order.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return std::make_tuple((order[a]->peer + r) % p, order[a]->combine) <
             std::make_tuple((order[b]->peer + r) % p, order[b]->combine);
    });
    for (size_t i = 0; i < idx.size(); ++i) rank_of[idx[i]] = i;
    std::vector<Entry> e = entries;
    std::sort(e.begin(), e.end(), [&](const Entry& a, const Entry& b) {
      return std::make_pair(a.b, rank_of[a.recv]) < std::make_pair(b.b, rank_of[b.recv]);
    });
    uint64_t count = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      if (i == 0 || e[i].b != e[i - 1].b) cells.duplicate(cur.at(0), saved.at(e[i].cell));
      bool held = true, representable = true;
      count += cells.reduce(cur.at(0), inbox.at(e[i].cell), held, representable).has_value();
    }
    total += len * count;
  }
  if constexpr (!Model::kBounded) cells.release(cur.at(0));
  return total;
}

}  // namespace

void reflect_bits(uint64_t* dst, const uint64_t* src, uint64_t p, uint64_t c) {
  // dst bit y = src bit (c - y) mod p. Bits 64w..64w+63 of dst read the 64
  // consecutive source bits from (c - 64w - 63) mod p upwards (wrapping at
  // p), reversed: one pass.
  const size_t words = (p + 63) / 64;
  c %= p;
  if (p < 64) {
    uint64_t x = 0;
    for (uint64_t y = 0; y < p; ++y) x |= ((src[0] >> ((c + p - y) % p)) & 1) << y;
    dst[0] = x;
    return;
  }
  uint64_t start = (c + p - 63) % p;  // (c - 64w - 63) mod p, stepped down by 64 per word (p >= 64)
  size_t w = 0;
  while (w < words) {
    if (p - start < 64) {  // the 64 bits cross p: this word wraps
      const uint64_t v = get64(src, start, words) | (get64(src, 0, words) << (p - start));
      dst[w++] = wide::bitrev64(v);
      start = start >= 64 ? start - 64 : start + p - 64;
      continue;
    }
    // A run of words with one bit offset o: source words k, k-1, ..., down
    // to the one holding bit o (then the start wraps below 0).
    const uint64_t o = start % 64;
    const size_t k = start / 64, cnt = std::min(k + 1, words - w);
    wide::reverse_words(dst + w, src, k, static_cast<unsigned>(o), cnt, words);
    w += cnt;
    start = cnt == k + 1 ? o + p - 64 : start - 64 * cnt;
  }
  if (p % 64) dst[words - 1] &= (uint64_t{1} << (p % 64)) - 1;
}

namespace {

// Whether every block that two or more copies write in this step gets the
// same value from each (`order`: rank 0's receives in the canonical order;
// `inbox`: their incoming cells, block by block in that order). Copies only:
// a copy overlapping a reduce was declined before.
template <class Model>
bool same_copies(const Model& cells, const std::vector<const Transfer*>& order, typename Model::Store& inbox) {
  std::vector<std::pair<Block, size_t>> at;  // (block, inbox index) of every copied block
  size_t k = 0;
  for (const Transfer* t : order)
    t->blocks.for_each([&](Block b) {
      if (t->combine == Combine::copy) at.emplace_back(b, k);
      ++k;
    });
  std::sort(at.begin(), at.end());
  for (size_t i = 1; i < at.size(); ++i)
    if (at[i].first == at[i - 1].first && !cells.same(inbox.at(at[i - 1].second), inbox.at(at[i].second))) return false;
  return true;
}

// Model: BitModel (p-bit sets) or BoxCells (products of per-dimension sets,
// box_cells.hpp); the same simulation, the same judgement.
template <class Model>
std::optional<RotationResult> simulate_rank_zero(const Schedule& s, const Model& cells, const RankZeroView& view,
                                                 const StepHook& hook, std::string* declined,
                                                 uint64_t memory_budget = 0) {
  auto decline = [&](std::string why) -> std::optional<RotationResult> {
    if (declined) *declined = std::move(why);
    return std::nullopt;
  };
  const uint64_t p = s.p();
  const uint64_t nb = s.num_blocks();
  const int steps = s.num_steps();
  const CollectiveSpec& spec = s.spec();
  typename Model::Store state = cells.store(nb);
  auto cell = [&](Block b) { return state.at(b); };
  if constexpr (Model::kSparse) cells.init_row(state, spec);
  else
    for (Block b = 0; b < nb; ++b) cells.init(cell(b), spec.initial_contributor(0, b));

  RotationResult res;
  Verdicts flow;  // rank 0's verdicts (scaled by p at the end)
  uint64_t volume0 = 0;
  int last_active = -1;
  // Rank 0 and its peers of the step (kept, sorted: kept[0] = 0) and their
  // steps (ops[i] is kept[i]'s): a handful, not p.
  std::vector<RankStep> ops(1);
  std::vector<Rank> kept;
  auto step_of = [&](Rank r) -> const RankStep& {
    return ops[static_cast<size_t>(std::lower_bound(kept.begin(), kept.end(), r) - kept.begin())];
  };
  uint64_t eo_violations = 0;          // exactly-once reports over all ranks
  std::vector<const Transfer*> order;

  for (int st = 0; st < steps; ++st) {
    kept.assign(1, 0);
    s.rank_step(0, st, ops[0]);
    for (const auto* list : {&ops[0].sends, &ops[0].recvs})
      for (const Transfer& t : *list)
        if (t.peer < p && t.peer != 0) kept.push_back(t.peer);
    std::sort(kept.begin() + 1, kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    ops.resize(kept.size());
    for (size_t i = 1; i < ops.size(); ++i) ops[i].clear();
    if (!view.peers_step(st, ops, kept)) return decline("some rank is not the image of rank 0");
    // Two receives of one block in one step: the generic checker applies them
    // in the order of the peers' rank numbers, which the group does not
    // preserve. With a copy involved the value depends on it: decline.
    // Reduces commute (the value is the union, "counted twice" is set iff
    // any two operands overlap), only the NUMBER of exactly-once reports
    // (and of reduces into an empty cell) depends on the order. Under 1D
    // translations with p-bit sets it is recounted below per order.
    // Otherwise (reflections, boxes, runs) the step is judged in rank 0's
    // canonical order and the quotient declines if that order reports
    // anything there: with no report in one order the operands are pairwise
    // disjoint and the cell was held before the step, so no order reports
    // anything, at rank 0 or at any image of it (Trivance's joint reduction
    // receives its block from both peers in every step).
    //
    // Two copies of one block from two peers are the exception: where the
    // two values are the same (set and flag), every order leaves that value
    // and reports the same (the first copy's loss, if any, against the
    // block's value before the step; the second loses nothing), at rank 0
    // and at each of its images, whose two values are the images of rank 0's
    // two. What the report names is rank 0's first peer in rank 0's order,
    // as the generic checker names it at rank 0, where the minimal
    // counterexample lies; every rank reports as many. So the values are
    // compared once the step's inbox is read, and the quotient declines if
    // any pair differs (Trivance's paper-bandwidth reading receives equal
    // copies of one block from both peers in its last steps at every p that
    // is not a power of three; the receive race itself is reported by
    // check_receive_races either way).
    bool reduces_overlap = false, order_sensitive = false, copies_overlap = false;
    const auto& rv = ops[0].recvs;
    for (size_t i = 0; i < rv.size(); ++i)
      for (size_t j = i + 1; j < rv.size(); ++j)
        if (rv[i].blocks.intersects(rv[j].blocks)) {
          if (rv[i].combine == Combine::copy && rv[j].combine == Combine::copy && rv[i].peer != rv[j].peer) {
            copies_overlap = true;
            continue;
          }
          if (rv[i].combine != Combine::reduce || rv[j].combine != Combine::reduce || rv[i].peer == rv[j].peer)
            return decline("rank 0 receives one block twice in one step with a copy involved");
          if (view.translations && Model::kRecounts) reduces_overlap = true;
          else order_sensitive = true;
        }

    // Step-local properties at rank 0 (rank r's are their images).
    StepView sv{st, p, s.ports(), nb, &ops, &kept};
    if (!ops[0].empty()) last_active = st;
    check_matching(sv, 0, flow[kMatching]);
    check_ports(sv, 0, flow[kPorts]);
    check_receive_races(sv, 0, flow[kCausality]);
    if (hook)
      if (StepHook::RankCheck rc = hook.at_step(st)) rc(sv, 0, flow[kHook]);
    for (const Transfer& t : ops[0].sends) volume0 += t.blocks.size();

    // Rank 0's sends: causality (a), the sender holds every block it sends.
    for (const Transfer& snd : ops[0].sends)
      for (const auto& rg : snd.blocks.ranges()) {
        const Block z = std::min(rg.hi, nb);
        for (Block b = rg.lo; b < z; ++b) {
          ++flow[kCausality].checks;
          if (cells.empty(cell(b))) causality_sender_holds_nothing(flow[kCausality], p, 0, st, b, snd.peer);
        }
      }
    // Rank 0's receives, in the generic checker's canonical order. Peer q's
    // cell b before the step is g_q of rank 0's cell g_q^{-1}(b); all sources
    // are read before any receive is applied.
    canonical_receive_order(ops[0].recvs, order);
    // A receive matched only in part gets the blocks both ends list
    // (matching.hpp), which this simulation does not model: decline.
    for (const Transfer* t : order)
      if (t->peer < p && t->peer != 0 && !delivered_whole_or_not_at_all(step_of(t->peer).sends, ops[0].recvs, 0, *t))
        return decline("rank 0's receive at step " + std::to_string(st) + " is matched only in part");
    std::erase_if(order, [&](const Transfer* t) {
      return t->peer >= p || t->peer == 0 || !find_transfer(step_of(t->peer).sends, 0, t->blocks, t->combine);
    });
    uint64_t total = 0;
    for (const Transfer* t : order) total += t->blocks.size();
    typename Model::Store inbox = cells.store(total);
    size_t k = 0;
    for (const Transfer* t : order) {
      t->blocks.for_each([&](Block b) { cells.map(t->peer, cell(view.source_block(t->peer, b)), inbox.at(k++)); });
    }
    if (copies_overlap && !same_copies(cells, order, inbox))
      return decline("rank 0 receives one block twice in one step by copies of two different values");
    // The receiving cells before the step, aligned with inbox (recounts only).
    typename Model::Store saved = cells.store(reduces_overlap ? total : 0);
    if constexpr (Model::kRecounts)
      if (reduces_overlap) {
        k = 0;
        for (const Transfer* t : order) t->blocks.for_each([&](Block b) { cells.duplicate(saved.at(k++), cell(b)); });
      }
    if constexpr (!Model::kBounded)
      if (memory_budget && cells.bytes() > memory_budget)
        return decline("rank 0's runs of contributors outgrew the memory budget at step " + std::to_string(st));
    const uint64_t eo_before = flow[kExactlyOnce].violations, causality_before = flow[kCausality].violations;
    bool not_representable = false;
    k = 0;
    for (const Transfer* t : order) {
      t->blocks.for_each([&](Block b) {
        auto* c = cell(b);
        auto* in = inbox.at(k++);
        ++flow[kCausality].checks;
        if (t->combine == Combine::reduce) {
          ++flow[kExactlyOnce].checks;
          bool held = true, representable = true;
          const auto twice = cells.reduce(c, in, held, representable);
          if (!representable) {
            not_representable = true;
            return;
          }
          if (twice) exactly_once_double(flow[kExactlyOnce], p, 0, st, b, t->peer, *twice);
          if (!held) causality_reduce_into_undefined(flow[kCausality], p, 0, st, b, t->peer);
        } else {
          if (view.copy_superset && res.every_copy_superset && !cells.superset(in, c)) res.every_copy_superset = false;
          if (auto lost = cells.copy(c, in)) causality_copy_discards(flow[kCausality], p, 0, st, b, t->peer, *lost);
        }
      });
    }
    if (not_representable)
      return decline("at step " + std::to_string(st) +
                     ", a reduce at rank 0 makes " + Model::kUnrepresentable);
    const uint64_t eo_step = flow[kExactlyOnce].violations - eo_before;
    // A reduce into an empty cell is counted once per cell in any order
    // unless an operand is empty too (its sender held nothing): then the
    // count depends on the order, with p-bit sets as well.
    if ((order_sensitive && eo_step) || ((order_sensitive || reduces_overlap) && flow[kCausality].violations != causality_before))
      return decline("rank 0 receives one block twice in one step, and what is reported there depends on the order "
                     "of the receives");
    if constexpr (Model::kRecounts)
      eo_violations += reduces_overlap && eo_step ? recount_doubles(cells, order, inbox, saved, p) : p * eo_step;
    else
      eo_violations += p * eo_step;  // reduces_overlap is set only where the model recounts
    if constexpr (!Model::kBounded)  // the step's received (and saved) cells are dropped
      for (size_t i = 0; i < total; ++i) {
        cells.release(inbox.at(i));
        if (reduces_overlap) cells.release(saved.at(i));
      }
  }
  // Rank 0's final values.
  const int last = std::max(0, steps - 1);
  if constexpr (Model::kSparse)
    cells.for_each_required(spec, [&](Block b) { cells.judge(flow[kPostcondition], spec, last, b, cell(b)); });
  else
    for (Block b = 0; b < nb; ++b) cells.judge(flow[kPostcondition], spec, last, b, cell(b));

  for (int i : {kMatching, kPorts, kCausality, kExactlyOnce, kPostcondition, kHook}) {
    flow[i].checks *= p;  // every rank does rank 0's checks, mapped
    flow[i].violations = i == kExactlyOnce ? eo_violations : flow[i].violations * p;
    res.verdicts[i] = flow[i];
  }
  res.cost.steps = last_active + 1;
  res.cost.max_volume = volume0;  // every rank sends as much; the first is rank 0
  res.cost.max_volume_rank = 0;
  res.cost.total_volume = volume0 * p;
  return res;
}

}  // namespace

std::optional<RotationResult> run_rotation(const Schedule& s, Block h, const StepHook& hook) {
  if (hook) return std::nullopt;  // a step hook may judge each rank differently; not covered here
  const uint64_t p = s.p();
  const uint64_t nb = s.num_blocks();
  struct Local {
    RankStep step;
    std::vector<BlockSet::Range> scratch;
  };
  tbb::enumerable_thread_specific<Local> local;
  uint64_t checks = 0;
  RankZeroView view;
  // Nothing assumed: every rank's step is generated and compared with rank
  // 0's rotation; rank 0's peers are kept, every other rank's dropped while
  // it is still in cache.
  view.peers_step = [&](int st, std::vector<RankStep>& ops, const std::vector<Rank>& kept) {
    std::atomic<bool> invariant{true};
    tbb::parallel_for(tbb::blocked_range<Rank>(1, static_cast<Rank>(p)), [&](const auto& rr) {
      Local& l = local.local();
      for (Rank r = rr.begin(); r != rr.end() && invariant.load(std::memory_order_relaxed); ++r) {
        const auto at = std::lower_bound(kept.begin(), kept.end(), r);
        const bool keep = at != kept.end() && *at == r;
        RankStep& mine = keep ? ops[static_cast<size_t>(at - kept.begin())] : l.step;
        s.rank_step(r, st, mine);
        if (!rotated_equal(ops[0], mine, r, h, p, nb, l.scratch)) invariant = false;
      }
    });
    checks += p;
    return invariant.load();
  };
  view.source_block = [&](Rank q, Block b) {
    return static_cast<Block>((b + nb - (uint64_t{q} * h) % nb) % nb);
  };
  BitModel model(p);
  model.map = [&](Rank q, const uint64_t* src, uint64_t* dst) {
    rotate_bits(dst, src, p, q);
    dst[model.cells.bits] = src[model.cells.bits];
  };
  view.translations = true;
  auto res = simulate_rank_zero(s, model, view, hook, nullptr);
  if (res) res->invariance_checks = checks;
  return res;
}

std::optional<RotationResult> run_quotient(const EquivariantSchedule& s, const StepHook& hook, std::string* declined,
                                          QuotientCells model_kind, uint64_t memory_budget, bool copy_superset) {
  const GroupAction& g = s.action();
  if (hook && !(hook.invariant_under_ring_isometries && g.ring_isometries())) {
    if (declined) *declined = "the step hook " + hook.property + " may judge the ranks of an orbit differently";
    return std::nullopt;
  }
  const uint64_t p = s.p();
  RankZeroView view;
  // Certified by construction: rank 0's peers are generated (through the
  // schedule's one code path, g_q of rank 0's step) because rank 0's
  // matching reads them; no other rank is.
  view.peers_step = [&](int st, std::vector<RankStep>& ops, const std::vector<Rank>& kept) {
    for (size_t i = 1; i < kept.size(); ++i) s.rank_step(kept[i], st, ops[i]);
    return true;
  };
  view.source_block = [&](Rank q, Block b) { return g.inverse_block(q, b); };
  view.translations = g.group() == SymmetryGroup::translations;
  view.copy_superset = copy_superset;
  if (model_kind == QuotientCells::sparse) {
    if (g.block_action() != BlockAction::pairs) {
      if (declined) *declined = "held cells only are kept for an all-to-all's (source, destination) pairs only";
      return std::nullopt;
    }
    const HeldModel held(g, p);
    return simulate_rank_zero(s, held, view, hook, declined, memory_budget);
  }
  if (g.torus()) {
    const BoxModel boxes(g);
    return simulate_rank_zero(s, boxes, view, hook, declined);
  }
  if (model_kind == QuotientCells::runs) {
    const RunModel runs(g, p);
    return simulate_rank_zero(s, runs, view, hook, declined, memory_budget);
  }
  BitModel model(p);
  model.map = [&](Rank q, const uint64_t* src, uint64_t* dst) {
    if (g.reflects(q)) reflect_bits(dst, src, p, q);
    else rotate_bits(dst, src, p, q);
    dst[model.cells.bits] = src[model.cells.bits];
  };
  return simulate_rank_zero(s, model, view, hook, declined);
}

}  // namespace collcheck::flow
