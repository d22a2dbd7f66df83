#include "schedules/trivance/trivance_bandwidth.hpp"

#include <algorithm>
#include <stdexcept>

#include "schedules/check.hpp"
#include "schedules/translation_equivariant.hpp"
#include "schedules/trivance/trivance_latency.hpp"

namespace collcheck {

OffsetRoutingRing::OffsetRoutingRing(uint64_t n, std::vector<std::vector<Move>> steps, bool two_phase, int ports)
    : spec_{Collective::allreduce, n, static_cast<uint32_t>(n), 0},
      steps_(std::move(steps)),
      two_phase_(two_phase),
      ports_(ports) {
  for (auto& st : steps_)
    for (auto& mv : st) std::sort(mv.offsets.begin(), mv.offsets.end());
}

namespace {
// { base + c mod n : c in offsets }, offsets sorted: the wrapped part
// (c >= n - base) comes first in block order, then the rest; both ascending,
// so every insert appends.
void shifted_into(BlockSet& out, uint64_t n, uint64_t base, const std::vector<uint64_t>& offsets) {
  out.clear();  // keeps the capacity of the caller's previous step (perf)
  out.reserve(offsets.size());
  const auto split = std::lower_bound(offsets.begin(), offsets.end(), n - base);
  for (auto it = split; it != offsets.end(); ++it) out.insert(static_cast<Block>(*it + base - n));
  for (auto it = offsets.begin(); it != split; ++it) out.insert(static_cast<Block>(*it + base));
}
}  // namespace

void OffsetRoutingRing::rank_step(Rank r, int s, RankStep& out) const {
  if (s < 0 || s >= num_steps()) {
    out.clear();
    return;
  }
  const int L = rs_steps();
  const uint64_t n = spec_.p;
  const bool rs = s < L;
  const int k = rs ? s : 2 * L - 1 - s;
  const Combine c = rs ? Combine::reduce : Combine::copy;
  // One transfer per move (port), never merged: where a rule sends twice to
  // the same peer in one step (Rule::paper at n = 2), both are listed. The
  // transfers of `out` are refilled in place so that their block vectors keep
  // their capacity from one call to the next (perf only).
  size_t active = 0;
  for (const Move& mv : steps_[k]) active += !mv.offsets.empty();
  out.sends.resize(active);
  out.recvs.resize(active);
  size_t i = 0;
  for (const Move& mv : steps_[k]) {
    if (mv.offsets.empty()) continue;
    const Rank fwd = static_cast<Rank>((r + mv.shift) % n);      // r -> fwd in the reduce-scatter
    const Rank back = static_cast<Rank>((r + n - mv.shift) % n);  // back -> r in the reduce-scatter
    // Reduce-scatter: r -> fwd carries r + offsets, back -> r carries back + offsets.
    // Allgather (reversed): fwd -> r carries r + offsets, r -> back carries back + offsets.
    Transfer& mine = rs ? out.sends[i] : out.recvs[i];    // blocks r + offsets
    Transfer& theirs = rs ? out.recvs[i] : out.sends[i];  // blocks back + offsets
    mine.peer = fwd;
    mine.combine = c;
    shifted_into(mine.blocks, n, r, mv.offsets);
    theirs.peer = back;
    theirs.combine = c;
    shifted_into(theirs.blocks, n, back, mv.offsets);
    ++i;
  }
}

std::vector<uint64_t> trivance_distances(uint64_t n, bool printed_last_distance) {
  const int s = trivance::ceil_log3(n);
  std::vector<uint64_t> d;
  for (int k = 0; k < s; ++k) d.push_back(trivance::pow3(k));
  if (s > 0 && !trivance::is_pow3(n))
    d.back() = printed_last_distance ? trivance::paper_last_distance(n) : trivance::corrected_last_distance(n);
  return d;
}

std::vector<std::vector<OffsetRoutingRing::Move>> trivance_moves(uint64_t n, const TrivanceRouting& how) {
  using Move = TrivanceRouting::Move;
  const std::vector<uint64_t> d = trivance_distances(n, how.printed_last_distance);
  const int s = static_cast<int>(d.size());
  // S[k]: remainders reachable with digits k..s-1 (S[s] = {0}).
  std::vector<std::vector<char>> S(s + 1, std::vector<char>(n, 0));
  S[s][0] = 1;
  for (int k = s - 1; k >= 0; --k)
    for (uint64_t x = 0; x < n; ++x)
      if (S[k + 1][x]) {
        const uint64_t dk = d[k] % n;
        S[k][x] = 1;
        S[k][(x + dk) % n] = 1;
        S[k][(x + n - dk) % n] = 1;
      }
  std::vector<std::vector<OffsetRoutingRing::Move>> steps(s);
  if (how.every_path) {
    // Algorithm 1 per peer (collcheck's reading of Sec. 4.3): to p = r +- d_k the blocks Pi(n, r, p, k) = p + S[k+1].
    for (int k = 0; k < s; ++k) {
      const uint64_t dk = d[k] % n;
      OffsetRoutingRing::Move right{dk, {}}, left{n - dk, {}};
      for (uint64_t x = 0; x < n; ++x)
        if (S[k + 1][x]) {
          for (auto [mv, c] : {std::pair{&right, (x + dk) % n}, std::pair{&left, (x + n - dk) % n}})
            if (c != 0 || !how.own_block_stays) mv->offsets.push_back(c);
        }
      for (auto* mv : {&right, &left}) std::sort(mv->offsets.begin(), mv->offsets.end());
      steps[k] = {right, left};
    }
    if (how.keep_last_listing) {
      // Each remainder only at its last listing, in Algorithm 1's order:
      // steps ascending, and in a step peer_left before peer_right (the
      // order the algorithm marks and recurses). steps[k] = {right, left}.
      std::vector<int> last(n, -1);  // 2k + 1: right of step k, 2k: left
      for (int k = 0; k < s; ++k)
        for (int side : {1, 0})  // left (steps[k][1]), then right (steps[k][0])
          for (uint64_t c : steps[k][static_cast<size_t>(side)].offsets) last[c] = 2 * k + (side == 0 ? 1 : 0);
      for (int k = 0; k < s; ++k)
        for (int side : {0, 1})
          std::erase_if(steps[k][static_cast<size_t>(side)].offsets,
                        [&](uint64_t c) { return last[c] != 2 * k + (side == 0 ? 1 : 0); });
    }
    return steps;
  }
  // De-duplicated: H = remainders a node holds contributions for; each takes
  // the first move of the preference that keeps it reachable.
  std::vector<char> H(n, 1);
  for (int k = 0; k < s; ++k) {
    const uint64_t dk = d[k] % n;
    OffsetRoutingRing::Move right{dk, {}}, left{n - dk, {}};
    std::vector<char> next(n, 0);
    for (uint64_t c = 0; c < n; ++c) {
      if (!H[c]) continue;
      uint64_t to = c;  // unreachable remainder: stays (the postcondition reports it)
      if (c != 0 || !how.own_block_stays) {
        for (Move m : how.preference) {
          const uint64_t dest = m == Move::stay ? c : m == Move::right ? (c + n - dk) % n : (c + dk) % n;
          if (!S[k + 1][dest]) continue;
          if (m != Move::stay) (m == Move::right ? right : left).offsets.push_back(c);
          to = dest;
          break;
        }
      }
      next[to] = 1;
    }
    steps[k] = {right, left};
    H.swap(next);
  }
  return steps;
}

std::unique_ptr<Schedule> make_trivance_bandwidth(uint64_t n, const TrivanceRouting& how) {
  return std::make_unique<OffsetRoutingRing>(n, trivance_moves(n, how), true, 2);
}

}  // namespace collcheck

namespace collcheck {

std::unique_ptr<Schedule> offset_routing_certified(std::unique_ptr<Schedule> ring) {
  if (dynamic_cast<const OffsetRoutingRing*>(ring.get()) == nullptr)
    throw std::logic_error("offset_routing_certified: not an OffsetRoutingRing");
  return translation_equivariant(
      std::move(ring), 1,
      "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + the offset "
      "routing rule reads r only as r + sigma and r + c mod n, peers and blocks alike (trivance_bandwidth.hpp), "
      "tested against the direct generator at every rank for n <= 200 and 255, 256");
}

}  // namespace collcheck
