#include "schedules/trivance/trivance_torus.hpp"

#include "schedules/translation_equivariant.hpp"

#include <algorithm>

#include "schedules/check.hpp"
#include "schedules/input_error.hpp"
#include "schedules/trivance/trivance_latency.hpp"

namespace collcheck {

TrivanceTorus::TrivanceTorus(std::vector<uint32_t> dims, Kind kind) : dims_(std::move(dims)), kind_(kind) {
  uint64_t p = 1;
  for (uint32_t d : dims_) p = std::min<uint64_t>(p * d, uint64_t{1} << 32);  // saturates: no overflow
  const auto problem = torus_shape_problem(dims_, p);
  COLLCHECK_CHECK(!problem, "TrivanceTorus: bad shape (the registry's violates() rejects it first)");
  const int D = static_cast<int>(dims_.size());
  const uint64_t nblocks = kind_ == Kind::latency ? D : D * p;
  spec_ = CollectiveSpec{Collective::allreduce, p, nblocks, 0};
  stride_ = torus_strides(dims_);
  for (int d = 0; d < D; ++d) {
    const uint64_t n = dims_[d];
    if (kind_ == Kind::latency) {
      latency_rings_.push_back(make_trivance_latency(n));
      S_.push_back(latency_rings_.back()->num_steps());
      continue;
    }
    moves_.push_back(trivance_moves(n));
    for (auto& st : moves_.back())
      for (auto& mv : st) std::sort(mv.offsets.begin(), mv.offsets.end());
    S_.push_back(static_cast<int>(moves_.back().size()));
    // H after k steps: a moved remainder c becomes c - shift at the receiver.
    std::vector<std::vector<uint64_t>> held;
    std::vector<char> H(n, 1);
    auto as_list = [&]() {
      std::vector<uint64_t> l;
      for (uint64_t x = 0; x < n; ++x)
        if (H[x]) l.push_back(x);
      return l;
    };
    held.push_back(as_list());
    for (const auto& st : moves_.back()) {
      std::vector<char> next = H;
      for (const auto& mv : st)
        for (uint64_t c : mv.offsets) next[c] = 0;
      for (const auto& mv : st)
        for (uint64_t c : mv.offsets) next[(c + n - mv.shift % n) % n] = 1;
      H.swap(next);
      held.push_back(as_list());
    }
    held_.push_back(std::move(held));
  }
  for (int s : S_) T_ += s;
  plan_ = torus_round_robin_plan(S_);
  progress_ = torus_plan_progress(plan_, D);
}

std::vector<uint32_t> TrivanceTorus::coords(Rank r) const { return torus_coords(dims_, r); }

Rank TrivanceTorus::rank_of(const std::vector<uint32_t>& x) const { return torus_rank(dims_, x); }

void TrivanceTorus::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= num_steps()) return;
  for (int c = 0; c < collectives(); ++c) collective_step(r, s, c, out, true);
}

void TrivanceTorus::collective_step(Rank r, int s, int c, RankStep& out, bool blocks) const {
  if (s < 0 || s >= num_steps() || c < 0 || c >= collectives()) return;
  const int j = plan_index(s);
  const TorusStep& ts = plan_[c][j];
  if (ts.dim < 0) return;
  if (kind_ == Kind::latency) return latency_step(r, c, ts, out, blocks);
  bandwidth_step(r, j, s >= T_, c, out, blocks);
}

void TrivanceTorus::latency_step(Rank r, int c, const TorusStep& ts, RankStep& out, bool blocks) const {
  const int d = ts.dim;
  const uint64_t n = dims_[d];
  const uint64_t vd = (r / stride_[d]) % n;
  const uint64_t line = r - vd * stride_[d];  // rank of (v with v_d = 0)
  RankStep ring;
  latency_rings_[d]->rank_step(static_cast<Rank>(vd), ts.ring_step, ring);
  const BlockSet share = blocks ? BlockSet::single(static_cast<Block>(c)) : BlockSet{};
  auto map = [&](const std::vector<Transfer>& from, std::vector<Transfer>& to) {
    for (const Transfer& t : from) to.push_back({static_cast<Rank>(line + t.peer * stride_[d]), share, t.combine});
  };
  map(ring.sends, out.sends);
  map(ring.recvs, out.recvs);
}

BlockSet TrivanceTorus::product_blocks(int c, const std::vector<uint32_t>& base, int d, uint64_t base_d,
                                       const std::vector<uint64_t>& offsets_d,
                                       const std::vector<int>& progress) const {
  const int D = collectives();
  // Coordinate values per dimension, ascending: the odometer below then visits
  // block indices in increasing order, so every insert appends.
  std::vector<std::vector<uint32_t>> vals(D);
  for (int e = 0; e < D; ++e) {
    const uint64_t n = dims_[e];
    const uint64_t b = e == d ? base_d : base[e];
    const std::vector<uint64_t>& offs = e == d ? offsets_d : held_[e][progress[e]];
    for (uint64_t o : offs) vals[e].push_back(static_cast<uint32_t>((b + o) % n));
    std::sort(vals[e].begin(), vals[e].end());
  }
  BlockSet out;
  const uint64_t first = static_cast<uint64_t>(c) * spec_.p;
  std::vector<size_t> idx(D, 0);
  while (true) {
    uint64_t r = 0;
    for (int e = 0; e < D; ++e) r += vals[e][idx[e]] * stride_[e];
    out.insert(static_cast<Block>(first + r));
    int e = D - 1;
    while (e >= 0 && ++idx[e] == vals[e].size()) idx[e--] = 0;
    if (e < 0) break;
  }
  return out;
}

void TrivanceTorus::bandwidth_step(Rank r, int j, bool allgather, int c, RankStep& out, bool blocks) const {
  const TorusStep& ts = plan_[c][j];
  const int d = ts.dim;
  const uint64_t n = dims_[d];
  const std::vector<uint32_t> v = coords(r);
  const uint64_t vd = v[d];
  const uint64_t line = r - vd * stride_[d];
  const Combine comb = allgather ? Combine::copy : Combine::reduce;
  for (const OffsetRoutingRing::Move& mv : moves_[d][ts.ring_step]) {
    if (mv.offsets.empty()) continue;
    const uint64_t sh = mv.shift % n;
    const uint64_t fwd_d = (vd + sh) % n, back_d = (vd + n - sh) % n;
    const Rank fwd = static_cast<Rank>(line + fwd_d * stride_[d]);
    const Rank back = static_cast<Rank>(line + back_d * stride_[d]);
    // Reduce-scatter: r -> fwd carries r's remainders, back -> r carries back's.
    BlockSet mine, theirs;
    if (blocks) {
      mine = product_blocks(c, v, d, vd, mv.offsets, progress_[c][j]);
      theirs = product_blocks(c, v, d, back_d, mv.offsets, progress_[c][j]);
    }
    if (!allgather) {
      out.sends.push_back({fwd, std::move(mine), comb});
      out.recvs.push_back({back, std::move(theirs), comb});
    } else {  // reversed: fwd -> r carries `mine`, r -> back carries `theirs`
      out.recvs.push_back({fwd, std::move(mine), comb});
      out.sends.push_back({back, std::move(theirs), comb});
    }
  }
}

std::unique_ptr<Schedule> make_trivance_torus(const std::vector<uint32_t>& dims, TrivanceTorus::Kind kind) {
  return std::make_unique<TrivanceTorus>(dims, kind);
}

std::unique_ptr<Schedule> make_trivance_torus_certified(const std::vector<uint32_t>& dims, TrivanceTorus::Kind kind) {
  auto direct = make_trivance_torus(dims, kind);
  if (kind == TrivanceTorus::Kind::bandwidth)
    return torus_translation_equivariant(
        std::move(direct), BlockAction::as_ranks, dims,
        "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + the ring move "
        "per line reads every coordinate relative to the node (trivance_torus.hpp), tested against the direct "
        "generator at every rank on every shape of sides 1..6, 8, 9 up to 3 dimensions and 216 nodes");
  for (uint32_t d : dims)
    if (!trivance::is_pow3(d)) return direct;  // the fold's extra nodes break the translations
  return torus_translation_equivariant(
      std::move(direct), BlockAction::fixed, dims,
      "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + peers v_d -+ 3^k "
      "on every line of sides 3^k (Trivance Sec. 4.2; trivance_torus.hpp), tested against the direct generator at "
      "every rank on every shape of sides 1, 3, 9, 27 up to 3 dimensions and 729 nodes");
}

}  // namespace collcheck
