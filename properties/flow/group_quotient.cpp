#include "properties/flow/group_quotient.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "properties/flow/flow_common.hpp"
#include "properties/flow/wide_kernels.hpp"
#include "properties/causality.hpp"
#include "properties/exactly_once.hpp"

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

// A hash of a mask (equal masks are then compared word by word): four
// independent lanes, so the loop is not one long multiply chain.
uint64_t hash_words(const uint64_t* m, size_t W) {
  uint64_t h[4] = {0x9E3779B97F4A7C15ULL, 0xBF58476D1CE4E5B9ULL, 0x94D049BB133111EBULL, 0x2545F4914F6CDD1DULL};
  size_t w = 0;
  for (; w + 4 <= W; w += 4)
    for (size_t l = 0; l < 4; ++l) h[l] = (h[l] ^ m[w + l]) * 0xFF51AFD7ED558CCDULL;
  for (; w < W; ++w) h[0] = (h[0] ^ m[w]) * 0xFF51AFD7ED558CCDULL;
  return (h[0] ^ (h[1] >> 17) ^ (h[2] << 13) ^ (h[3] >> 31)) * 0xC4CEB9FE1A85EC53ULL;
}

[[maybe_unused]] bool any(const uint64_t* m, size_t W) {
  uint64_t a = 0;
  for (size_t w = 0; w < W; ++w) a |= m[w];
  return a != 0;
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

// A block's group: one byte, so that rank 0's row (p bytes) stays in cache
// where the sparse steps touch it (p/2^(t+1) blocks spread over all p at
// step t); at most kMaxGroupIds ids, more declines.
using GroupId = uint8_t;
constexpr uint64_t kMaxGroupIds = 255;

// The position of one run of equal (receiving group, incoming group) pairs.
struct Cursor {
  uint32_t dst = ~0u, src = ~0u, made = 0;
  size_t pair = 0;
  uint64_t run = 0;  // blocks moved under `pair` not yet added to it
};

enum class Applied { ok, hazard, failed };

// Applies one step's receives to rank 0's group ids block by block, for the
// moves the wide pass (reflections, wide_kernels.hpp) does not cover: for
// every y of the W-word mask Y, z = g_q(y) (a translation z = y + q mod p,
// or z = y with blocks fixed), the pair (source x, receiving block b) is (y, z), or
// (z, y) when Y lists the receiving blocks. `written` marks the blocks
// written so far; reading one is a hazard. `change(dst, src, c)` is called
// when the pair changes (it settles c.run, looks the pair up, sets c).
//
// The inner loop makes no call: it returns at a pair change with the block
// not yet applied (the resume point in w / word), so that its state stays in
// registers (a call inside it cost a store-to-load round trip per block).
// How g_q moves a block: translation z = y + q mod p (blocks acting as
// ranks), or not at all (blocks fixed).
enum class BlockMove { translate, fixed };

template <BlockMove Move, bool YIsDest>
bool run_until_change(const uint64_t* Y, size_t W, uint64_t q, uint64_t p, GroupId* ids, uint64_t* written,
                      size_t& w_io, uint64_t& word_io, uint32_t cd, uint32_t cs, uint32_t cm, uint64_t& run_io,
                      uint32_t& new_dst, uint32_t& new_src, bool& hazard) {
  uint64_t run = run_io;
  size_t w = w_io;
  uint64_t word = word_io;
  for (;;) {
    while (!word) {
      if (++w >= W) {
        run_io = run;
        w_io = w;
        word_io = 0;
        return false;
      }
      word = Y[w];
    }
    const uint64_t y = uint64_t{w} * 64 + static_cast<uint64_t>(__builtin_ctzll(word));
    uint64_t z;
    if constexpr (Move == BlockMove::translate) z = y + q >= p ? y + q - p : y + q;
    else z = y;
    const uint64_t b = YIsDest ? y : z, x = YIsDest ? z : y;
    if ((written[x / 64] >> (x % 64)) & 1) {
      hazard = true;
      run_io = run;
      return false;
    }
    const uint32_t dst = ids[b], src = ids[x];
    if (dst != cd || src != cs) [[unlikely]] {
      new_dst = dst;
      new_src = src;
      run_io = run;
      w_io = w;
      word_io = word;
      return true;
    }
    ids[b] = static_cast<GroupId>(cm);
    written[b / 64] |= uint64_t{1} << (b % 64);
    ++run;
    word &= word - 1;
  }
}

// `change` is also told the block y of Y where the new pair starts (with
// blocks fixed, the receiving block itself: increasing, so a pair's first).
template <BlockMove Move, bool YIsDest, class Change>
Applied apply_blocks(const uint64_t* Y, size_t W, uint64_t q, uint64_t p, GroupId* ids, uint64_t* written, Cursor& c,
                     Change&& change) {
  if (W == 0) return Applied::ok;
  size_t w = 0;
  uint64_t word = Y[0];
  bool hazard = false;
  uint32_t nd = 0, ns = 0;
  while (run_until_change<Move, YIsDest>(Y, W, q, p, ids, written, w, word, c.dst, c.src, c.made, c.run, nd, ns,
                                            hazard))
    if (!change(nd, ns, c, uint64_t{w} * 64 + static_cast<uint64_t>(__builtin_ctzll(word)))) return Applied::failed;
  return hazard ? Applied::hazard : Applied::ok;
}

}  // namespace

namespace {

// The flow half of the grouped quotient: every property but the step hook,
// rank 0's counts (not yet scaled by p), and what the hook needs of each
// step (the peer and whether rank 0 sends and receives).
struct FlowCertificate {
  Verdicts flow;
  uint64_t volume0 = 0, most = 1;
  int last_active = -1;
  struct Step {
    int step;
    Rank peer;
    Combine combine;
    bool sends, recvs;
  };
  std::vector<Step> steps;
  bool every_copy_superset = true;  // no copy replaced a set it does not contain
  std::string declined;  // nonempty: not certified, and why
  // MaskSchedule::snapshots: rank 0's block 0 before every step and after
  // the last (steps + 1 entries), and the postcondition counterexample's
  // block after the last; each Wc + 1 words (set, then the flag).
  std::vector<std::vector<uint64_t>> block0;
  std::vector<uint64_t> first_wrong;
};

FlowCertificate certify_flow(const MaskSchedule& m, uint64_t max_groups) {
  FlowCertificate cert;
  auto decline = [&](std::string why) {
    cert.declined = std::move(why);
    return cert;
  };
  const GroupAction& g = *m.action;
  const CollectiveSpec& spec = m.spec;
  const uint64_t p = spec.p;
  const uint64_t nb = spec.nblocks;
  const bool fixed = g.block_action() == BlockAction::fixed;
  const size_t W = (nb + 63) / 64;   // a block mask
  const size_t Wc = (p + 63) / 64;   // a contribution set
  const uint64_t tail = nb % 64 ? (uint64_t{1} << (nb % 64)) - 1 : ~uint64_t{0};
  const uint64_t tail_c = p % 64 ? (uint64_t{1} << (p % 64)) - 1 : ~uint64_t{0};
  // A group's set: Wc words of contributions and one flag word, nonzero once
  // some contribution was counted twice (ExactCells' layout).
  const size_t Wg = Wc + 1;
  MaskPool pool(Wg);
  GroupTable table(Wg, pool);
  std::vector<GroupId> id(nb);  // rank 0's block b is in group id[b]
  std::vector<GroupId> before;  // id before a step whose receives read blocks it writes
  {
    uint64_t* zero = pool.get();
    std::fill(zero, zero + Wg, 0);
    zero[0] = 1;  // every block of rank 0 starts with rank 0's contribution
    const uint32_t z = table.intern(zero);
    table[z].blocks = nb;
    std::fill(id.begin(), id.end(), z);
  }
  // g_q of a block mask (blocks as ranks: the group's map; fixed: itself).
  auto map_blocks = [&](Rank q, const uint64_t* src, uint64_t* dst) {
    if (fixed) std::copy(src, src + W, dst);
    else map_mask(g, q, src, dst);
  };

  Verdicts& flow = cert.flow;
  uint64_t& volume0 = cert.volume0;
  uint64_t& most = cert.most;
  int& last_active = cert.last_active;
  MaskExchange ex;
  std::vector<uint64_t> written(W, 0);                  // blocks written in the current step
  std::vector<uint64_t> other(W), image_buf(W);         // g_q of a step's set
  std::vector<uint64_t> complete(W, 0);                 // blocks holding every contribution (copy steps)
  // g_q(S) of the reduce steps given by their sent set S, with q and S's key
  // (an involution g_q: the same image for the copy step receiving S from q).
  struct KeptImage {
    Rank q;
    uint64_t key;  // MaskExchange::set_key of the set sent to q
    std::vector<uint64_t> image;
  };
  std::vector<KeptImage> images;
  bool complete_mode = false;
  // Every contribution, each once: the collective's result.
  auto is_full = [&](const uint64_t* C) {
    if (C[Wc] || C[Wc - 1] != tail_c) return false;
    for (size_t w = 0; w + 1 < Wc; ++w)
      if (C[w] != ~uint64_t{0}) return false;
    return true;
  };
  // 1 for every id whose set holds every contribution (one per GroupId value).
  auto full_ids = [&] {
    std::vector<uint8_t> full(size_t{1} << (8 * sizeof(GroupId)), 0);
    for (uint32_t i = 0; i < table.ids(); ++i) full[i] = table[i].C && is_full(table[i].C);
    return full;
  };
  std::vector<std::pair<uint32_t, uint64_t*>> mapped;   // group -> g_q of its set, this step
  // A pair that violates a property at each of its blocks (reported by the
  // wide pass and, with blocks fixed, the per-block pass; under a
  // translation the per-block pass declines instead): a double count
  // (reduce) or a copy that discards contributions.
  enum class Fault : uint8_t { none, doubled, discards };
  struct Pair {
    uint32_t dst = 0, src = 0, made = 0;
    uint64_t blocks = 0;  // moved from dst to made this step
    Fault fault = Fault::none;
    uint64_t first_block = 0;  // the lowest block under this pair (its counterexample)
    Rank twice = 0;            // doubled: the lowest contribution counted twice
    std::string lost;          // discards: what
  };
  // Back from the copy steps' complete mask to group ids (the complete
  // blocks' ids are stale there): every complete block joins the complete
  // group.
  auto leave_complete_mode = [&] {
    uint64_t* full_set = pool.get();
    std::fill(full_set, full_set + Wg, ~uint64_t{0});
    full_set[Wc - 1] = tail_c;
    full_set[Wc] = 0;
    const uint32_t f = table.intern(full_set);
    for_each_bit(complete.data(), W, [&](uint64_t b) {
      --table[id[b]].blocks;
      id[b] = static_cast<GroupId>(f);
      ++table[f].blocks;
    });
    table.collect();
    complete_mode = false;
    return f < kMaxGroupIds;
  };
  std::vector<Pair> pairs;                              // this step's (receiving, incoming) -> result
  // Rank 0's block b as its set and flag (a block the copies completed
  // holds every contribution, once: its id is stale).
  auto content = [&](uint64_t b) {
    std::vector<uint64_t> c(Wg, 0);
    if (complete_mode && ((complete[b / 64] >> (b % 64)) & 1)) {
      std::fill(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(Wc), ~uint64_t{0});
      c[Wc - 1] = tail_c;
    } else {
      std::copy(table[id[b]].C, table[id[b]].C + Wg, c.begin());
    }
    return c;
  };

  for (int st = 0; st < m.steps; ++st) {
    if (m.snapshots) cert.block0.push_back(content(0));
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
    const uint64_t sent0 = ex.send ? wide::count_bits(ex.send, W) : 0, got0 = ex.recv ? wide::count_bits(ex.recv, W) : 0;
    const uint64_t sent = ex.send ? sent0 : got0, got = ex.recv ? got0 : sent0;  // an image has the size of its set
    if (!sent && !got) continue;
    last_active = st;
    if (q == 0 || q >= p) return decline("rank 0 exchanges with rank " + std::to_string(q) + " at step " + std::to_string(st));
    if (g.rank(q, q) != 0)
      return decline("the peer's image of rank 0's exchange is not with rank 0 at step " + std::to_string(st));
    const bool reflects = g.reflects(q);
    // g_q on blocks (as ranks, or fixed); an involution since g_q(q) = 0.
    auto image = [&](uint64_t x) -> uint64_t {
      if (fixed) return x;
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
    cert.steps.push_back({st, q, ex.combine, sent != 0, got != 0});
    if (!got) continue;
    // Rank 0 receives block b from q with g_q of rank 0's group at
    // x = g_q^{-1}(b) = g_q(b). All sources are read before any block is
    // written (a block may be sent and received in one step).
    const bool reduce = ex.combine == Combine::reduce;
    if (reduce) flow[kExactlyOnce].checks += got;
    // Copies of complete values (the allgather), word-parallel: from the
    // first copy step on, `complete` marks the blocks of rank 0 that hold
    // every contribution (their group ids are not kept up to date any more).
    // A step whose sources are all complete makes its receiving blocks
    // complete (a superset of anything they held: no copy loses a
    // contribution). A copy of a value that is not complete, or a reduce,
    // goes back to group ids for that step (leave_complete_mode).
    if (!reduce && !complete_mode) {
      complete_mode = true;
      std::fill(complete.begin(), complete.end(), 0);
      const std::vector<uint8_t> full = full_ids();
      for (uint32_t i = 0; i < table.ids(); ++i)  // the blocks of every complete group (one, as a rule)
        if (full[i]) wide::or_bytes_equal(id.data(), nb, static_cast<uint8_t>(i), complete.data());
    }
    bool partial = reduce;
    if (complete_mode && !reduce) {
      // Sources x = g_q(b) of the receiving blocks b.
      const uint64_t* dest = ex.recv;
      if (!dest) {
        map_blocks(q, ex.send, other.data());
        dest = other.data();
      }
      const uint64_t* sources = ex.recv ? nullptr : ex.send;
      if (!sources)  // g_q(recv): kept from a reduce step that sent recv to q, or mapped now
        for (const KeptImage& k : images)
          if (ex.set_key && k.q == q && k.key == ex.set_key) {
            sources = k.image.data();
            break;
          }
      if (!sources) {
        map_blocks(q, ex.recv, image_buf.data());
        sources = image_buf.data();
      }
      uint64_t not_complete = 0;
      for (size_t w = 0; w < W; ++w) not_complete |= sources[w] & ~complete[w];
      partial = not_complete != 0;
      if (!partial) {
        for (size_t w = 0; w < W; ++w) complete[w] |= dest[w];
        continue;
      }
    }
    if (complete_mode && partial && !leave_complete_mode())
      return decline("rank 0 carries more than " + std::to_string(kMaxGroupIds) + " group ids at step " +
                     std::to_string(st));
    // The blocks arrive as pairs (source x at rank 0, receiving block b),
    // b = g_q(x), listed by the given set Y. They are applied in one pass;
    // a block read after another of the step's receives wrote it (Y and
    // g_q(Y) overlap) would see the new group, so the pass marks what it
    // writes and declines on such a read (the cell quotient then decides;
    // Swing never does it: a rank sends each block once and never one it
    // receives in the same step).
    const uint64_t* Y = ex.recv ? ex.recv : ex.send;
    const bool y_is_dest = ex.recv != nullptr;
    mapped.clear();
    pairs.clear();
    auto mapped_set = [&](uint32_t src) -> const uint64_t* {
      for (auto& [i, c] : mapped)
        if (i == src) return c;
      uint64_t* c = pool.get();
      map_mask(g, q, table[src].C, c);
      c[Wc] = table[src].C[Wc];  // the flag moves with the set
      mapped.emplace_back(src, c);
      return c;
    };
    bool too_many_ids = false;
    bool report_faults = false;  // report a pair's violations (blocks visited in increasing order), or decline
    // The group pair (dst, src) makes, as ExactCells::reduce / copy would
    // (the union and "counted twice", or the copy and what it discards).
    auto combine = [&](uint32_t dst, uint32_t src, Pair& out) -> bool {
      const uint64_t* in = mapped_set(src);
      const uint64_t* have = table[dst].C;
      uint64_t* made = pool.get();
      uint64_t clash = 0;
      if (reduce) {
        for (size_t w = 0; w < Wc; ++w) {
          clash |= have[w] & in[w];
          made[w] = have[w] | in[w];
        }
        made[Wc] = have[Wc] | in[Wc] | (clash ? 1 : 0);
      } else {
        for (size_t w = 0; w < Wc; ++w) {
          clash |= have[w] & ~in[w];
          made[w] = in[w];
        }
        made[Wc] = in[Wc];
      }
      if (clash && !report_faults) {
        pool.put(made);
        return false;
      }
      if (clash && reduce) {
        out.fault = Fault::doubled;
        for (size_t w = 0; w < Wc; ++w)
          if (const uint64_t both = have[w] & in[w]) {
            out.twice = static_cast<Rank>(w * 64 + static_cast<uint64_t>(__builtin_ctzll(both)));
            break;
          }
      } else if (clash) {
        cert.every_copy_superset = false;
        const uint64_t had = wide::count_bits(have, Wc), now = wide::count_bits(in, Wc);
        if (now < had) {
          out.fault = Fault::discards;
          out.lost = copy_loss_text(had, now);
        }
      }
      out.made = table.intern(made);
      if (out.made >= kMaxGroupIds) {
        too_many_ids = true;
        return false;
      }
      return true;
    };
    // Runs of blocks with the same (receiving, incoming) pair share one
    // lookup; the block counts of the groups are settled per pair.
    Cursor cur;
    auto change = [&](uint32_t dst, uint32_t src, Cursor& c, uint64_t block) {
      if (c.run) pairs[c.pair].blocks += c.run;
      c.run = 0;
      size_t h = 0;
      while (h < pairs.size() && (pairs[h].dst != dst || pairs[h].src != src)) ++h;
      if (h == pairs.size()) {
        Pair made;
        made.dst = dst;
        made.src = src;
        made.first_block = block;  // blocks come in increasing order: its first
        if (!combine(dst, src, made)) return false;
        pairs.push_back(std::move(made));
      }
      c.pair = h;
      c.dst = dst;
      c.src = src;
      c.made = pairs[h].made;
      return true;
    };
    GroupId* ids = id.data();
    uint64_t* wr = written.data();
    // Under a reflection the pass runs 64 blocks at a time
    // (wide_kernels.hpp) and writes exactly D. Where the receiving blocks D
    // and their sources g_q(D) are disjoint (Swing's every step) it reads
    // the sources in place; where they meet (a reading that sends a block
    // it also receives), from a copy of the ids taken before the step, as
    // every receive reads its source before any is applied.
    std::optional<Applied> wide_pass;
    const uint64_t* wrote = wr;  // the blocks the step wrote
    if (reflects && !fixed) {
      // D: the receiving blocks; the sources are g_q(D) (an involution).
      map_blocks(q, Y, image_buf.data());
      const uint64_t* D = y_is_dest ? Y : image_buf.data();
      const uint64_t* sources = y_is_dest ? image_buf.data() : Y;
      uint64_t meet = 0;
      for (size_t w = 0; w < W; ++w) meet |= D[w] & sources[w];
      if (meet) before.assign(id.begin(), id.end());
      struct Sink final : wide::PairSink {
        Cursor& c;
        decltype(change)& next;
        Sink(Cursor& cursor, decltype(change)& ch) : c(cursor), next(ch) {}
        int next_pair(uint8_t dst, uint8_t src, uint64_t block, uint64_t previous_run) override {
          c.run = previous_run;
          return next(dst, src, c, block) ? static_cast<int>(c.made) : -1;
        }
      } sink(cur, change);
      report_faults = true;
      uint64_t last = 0;
      const bool ok = wide::reflect_group_ids(D, W, q, p, ids, meet ? before.data() : ids, sink, last);
      if (ok) cur.run = last;
      wrote = D;
      wide_pass = ok ? Applied::ok : Applied::failed;
    }
    // With blocks fixed the per-block pass visits the receiving blocks in
    // increasing order too, and reports a pair's violations at its first.
    if (fixed) report_faults = true;
    const Applied applied =
        wide_pass  ? *wide_pass
        : fixed    ? (y_is_dest ? apply_blocks<BlockMove::fixed, true>(Y, W, q, p, ids, wr, cur, change)
                                : apply_blocks<BlockMove::fixed, false>(Y, W, q, p, ids, wr, cur, change))
                   : (y_is_dest ? apply_blocks<BlockMove::translate, true>(Y, W, q, p, ids, wr, cur, change)
                                : apply_blocks<BlockMove::translate, false>(Y, W, q, p, ids, wr, cur, change));
    // A completed step given by its sent set S: the blocks it wrote are
    // exactly g_q(S). Kept with S, so that a later copy step that receives
    // S from the same q (Swing's allgather mirroring this step) finds its
    // sources g_q(S) without mapping S again.
    if (applied == Applied::ok && !y_is_dest && (reflects || fixed) && ex.set_key)
      images.push_back({q, ex.set_key, std::vector<uint64_t>(wrote, wrote + W)});
    if (!wide_pass) std::fill(written.begin(), written.end(), 0);  // the wide pass marks nothing
    if (applied == Applied::hazard)
      return decline("at step " + std::to_string(st) + " rank 0 receives a block it also sends or reads in that step");
    if (too_many_ids)
      return decline("rank 0 carries more than " + std::to_string(kMaxGroupIds) + " group ids at step " +
                     std::to_string(st));
    if (applied == Applied::failed)
      return decline(reduce ? "a contribution is counted twice at rank 0 at step " + std::to_string(st)
                            : "a copy at step " + std::to_string(st) +
                                  " does not carry every contribution the receiving block holds");
    if (cur.run) pairs[cur.pair].blocks += cur.run;
    for (Pair& x : pairs) {
      table[x.dst].blocks -= x.blocks;
      table[x.made].blocks += x.blocks;
      // Every block of a faulty pair is one report, as the cell quotient
      // makes them; the minimal counterexample is at its first block.
      if (x.fault == Fault::none || !x.blocks) continue;
      Verdict& v = flow[x.fault == Fault::doubled ? kExactlyOnce : kCausality];
      if (x.fault == Fault::doubled) exactly_once_double(v, p, 0, st, static_cast<Block>(x.first_block), q, x.twice);
      else causality_copy_discards(v, p, 0, st, static_cast<Block>(x.first_block), q, std::move(x.lost));
      v.violations += x.blocks - 1;
    }
    for (auto& [i, c] : mapped) pool.put(c);
    table.collect();
    most = std::max<uint64_t>(most, table.live());
    if (table.live() > max_groups)
      return decline("rank 0 carries more than " + std::to_string(max_groups) + " distinct contribution sets at step " +
                     std::to_string(st));
  }
  if (m.snapshots) cert.block0.push_back(content(0));
  // Postcondition: every block of rank 0 holds every contribution, once.
  bool all_complete = true;
  if (!complete_mode) {
    for (uint32_t i = 0; i < table.ids(); ++i)
      if (table[i].C && table[i].blocks && !is_full(table[i].C)) all_complete = false;
  } else {  // a block the copies made complete has a stale id
    const std::vector<uint8_t> full = full_ids();
    for (size_t w = 0; w < W && all_complete; ++w) {
      const uint64_t base = uint64_t{w} * 64, n = std::min<uint64_t>(64, nb - base);
      if (complete[w] == (n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1)) continue;  // all 64 complete
      for (uint64_t j = 0; j < n; ++j)
        if (!full[id[base + j]] && !((complete[w] >> j) & 1)) all_complete = false;
    }
  }
  if (!all_complete) {
    // Judged per group, as judge_exact_cell judges each of its blocks: one
    // report per block, the counterexample at the group's first block.
    if (complete_mode && !leave_complete_mode())
      return decline("rank 0 carries more than " + std::to_string(kMaxGroupIds) + " group ids at the end");
    std::vector<uint64_t> every(Wc, ~uint64_t{0});
    every.back() = tail_c;
    std::vector<uint64_t> first(table.ids(), nb);
    for (uint64_t b = nb; b-- > 0;) first[id[b]] = b;
    const int last = std::max(0, m.steps - 1);
    for (uint32_t i = 0; i < table.ids(); ++i) {
      if (!table[i].C || !table[i].blocks || is_full(table[i].C)) continue;
      Verdict one;
      judge_exact_cell(one, spec, p, 0, last, static_cast<Block>(first[i]), table[i].C, Wc, every);
      if (!one.counterexample) continue;
      flow[kPostcondition].fail(std::move(*one.counterexample));
      flow[kPostcondition].violations += table[i].blocks - 1;
    }
  }
  flow[kPostcondition].checks += spec.nblocks;
  if (m.snapshots && flow[kPostcondition].counterexample && flow[kPostcondition].counterexample->block)
    cert.first_wrong = content(*flow[kPostcondition].counterexample->block);
  return cert;
}

// Flow certificates by MaskSchedule::memo_key, the last few (a range sweep
// asks for a ring twice, as the even instance and as an odd one's core).
class CertificateMemo {
 public:
  std::shared_ptr<const FlowCertificate> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [k, c] : entries_)
      if (k == key) return c;
    return nullptr;
  }
  void put(const std::string& key, std::shared_ptr<const FlowCertificate> c) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace_back(key, std::move(c));
    if (entries_.size() > kKept) entries_.erase(entries_.begin());
  }

 private:
  static constexpr size_t kKept = 16;
  std::mutex mu_;
  std::vector<std::pair<std::string, std::shared_ptr<const FlowCertificate>>> entries_;
};

CertificateMemo& memo() {
  static CertificateMemo m;
  return m;
}

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
  const bool as_ranks = g.block_action() == BlockAction::as_ranks && spec.nblocks == p;
  const bool fixed = g.block_action() == BlockAction::fixed && spec.nblocks >= 1;
  if (spec.kind != Collective::allreduce || p < 2 || g.torus() || !(as_ranks || fixed) || g.p() != p ||
      p > (uint64_t{1} << 32))
    return decline("the grouped quotient covers an allreduce with blocks acting as ranks, or fixed, under a 1D group");
  if (hook && !(hook.invariant_under_ring_isometries && g.ring_isometries()))
    return decline("the step hook " + hook.property + " may judge the ranks of an orbit differently");
  std::shared_ptr<const FlowCertificate> cert = m.memo_key.empty() ? nullptr : memo().find(m.memo_key);
  if (cert && m.snapshots && cert->block0.empty() && cert->declined.empty()) cert = nullptr;  // kept without them
  const bool reused = cert != nullptr;
  if (!cert) {
    cert = std::make_shared<const FlowCertificate>(certify_flow(m, max_groups));
    // Only certificates are kept: a decline may be this call's group cap.
    if (!m.memo_key.empty() && cert->declined.empty()) memo().put(m.memo_key, cert);
  }
  if (!cert->declined.empty()) return decline(cert->declined);
  if (cert->most > max_groups)
    return decline("rank 0 carries more than " + std::to_string(max_groups) + " distinct contribution sets");
  Verdicts flow = cert->flow;
  // The hook at rank 0: it judges rank 0 by its peers' ring distances alone
  // (invariant_under_ring_isometries), so rank 0's transfers with their
  // peers (one block each stands for the set) are all it reads.
  if (hook) {
    std::vector<RankStep> ops(1);
    for (const FlowCertificate::Step& x : cert->steps)
      if (StepHook::RankCheck rc = hook.at_step(x.step)) {
        RankStep& op = ops[0];
        op.clear();
        if (x.sends) op.add_send(x.peer, x.combine).blocks = BlockSet::single(0);
        if (x.recvs) op.add_recv(x.peer, x.combine).blocks = BlockSet::single(0);
        StepView sv{x.step, p, m.ports, spec.nblocks, &ops};
        rc(sv, 0, flow[kHook]);
        if (flow[kHook].violations) return decline(hook.property + " is violated at step " + std::to_string(x.step));
      }
  }
  GroupQuotientResult out;
  for (int i : {kMatching, kPorts, kCausality, kExactlyOnce, kPostcondition, kHook}) {
    flow[i].checks *= p;  // every rank does rank 0's checks, mapped
    flow[i].violations *= p;  // and finds its violations, mapped (the counterexample is rank 0's)
    out.result.verdicts[i] = flow[i];
  }
  out.result.cost.steps = cert->last_active + 1;
  out.result.cost.max_volume = cert->volume0;
  out.result.cost.max_volume_rank = 0;
  out.result.cost.total_volume = cert->volume0 * p;
  out.max_groups = cert->most;
  out.every_copy_superset = cert->every_copy_superset;
  if (m.snapshots) {
    out.block0 = cert->block0;
    out.first_wrong = cert->first_wrong;
  }
  out.reused = reused;
  return out;
}

}  // namespace collcheck::flow
