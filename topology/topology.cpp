#include "topology/topology.hpp"

#include <algorithm>

#include "schedules/input_error.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck {

Topology::Topology(std::vector<uint32_t> dims) : dims_(std::move(dims)), stride_(torus_strides(dims_)) {
  for (uint32_t d : dims_) nodes_ *= d;
}

std::string TorusTopology::name() const { return "torus " + dims_label(dims_); }

std::string TorusTopology::link_name(uint64_t id) const {
  const uint64_t D = dims_.size();
  const Rank node = static_cast<Rank>(id / (2 * D));
  const uint64_t d = (id / 2) % D;
  return "node " + std::to_string(node) + " dim " + std::to_string(d) + (id % 2 ? " +" : " -");
}

void TorusTopology::runs(Rank a, Rank b, int64_t tie, std::vector<Run>& out) const {
  Rank at = a;
  for (size_t d = 0; d < dims_.size(); ++d) {
    const uint64_t n = dims_[d], x = coord(at, d), y = coord(b, d);
    if (x == y) continue;
    out.push_back({at, d, torus_hop_direction(x, y, n, tie), torus_hop_distance(x, y, n)});
    at = static_cast<Rank>(at - x * stride_[d] + y * stride_[d]);
  }
}

void TorusTopology::route(Rank a, Rank b, int64_t tie, std::vector<uint64_t>& out) const {
  thread_local std::vector<Run> rs;
  rs.clear();
  runs(a, b, tie, rs);
  for (const Run& r : rs) {
    const uint64_t n = dims_[r.d], x = coord(r.from, r.d);
    uint64_t c = x;
    for (uint64_t h = 0; h < r.hops; ++h) {
      out.push_back(link(static_cast<Rank>(r.from - x * stride_[r.d] + c * stride_[r.d]), r.d, r.dir));
      c = r.dir > 0 ? (c + 1) % n : (c + n - 1) % n;
    }
  }
}

HyperXTopology::HyperXTopology(std::vector<uint32_t> dims) : Topology(std::move(dims)) {
  for (uint32_t d : dims_) max_side_ = std::max<uint64_t>(max_side_, d);
}

std::string HyperXTopology::name() const { return "hyperx " + dims_label(dims_); }

std::string HyperXTopology::link_name(uint64_t id) const {
  const uint64_t D = dims_.size();
  const Rank node = static_cast<Rank>(id / (D * max_side_));
  const uint64_t d = (id / max_side_) % D;
  return "node " + std::to_string(node) + " dim " + std::to_string(d) + " to coordinate " +
         std::to_string(id % max_side_);
}

void HyperXTopology::route(Rank a, Rank b, int64_t, std::vector<uint64_t>& out) const {
  Rank at = a;
  for (size_t d = 0; d < dims_.size(); ++d) {
    const uint64_t x = coord(at, d), y = coord(b, d);
    if (x == y) continue;
    out.push_back((at * dims_.size() + d) * max_side_ + y);
    at = static_cast<Rank>(at - x * stride_[d] + y * stride_[d]);
  }
}

const std::vector<std::string>& topology_names() {
  static const std::vector<std::string> names = {"torus", "hyperx"};
  return names;
}

std::unique_ptr<Topology> make_topology(const std::string& name, const std::vector<uint32_t>& dims) {
  uint64_t p = 1;
  for (uint32_t d : dims) p = std::min<uint64_t>(p * d, uint64_t{1} << 40);
  if (auto why = torus_shape_problem(dims, p)) throw InputError("topology: " + *why);
  if (name == "torus") return std::make_unique<TorusTopology>(dims);
  if (name == "hyperx") return std::make_unique<HyperXTopology>(dims);
  throw InputError("unknown topology '" + name + "' (known: torus, hyperx)");
}

}  // namespace collcheck
