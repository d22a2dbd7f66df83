#include "properties/flow/group_quotient.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "properties/flow/flow_common.hpp"

namespace collcheck::flow {

void map_mask(const GroupAction& g, Rank q, const uint64_t* src, uint64_t* dst) {
  if (g.reflects(q)) reflect_bits(dst, src, g.p(), q);
  else rotate_bits(dst, src, g.p(), q);
}

void inverse_map_mask(const GroupAction& g, Rank q, const uint64_t* src, uint64_t* dst) {
  if (g.reflects(q)) reflect_bits(dst, src, g.p(), q);  // reflections are involutions
  else rotate_bits(dst, src, g.p(), (g.p() - q % g.p()) % g.p());
}

namespace {

// Population count without relying on the POPCNT instruction (the build
// targets the baseline x86-64).
inline uint64_t pop(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return (x * 0x0101010101010101ULL) >> 56;
}

// Masks of W words, recycled.
class MaskPool {
 public:
  explicit MaskPool(size_t words) : W(words) {}
  uint64_t* get() {
    if (free_.empty()) {
      all_.push_back(std::make_unique_for_overwrite<uint64_t[]>(W));
      return all_.back().get();
    }
    uint64_t* m = free_.back();
    free_.pop_back();
    return m;
  }
  void put(uint64_t* m) { free_.push_back(m); }
  size_t allocated() const { return all_.size(); }

 private:
  size_t W;
  std::vector<std::unique_ptr<uint64_t[]>> all_;
  std::vector<uint64_t*> free_;
};

uint64_t hash_words(const uint64_t* m, size_t W) {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t w = 0; w < W; ++w) h = (h ^ m[w]) * 0xBF58476D1CE4E5B9ULL + (h >> 29);
  return h;
}

bool any(const uint64_t* m, size_t W) {
  uint64_t a = 0;
  for (size_t w = 0; w < W; ++w) a |= m[w];
  return a != 0;
}

uint64_t count_bits(const uint64_t* m, size_t W) {
  uint64_t n = 0;
  for (size_t w = 0; w < W; ++w) n += pop(m[w]);
  return n;
}

// Calls f(x) for every set bit x of the W-word mask m, in increasing order.
template <class F>
void for_each_bit(const uint64_t* m, size_t W, F&& f) {
  for (size_t w = 0; w < W; ++w)
    for (uint64_t word = m[w]; word; word &= word - 1) f(uint64_t{w} * 64 + static_cast<uint64_t>(__builtin_ctzll(word)));
}

// The contribution sets rank 0 carries, by id; ids are recycled once no
// block names them.
class GroupTable {
 public:
  GroupTable(size_t words, MaskPool& pool) : W(words), pool_(pool) {}
  struct Entry {
    uint64_t* C = nullptr;  // null: a free id
    uint64_t hash = 0;
    uint64_t blocks = 0;  // how many of rank 0's blocks name this id
  };
  Entry& operator[](uint32_t id) { return entries_[id]; }
  size_t live() const { return entries_.size() - free_.size(); }
  size_t ids() const { return entries_.size(); }
  // The id of contribution set C (taken from the pool: returned to it if
  // the set is already known).
  uint32_t intern(uint64_t* C) {
    const uint64_t h = hash_words(C, W);
    auto [lo, hi] = index_.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (std::equal(C, C + W, entries_[it->second].C)) {
        pool_.put(C);
        return it->second;
      }
    uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<uint32_t>(entries_.size());
      entries_.emplace_back();
    }
    entries_[id] = {C, h, 0};
    index_.emplace(h, id);
    return id;
  }
  // Frees the ids no block names.
  void collect() {
    for (uint32_t id = 0; id < entries_.size(); ++id) {
      Entry& e = entries_[id];
      if (!e.C || e.blocks) continue;
      auto [lo, hi] = index_.equal_range(e.hash);
      for (auto it = lo; it != hi; ++it)
        if (it->second == id) {
          index_.erase(it);
          break;
        }
      pool_.put(e.C);
      e = Entry{};
      free_.push_back(id);
    }
  }

 private:
  size_t W;
  MaskPool& pool_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  std::unordered_multimap<uint64_t, uint32_t> index_;
};

}  // namespace

std::optional<GroupQuotientResult> run_group_quotient(const MaskSchedule& m, const StepHook& hook,
                                                      std::string* declined, uint64_t max_groups) {
  auto decline = [&](std::string why) -> std::optional<GroupQuotientResult> {
    if (declined) *declined = std::move(why);
    return std::nullopt;
  };
  const GroupAction& g = *m.action;
  const CollectiveSpec& spec = m.spec;
  const uint64_t p = spec.p;
  if (spec.kind != Collective::allreduce || spec.nblocks != p || p < 2 || g.torus() ||
      g.block_action() != BlockAction::as_ranks || g.p() != p || p > (uint64_t{1} << 32))
    return decline("the grouped quotient covers an allreduce with blocks acting as ranks under a 1D group");
  if (hook && !(hook.invariant_under_ring_isometries && g.ring_isometries()))
    return decline("the step hook " + hook.property + " may judge the ranks of an orbit differently");
  const size_t W = (p + 63) / 64;
  const uint64_t tail = p % 64 ? (uint64_t{1} << (p % 64)) - 1 : ~uint64_t{0};
  MaskPool pool(W);
  GroupTable table(W, pool);
  std::vector<uint32_t> id(p);  // rank 0's block b is in group id[b]
  {
    uint64_t* zero = pool.get();
    std::fill(zero, zero + W, 0);
    zero[0] = 1;  // every block of rank 0 starts with rank 0's contribution
    const uint32_t z = table.intern(zero);
    table[z].blocks = p;
    std::fill(id.begin(), id.end(), z);
  }

  Verdicts flow;
  uint64_t volume0 = 0, most = 1;
  int last_active = -1;
  MaskExchange ex;
  std::vector<uint32_t> from, into;                     // one step's receives: source group, receiving block
  std::vector<std::pair<uint32_t, uint64_t*>> mapped;   // group -> g_q of its set, this step
  struct Pair {
    uint32_t dst, src, made;
    uint64_t blocks;  // moved from dst to made this step
  };
  std::vector<Pair> pairs;                              // this step's (receiving, incoming) -> result
  std::vector<RankStep> hook_ops(1);  // rank 0's step for the hook (it reads rank 0's peers alone)

  for (int st = 0; st < m.steps; ++st) {
    bool active = false;
    ex = MaskExchange{};
    m.exchange(st, ex, active);
    // Step-local properties at rank 0 (ports, matching, receive races,
    // the hook); rank r's are their images.
    ++flow[kPorts].checks;
    if (!active) continue;
    const Rank q = ex.peer;
    if (ex.other_is_image ? (!ex.send == !ex.recv) : (!ex.send || !ex.recv))
      return decline("rank 0's exchange at step " + std::to_string(st) + " names neither or both sets as given");
    if ((ex.send && (ex.send[W - 1] & ~tail)) || (ex.recv && (ex.recv[W - 1] & ~tail)))
      return decline("a block beyond the last at step " + std::to_string(st));
    const uint64_t sent0 = ex.send ? count_bits(ex.send, W) : 0, got0 = ex.recv ? count_bits(ex.recv, W) : 0;
    const uint64_t sent = ex.send ? sent0 : got0, got = ex.recv ? got0 : sent0;  // an image has the size of its set
    if (!sent && !got) continue;
    last_active = st;
    if (q == 0 || q >= p) return decline("rank 0 exchanges with rank " + std::to_string(q) + " at step " + std::to_string(st));
    if (g.rank(q, q) != 0)
      return decline("the peer's image of rank 0's exchange is not with rank 0 at step " + std::to_string(st));
    const bool reflects = g.reflects(q);
    // g_q on blocks (blocks act as ranks); an involution since g_q(q) = 0.
    auto image = [&](uint64_t x) -> uint64_t {
      if (reflects) return x <= q ? q - x : q + p - x;
      const uint64_t y = x + q;
      return y >= p ? y - p : y;
    };
    // Matching: rank q's step is g_q of rank 0's, so q sends g_q(send) to
    // rank 0 and receives g_q(recv) from it: both must be what rank 0
    // receives and sends. By construction when one set is the other's image.
    flow[kMatching].checks += (sent ? 1 : 0) + (got ? 1 : 0);
    if (!ex.other_is_image) {
      bool same = sent == got;
      if (same)
        for_each_bit(ex.send, W, [&](uint64_t x) {
          const uint64_t b = image(x);
          same &= (ex.recv[b / 64] >> (b % 64)) & 1;
        });
      if (!same) return decline("rank 0's receive at step " + std::to_string(st) + " is not its peer's send (matching)");
    }
    // Causality (a): the sender holds every block (every cell of rank 0 is
    // nonempty from the start: reduces only add, copies are supersets).
    flow[kCausality].checks += sent + got;
    volume0 += sent;
    if (hook)
      if (StepHook::RankCheck rc = hook.at_step(st)) {
        // The hook judges rank 0 by its peers' ring distances alone
        // (invariant_under_ring_isometries): rank 0's transfers with their
        // peers (one block each stands for the set) are all it reads.
        RankStep& op = hook_ops[0];
        op.clear();
        if (sent) op.add_send(q, ex.combine).blocks = BlockSet::single(0);
        if (got) op.add_recv(q, ex.combine).blocks = BlockSet::single(0);
        StepView sv{st, p, m.ports, spec.nblocks, &hook_ops};
        rc(sv, 0, flow[kHook]);
        if (flow[kHook].violations) return decline(hook.property + " is violated at step " + std::to_string(st));
      }
    if (!got) continue;
    // Rank 0 receives block b from q with g_q of rank 0's group at
    // x = g_q^{-1}(b) = g_q(b). All sources are read before any block is
    // written (a block may be sent and received in one step).
    const bool reduce = ex.combine == Combine::reduce;
    if (reduce) flow[kExactlyOnce].checks += got;
    from.resize(got);
    into.resize(got);
    size_t n = 0;
    if (ex.recv)
      for_each_bit(ex.recv, W, [&](uint64_t b) {
        into[n] = static_cast<uint32_t>(b);
        from[n++] = id[image(b)];
      });
    else
      for_each_bit(ex.send, W, [&](uint64_t x) {
        into[n] = static_cast<uint32_t>(image(x));
        from[n++] = id[x];
      });
    mapped.clear();
    pairs.clear();
    std::string bad;
    auto mapped_set = [&](uint32_t src) -> const uint64_t* {
      for (auto& [i, c] : mapped)
        if (i == src) return c;
      uint64_t* c = pool.get();
      map_mask(g, q, table[src].C, c);
      mapped.emplace_back(src, c);
      return c;
    };
    auto combine = [&](uint32_t dst, uint32_t src) -> std::optional<uint32_t> {
      const uint64_t* in = mapped_set(src);
      const uint64_t* have = table[dst].C;
      uint64_t* made = pool.get();
      uint64_t clash = 0;
      if (reduce) {
        for (size_t w = 0; w < W; ++w) {
          clash |= have[w] & in[w];
          made[w] = have[w] | in[w];
        }
      } else {
        for (size_t w = 0; w < W; ++w) {
          clash |= have[w] & ~in[w];
          made[w] = in[w];
        }
      }
      if (clash) {
        pool.put(made);
        return std::nullopt;
      }
      return table.intern(made);
    };
    // Runs of blocks with the same (receiving, incoming) pair share one
    // lookup; the block counts of the groups are settled per pair.
    uint32_t cur_dst = ~0u, cur_src = ~0u, cur_made = 0;
    size_t cur = 0;
    uint64_t run = 0;
    uint32_t* ids = id.data();
    for (size_t k = 0; k < n; ++k) {
      const uint32_t b = into[k], dst = ids[b], src = from[k];
      if (dst != cur_dst || src != cur_src) {
        if (run) pairs[cur].blocks += run;
        run = 0;
        size_t h = 0;
        while (h < pairs.size() && (pairs[h].dst != dst || pairs[h].src != src)) ++h;
        if (h == pairs.size()) {
          const auto made = combine(dst, src);
          if (!made)
            return decline(reduce ? "a contribution is counted twice at rank 0 at step " + std::to_string(st)
                                  : "a copy at step " + std::to_string(st) +
                                        " does not carry every contribution the receiving block holds");
          pairs.push_back({dst, src, *made, 0});
        }
        cur = h;
        cur_dst = dst;
        cur_src = src;
        cur_made = pairs[h].made;
      }
      ids[b] = cur_made;
      ++run;
    }
    if (run) pairs[cur].blocks += run;
    for (const Pair& x : pairs) {
      table[x.dst].blocks -= x.blocks;
      table[x.made].blocks += x.blocks;
    }
    for (auto& [i, c] : mapped) pool.put(c);
    table.collect();
    most = std::max<uint64_t>(most, table.live());
    if (table.live() > max_groups)
      return decline("rank 0 carries more than " + std::to_string(max_groups) + " distinct contribution sets at step " +
                     std::to_string(st));
  }
  // Postcondition: every block of rank 0 holds every contribution, once.
  for (uint32_t i = 0; i < table.ids(); ++i) {
    const auto& e = table[i];
    if (!e.C) continue;
    bool all = e.C[W - 1] == tail;
    for (size_t w = 0; w + 1 < W && all; ++w) all = e.C[w] == ~uint64_t{0};
    if (!all) return decline("rank 0 ends with a block that lacks a contribution (postcondition)");
  }
  flow[kPostcondition].checks += spec.nblocks;

  GroupQuotientResult out;
  for (int i : {kMatching, kPorts, kCausality, kExactlyOnce, kPostcondition, kHook}) {
    flow[i].checks *= p;  // every rank does rank 0's checks, mapped
    out.result.verdicts[i] = flow[i];
  }
  out.result.cost.steps = last_active + 1;
  out.result.cost.max_volume = volume0;
  out.result.cost.max_volume_rank = 0;
  out.result.cost.total_volume = volume0 * p;
  out.max_groups = most;
  return out;
}

}  // namespace collcheck::flow
