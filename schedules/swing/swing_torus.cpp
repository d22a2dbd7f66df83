#include "schedules/swing/swing_torus.hpp"

#include <algorithm>

#include "schedules/check.hpp"
#include "schedules/input_error.hpp"
#include "schedules/int_math.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck {

std::optional<std::string> swing_torus_shape_problem(const std::vector<uint32_t>& dims, uint64_t p) {
  if (auto why = torus_shape_problem(dims, p)) return why;
  for (uint32_t d : dims)
    if (!is_pow2(d))
      return "Swing on a torus takes sides that are powers of two, got " + std::to_string(d) +
             " (Sec. 4.2 counts log2 d steps per dimension and leaves other sides open; the ring variants take any p)";
  return std::nullopt;
}

SwingTorus::SwingTorus(std::vector<uint32_t> dims, Kind kind, SwingTorusPeers peers, SwingTorusLayout layout)
    : dims_(std::move(dims)), kind_(kind), peers_(peers), layout_(layout) {
  uint64_t p = 1;
  for (uint32_t d : dims_) p = std::min<uint64_t>(p * d, uint64_t{1} << 32);  // saturates: no overflow
  COLLCHECK_CHECK(!swing_torus_shape_problem(dims_, p), "SwingTorus: bad shape (the registry's violates() rejects it first)");
  const int D = static_cast<int>(dims_.size());
  const uint64_t C = static_cast<uint64_t>(collectives());
  const uint64_t nblocks = kind_ == Kind::latency ? C : C * p;
  (void)D;
  spec_ = CollectiveSpec{Collective::allreduce, p, nblocks, 0};
  stride_ = torus_strides(dims_);
  for (uint32_t n : dims_) {
    S_.push_back(ceil_log2(n));
    T_ += S_.back();
  }
  plan_ = torus_round_robin_plan(S_);
  progress_ = torus_plan_progress(plan_, D);
}

int SwingTorus::square_phase_steps() const {
  int smin = S_.empty() ? 0 : S_.front();
  for (int s : S_) smin = std::min(smin, s);
  return static_cast<int>(dims_.size()) * smin;
}

uint32_t SwingTorus::step_coordinate(uint32_t x, int d, int sigma, int sgn) const {
  const int64_t n = dims_[d];
  if (peers_ == SwingTorusPeers::xor_doubling || peers_ == SwingTorusPeers::xor_doubling_reflected) {
    const uint32_t bit = uint32_t{1} << sigma;
    if (sgn > 0) return x ^ bit;
    if (peers_ == SwingTorusPeers::xor_doubling_reflected) {
      const uint32_t mirrored = static_cast<uint32_t>((n - x) % n) ^ bit;  // -x, paired, back
      return static_cast<uint32_t>((n - mirrored) % n);
    }
    // The plain offset negated: x - 2^sigma where bit sigma of x is 0, x + 2^sigma where it is 1.
    const int64_t y = (x & bit) ? int64_t{x} + bit : int64_t{x} - bit;
    return static_cast<uint32_t>(((y % n) + n) % n);
  }
  const int64_t off = sgn * (peers_ == SwingTorusPeers::signed_rho ? swing::rho(sigma)
                                                                   : static_cast<int64_t>(swing::delta(sigma)));
  int64_t y = (x % 2 == 0) ? int64_t{x} + off : int64_t{x} - off;
  y %= n;
  if (y < 0) y += n;
  return static_cast<uint32_t>(y);
}

int64_t SwingTorus::route_tie(Rank r, int s, size_t send) const {
  if (s < 0 || s >= num_steps() || send >= static_cast<size_t>(collectives())) return 0;
  return signed_offset(r, static_cast<int>(send), plan_index(s));
}

int64_t SwingTorus::signed_offset(Rank r, int c, int j) const {
  const TorusStep& ts = plan(c, j);
  const uint32_t x = static_cast<uint32_t>((r / stride_[ts.dim]) % dims_[ts.dim]);
  if (peers_ == SwingTorusPeers::xor_doubling || peers_ == SwingTorusPeers::xor_doubling_reflected) {
    // Plain: +2^sigma where bit sigma of x is 0; mirrored: negated, or the reflection's.
    const int64_t n = dims_[ts.dim];
    const bool reflect = sign(c) < 0 && peers_ == SwingTorusPeers::xor_doubling_reflected;
    const uint32_t xs = reflect ? static_cast<uint32_t>((n - x) % n) : x;
    const int64_t off = (xs >> ts.ring_step) & 1 ? -(int64_t{1} << ts.ring_step) : (int64_t{1} << ts.ring_step);
    return sign(c) * off;
  }
  const int64_t off = sign(c) * (peers_ == SwingTorusPeers::signed_rho ? swing::rho(ts.ring_step)
                                                                       : static_cast<int64_t>(swing::delta(ts.ring_step)));
  return x % 2 == 0 ? off : -off;
}

Rank SwingTorus::peer(Rank r, int c, int j) const {
  const TorusStep& ts = plan(c, j);
  const uint64_t st = stride_[ts.dim];
  const uint32_t x = static_cast<uint32_t>((r / st) % dims_[ts.dim]);
  const uint32_t y = step_coordinate(x, ts.dim, ts.ring_step, sign(c));
  return static_cast<Rank>(r - x * st + y * st);
}

// Every coordinate reachable from y through dimension d's steps from_sigma..S_d-1
// (y itself included), sorted, without repetition.
void SwingTorus::reach(int d, uint32_t y, int from_sigma, int sgn, std::vector<uint32_t>& out) const {
  out.assign(1, y);
  for (int k = from_sigma; k < S_[d]; ++k) {
    const size_t n = out.size();
    for (size_t i = 0; i < n; ++i) out.push_back(step_coordinate(out[i], d, k, sgn));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

// Reduce-scatter step j of collective c at rank r: what r sends to its peer
// and what it receives from it.
void SwingTorus::bandwidth_sets(Rank r, int c, int j, BlockSet& send, BlockSet& recv) const {
  const TorusStep& ts = plan(c, j);
  const std::vector<int>& done = progress_[layout_.distinct_starts ? c % dims_.size() : 0][j];
  const Rank q = peer(r, c, j);
  std::vector<std::vector<uint32_t>> mine(dims_.size()), theirs(dims_.size());
  for (size_t e = 0; e < dims_.size(); ++e) {
    const uint32_t xe = static_cast<uint32_t>((r / stride_[e]) % dims_[e]);
    const uint32_t qe = static_cast<uint32_t>((q / stride_[e]) % dims_[e]);
    const int from = static_cast<int>(e) == ts.dim ? ts.ring_step + 1 : done[e];
    reach(static_cast<int>(e), qe, from, sign(c), theirs[e]);
    reach(static_cast<int>(e), xe, from, sign(c), mine[e]);
  }
  const uint64_t base = static_cast<uint64_t>(c) * spec_.p;  // collective c's part of the vector
  insert_product_blocks(theirs, stride_, base, send);
  insert_product_blocks(mine, stride_, base, recv);
}

void SwingTorus::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= num_steps()) return;
  const int j = plan_index(s);
  const bool allgather = s >= T_;
  for (int c = 0; c < collectives(); ++c) {
    const Rank q = peer(r, c, j);
    if (kind_ == Kind::latency) {
      out.add_send(q, Combine::reduce).blocks.insert(static_cast<Block>(c));
      out.add_recv(q, Combine::reduce).blocks.insert(static_cast<Block>(c));
      continue;
    }
    const Combine mode = allgather ? Combine::copy : Combine::reduce;
    Transfer& snd = out.add_send(q, mode);
    Transfer& rcv = out.add_recv(q, mode);
    // The allgather reverses the reduce-scatter: r sends back what it received.
    if (allgather)
      bandwidth_sets(r, c, j, rcv.blocks, snd.blocks);
    else
      bandwidth_sets(r, c, j, snd.blocks, rcv.blocks);
  }
}

std::unique_ptr<Schedule> make_swing_torus(const std::vector<uint32_t>& dims, SwingTorus::Kind kind,
                                           SwingTorusPeers peers, SwingTorusLayout layout) {
  return std::make_unique<SwingTorus>(dims, kind, peers, layout);
}

}  // namespace collcheck
