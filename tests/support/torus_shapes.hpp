#pragma once
// Every torus shape with sides from `sides`, 1 to `max_dims` dimensions and
// at most `max_nodes` nodes, in lexicographic order of the side lists (the
// shapes the torus equivalence tests walk).
#include <cstdint>
#include <vector>

namespace collcheck::test {

inline std::vector<std::vector<uint32_t>> every_shape(const std::vector<uint32_t>& sides, uint64_t max_nodes,
                                                      size_t max_dims) {
  std::vector<std::vector<uint32_t>> out;
  std::vector<uint32_t> cur;
  auto rec = [&](auto&& self, uint64_t nodes) -> void {
    if (!cur.empty()) out.push_back(cur);
    if (cur.size() == max_dims) return;
    for (uint32_t d : sides)
      if (nodes * d <= max_nodes) {
        cur.push_back(d);
        self(self, nodes * d);
        cur.pop_back();
      }
  };
  rec(rec, 1);
  return out;
}

inline uint64_t shape_nodes(const std::vector<uint32_t>& dims) {
  uint64_t p = 1;
  for (uint32_t d : dims) p *= d;
  return p;
}

}  // namespace collcheck::test
