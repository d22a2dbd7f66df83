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

struct Group {
  uint64_t* C;  // the contribution set (p bits)
  uint64_t* B;  // the blocks holding exactly C (nb bits)
  uint64_t hash;
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
      g.block_action() != BlockAction::as_ranks || g.p() != p)
    return decline("the grouped quotient covers an allreduce with blocks acting as ranks under a 1D group");
  if (hook && !(hook.invariant_under_ring_isometries && g.ring_isometries()))
    return decline("the step hook " + hook.property + " may judge the ranks of an orbit differently");
  const size_t W = (p + 63) / 64;
  const uint64_t tail = p % 64 ? (uint64_t{1} << (p % 64)) - 1 : ~uint64_t{0};
  MaskPool pool(W);
  std::vector<Group> row;  // pairwise distinct contribution sets; block sets partition the blocks
  std::unordered_multimap<uint64_t, size_t> index;  // hash of C -> position in row
  {
    Group first{pool.get(), pool.get(), 0};
    std::fill(first.C, first.C + W, 0);
    first.C[0] = 1;  // every block of rank 0 starts with rank 0's contribution
    std::fill(first.B, first.B + W, ~uint64_t{0});
    first.B[W - 1] = tail;
    first.hash = hash_words(first.C, W);
    index.emplace(first.hash, 0);
    row.push_back(first);
  }
  // Adds blocks B (taken) with contributions C (taken), merging with the
  // group of equal C.
  auto add = [&](uint64_t* C, uint64_t* B) {
    const uint64_t h = hash_words(C, W);
    auto [lo, hi] = index.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      Group& x = row[it->second];
      if (std::equal(x.C, x.C + W, C)) {
        for (size_t w = 0; w < W; ++w) x.B[w] |= B[w];
        pool.put(C);
        pool.put(B);
        return;
      }
    }
    index.emplace(h, row.size());
    row.push_back({C, B, h});
  };

  Verdicts flow;
  uint64_t volume0 = 0, most = 1;
  int last_active = -1;
  MaskExchange ex;
  std::vector<uint64_t> none(W, 0), image(W), src(W);
  std::vector<Group> incoming;
  std::vector<size_t> receiving;
  std::vector<std::pair<uint64_t*, uint64_t*>> made;
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
    if ((ex.send && (ex.send[W - 1] & ~tail)) || (ex.recv && (ex.recv[W - 1] & ~tail)))
      return decline("a block beyond the last at step " + std::to_string(st));
    const bool sends = ex.send && any(ex.send, W), recvs = ex.recv && any(ex.recv, W);
    if (!sends && !recvs) continue;
    last_active = st;
    if (q == 0 || q >= p) return decline("rank 0 exchanges with rank " + std::to_string(q) + " at step " + std::to_string(st));
    if (g.rank(q, q) != 0)
      return decline("the peer's image of rank 0's exchange is not with rank 0 at step " + std::to_string(st));
    // Matching: rank q's step is g_q of rank 0's, so q sends g_q(send) to
    // rank 0 and receives g_q(recv) from it; both must be what rank 0
    // receives and sends (an empty set on either side: no transfer).
    flow[kMatching].checks += (sends ? 1 : 0) + (recvs ? 1 : 0);
    const uint64_t* S = sends ? ex.send : none.data();
    const uint64_t* R = recvs ? ex.recv : none.data();
    map_mask(g, q, S, image.data());
    if (!std::equal(image.begin(), image.end(), R))
      return decline("rank 0's receive at step " + std::to_string(st) + " is not its peer's send (matching)");
    map_mask(g, q, R, image.data());
    if (!std::equal(image.begin(), image.end(), S))
      return decline("rank 0's send at step " + std::to_string(st) + " is not its peer's receive (matching)");
    uint64_t sent = 0, got = 0;
    for (size_t w = 0; w < W; ++w) {
      sent += pop(S[w]);
      got += pop(R[w]);
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
        if (sends) op.add_send(q, ex.combine).blocks = BlockSet::single(0);
        if (recvs) op.add_recv(q, ex.combine).blocks = BlockSet::single(0);
        StepView sv{st, p, m.ports, spec.nblocks, &hook_ops};
        rc(sv, 0, flow[kHook]);
        if (flow[kHook].violations) return decline(hook.property + " is violated at step " + std::to_string(st));
      }
    if (!recvs) continue;
    // Rank 0 receives R from q: q's block b holds g_q of rank 0's cell
    // g_q^{-1}(b), so the incoming groups are g_q of rank 0's groups
    // restricted to g_q^{-1}(R).
    const bool reduce = ex.combine == Combine::reduce;
    if (reduce) flow[kExactlyOnce].checks += got;
    inverse_map_mask(g, q, R, src.data());
    incoming.clear();
    receiving.clear();
    for (size_t i = 0; i < row.size(); ++i) {
      const uint64_t* B = row[i].B;
      uint64_t from = 0, into = 0;
      for (size_t w = 0; w < W; ++w) {
        from |= B[w] & src[w];
        into |= B[w] & R[w];
      }
      if (into) receiving.push_back(i);
      if (!from) continue;
      Group in{pool.get(), pool.get(), 0};
      for (size_t w = 0; w < W; ++w) image[w] = B[w] & src[w];
      map_mask(g, q, image.data(), in.B);
      map_mask(g, q, row[i].C, in.C);
      incoming.push_back(in);
    }
    made.clear();
    for (size_t j : receiving) {
      Group& dst = row[j];
      for (const Group& in : incoming) {
        uint64_t* Z = pool.get();
        uint64_t zany = 0;
        for (size_t w = 0; w < W; ++w) zany |= (Z[w] = dst.B[w] & R[w] & in.B[w]);
        if (!zany) {
          pool.put(Z);
          continue;
        }
        uint64_t* C = pool.get();
        uint64_t bad = 0;
        if (reduce) {
          for (size_t w = 0; w < W; ++w) {
            bad |= dst.C[w] & in.C[w];
            C[w] = dst.C[w] | in.C[w];
          }
          if (bad) return decline("a contribution is counted twice at rank 0 at step " + std::to_string(st));
        } else {
          for (size_t w = 0; w < W; ++w) bad |= dst.C[w] & ~in.C[w];
          if (bad)
            return decline("a copy at step " + std::to_string(st) +
                           " does not carry every contribution the receiving block holds");
          std::copy(in.C, in.C + W, C);
        }
        made.emplace_back(C, Z);
      }
      for (size_t w = 0; w < W; ++w) dst.B[w] &= ~R[w];
    }
    for (const Group& in : incoming) {
      pool.put(in.C);
      pool.put(in.B);
    }
    // Drop the receiving groups left without blocks, then add what arrived.
    bool dropped = false;
    for (size_t j : receiving)
      if (!any(row[j].B, W)) {
        pool.put(row[j].C);
        pool.put(row[j].B);
        row[j].C = row[j].B = nullptr;
        dropped = true;
      }
    if (dropped) {
      std::erase_if(row, [](const Group& x) { return x.B == nullptr; });
      index.clear();
      for (size_t i = 0; i < row.size(); ++i) index.emplace(row[i].hash, i);
    }
    for (auto [C, Z] : made) add(C, Z);
    most = std::max<uint64_t>(most, row.size());
    if (row.size() > max_groups)
      return decline("rank 0 carries more than " + std::to_string(max_groups) + " distinct contribution sets at step " +
                     std::to_string(st));
  }
  // Postcondition: every block of rank 0 holds every contribution, once.
  for (const Group& x : row) {
    bool all = x.C[W - 1] == tail;
    for (size_t w = 0; w + 1 < W && all; ++w) all = x.C[w] == ~uint64_t{0};
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
