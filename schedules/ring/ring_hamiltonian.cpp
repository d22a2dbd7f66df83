#include "schedules/ring/ring_hamiltonian.hpp"

#include <numeric>

#include "schedules/check.hpp"
#include "schedules/input_error.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck {

std::optional<std::string> hamiltonian_ring_problem(const std::vector<uint32_t>& dims, uint64_t p) {
  if (auto why = torus_shape_problem(dims, p)) return why;
  if (dims.size() != 2)
    return "the Hamiltonian ring runs on a 2D torus r x c (Sec. 2.3.1: 'this algorithm does not work for D > 2'), got " +
           std::to_string(dims.size()) + " dimensions";
  const uint64_t r = dims[0], c = dims[1];
  if (r % c != 0 || std::gcd(r, c - 1) != 1)
    return "no two edge-disjoint Hamiltonian cycles on " + std::to_string(r) + "x" + std::to_string(c) +
           ": Sec. 2.3.1 needs r = c k and gcd(r, c - 1) = 1 (r = " + std::to_string(r) + ", c = " +
           std::to_string(c) + ", gcd = " + std::to_string(std::gcd(r, c - 1)) + ")";
  return std::nullopt;
}

std::vector<std::vector<Rank>> hamiltonian_cycles(uint32_t r, uint32_t c) {
  const uint64_t p = uint64_t{r} * c;
  auto f = [c](uint64_t i) { return c - 1 - static_cast<uint32_t>(i % c); };
  auto node = [c](uint64_t i, uint64_t j) { return static_cast<Rank>(i * c + j); };
  std::vector<std::vector<Rank>> out(2);
  // H1: right along the row until column f(i), then down.
  uint64_t i = 0, j = 0;
  for (uint64_t k = 0; k < p; ++k) {
    out[0].push_back(node(i, j));
    if (j == f(i)) i = (i + 1) % r;
    else j = (j + 1) % c;
  }
  // H2: down until a column f(i) (the H1 link down from there is taken), then right.
  i = 0, j = 0;
  for (uint64_t k = 0; k < p; ++k) {
    out[1].push_back(node(i, j));
    if (j == f(i)) j = (j + 1) % c;
    else i = (i + 1) % r;
  }
  return out;
}

HamiltonianRing::HamiltonianRing(std::vector<uint32_t> dims) {
  uint64_t p = 1;
  for (uint32_t d : dims) p *= d;
  COLLCHECK_CHECK(!hamiltonian_ring_problem(dims, p), "HamiltonianRing: bad shape (the registry's violates() rejects it first)");
  spec_ = CollectiveSpec{Collective::allreduce, p, 4 * p, 0};
  order_ = hamiltonian_cycles(dims[0], dims[1]);
  pos_.assign(2, std::vector<uint64_t>(p));
  for (int h = 0; h < 2; ++h)
    for (uint64_t k = 0; k < p; ++k) pos_[h][order_[h][k]] = k;
}

int64_t HamiltonianRing::route_tie(Rank, int, size_t send) const {
  return send % 2 == 0 ? 1 : -1;  // forward rings move right / down, backward ones left / up
}

void HamiltonianRing::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= num_steps()) return;
  const int64_t p = static_cast<int64_t>(spec_.p);
  auto mod = [p](int64_t x) { return ((x % p) + p) % p; };
  const bool rs = s < p - 1;
  const int64_t t = rs ? s : s - (p - 1);
  const Combine mode = rs ? Combine::reduce : Combine::copy;
  for (int k = 0; k < 4; ++k) {
    const int h = k / 2, dir = k % 2 == 0 ? 1 : -1;
    const std::vector<Rank>& order = order_[h];
    // Position along ring k (its direction), the ring allreduce of ring_allreduce.hpp.
    const int64_t x = dir > 0 ? static_cast<int64_t>(pos_[h][r]) : mod(-static_cast<int64_t>(pos_[h][r]));
    auto at = [&](int64_t position) {
      const int64_t q = mod(position);
      return order[static_cast<size_t>(dir > 0 ? q : mod(-q))];
    };
    const Block base = static_cast<Block>(k * p);
    const int64_t give = rs ? x - t : x + 1 - t, take = rs ? x - t - 1 : x - t;
    out.add_send(at(x + 1), mode).blocks.insert(base + static_cast<Block>(mod(give)));
    out.add_recv(at(x - 1), mode).blocks.insert(base + static_cast<Block>(mod(take)));
  }
}

}  // namespace collcheck
