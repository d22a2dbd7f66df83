#include "schedules/torus_shape.hpp"

#include <algorithm>

namespace collcheck {

std::optional<std::string> torus_shape_problem(const std::vector<uint32_t>& dims, uint64_t p, size_t max_dims) {
  if (dims.empty()) return std::string("needs a torus shape (--dims, e.g. 3x3)");
  if (dims.size() > max_dims)
    return "at most " + std::to_string(max_dims) + " dimensions, got " + std::to_string(dims.size());
  uint64_t prod = 1;
  std::string shape;
  for (uint32_t d : dims) {
    shape += (shape.empty() ? "" : "x") + std::to_string(d);
    if (d < 1) return std::string("a torus dimension must be >= 1, got 0");
  }
  for (uint32_t d : dims) {
    prod *= d;  // d >= 1 and prod <= 2^31 before, so no overflow
    if (prod > (uint64_t{1} << 31)) return "the torus " + shape + " has more than 2^31 nodes";
  }
  if (prod != p) return "the torus " + shape + " has " + std::to_string(prod) + " nodes, not p = " + std::to_string(p);
  return std::nullopt;
}

std::vector<std::vector<TorusStep>> torus_round_robin_plan(const std::vector<int>& ring_steps) {
  const int D = static_cast<int>(ring_steps.size());
  int T = 0;
  for (int s : ring_steps) T += s;
  std::vector<std::vector<TorusStep>> plan(D);
  for (int c = 0; c < D; ++c) {
    std::vector<int> done(D, 0);
    while (static_cast<int>(plan[c].size()) < T)
      for (int i = 0; i < D; ++i) {
        const int d = (c + i) % D;
        if (done[d] < ring_steps[d]) plan[c].push_back({d, done[d]++});
      }
  }
  return plan;
}

std::string dims_label(const std::vector<uint32_t>& dims) {
  std::string s;
  for (uint32_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

std::vector<uint32_t> torus_coords(const std::vector<uint32_t>& dims, Rank r) {
  std::vector<uint32_t> x(dims.size());
  uint64_t rest = r;
  for (size_t d = dims.size(); d-- > 0;) {
    x[d] = static_cast<uint32_t>(rest % dims[d]);
    rest /= dims[d];
  }
  return x;
}

Rank torus_rank(const std::vector<uint32_t>& dims, const std::vector<uint32_t>& x) {
  uint64_t r = 0;
  for (size_t d = 0; d < dims.size(); ++d) r = r * dims[d] + x[d];
  return static_cast<Rank>(r);
}

void insert_product_blocks(const std::vector<std::vector<uint32_t>>& per_dim, const std::vector<uint64_t>& stride,
                           uint64_t base, BlockSet& out) {
  const size_t D = per_dim.size();
  std::vector<size_t> idx(D, 0);
  for (;;) {
    uint64_t r = 0;
    for (size_t e = 0; e < D; ++e) r += per_dim[e][idx[e]] * stride[e];
    out.insert(static_cast<Block>(base + r));
    size_t e = D;
    while (e-- > 0) {
      if (++idx[e] < per_dim[e].size()) break;
      idx[e] = 0;
    }
    if (e == static_cast<size_t>(-1)) return;
  }
}

std::vector<uint64_t> torus_strides(const std::vector<uint32_t>& dims) {
  std::vector<uint64_t> stride(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) stride[d - 1] = stride[d] * dims[d];
  return stride;
}

std::vector<std::vector<std::vector<int>>> torus_plan_progress(const std::vector<std::vector<TorusStep>>& plan,
                                                                int dimensions) {
  std::vector<std::vector<std::vector<int>>> progress(plan.size());
  for (size_t c = 0; c < plan.size(); ++c) {
    std::vector<int> done(dimensions, 0);
    for (const TorusStep& ts : plan[c]) {
      progress[c].push_back(done);
      if (ts.dim >= 0) ++done[ts.dim];
    }
  }
  return progress;
}

int torus_hop_direction(uint64_t x, uint64_t y, uint64_t n, int64_t tie) {
  const uint64_t o = (y + n - x) % n;
  if (2 * o < n) return 1;
  if (2 * o > n) return -1;
  return tie >= 0 ? 1 : -1;
}

uint64_t torus_hop_distance(uint64_t x, uint64_t y, uint64_t n) {
  const uint64_t o = (y + n - x) % n;
  return std::min(o, n - o);
}

}  // namespace collcheck
