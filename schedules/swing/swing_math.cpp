#include "schedules/swing/swing_math.hpp"

namespace collcheck::swing {

std::vector<Rank> reach_multiset(Rank q, int t, int L, uint64_t m) {
  std::vector<Rank> out;
  if (t > L) return out;
  out.reserve(size_t{1} << (L - t));
  struct Frame { Rank node; int from; };
  std::vector<Frame> stack{{q, t}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    out.push_back(f.node);
    for (int u = f.from; u < L; ++u) stack.push_back({pi(f.node, u, m), u + 1});
  }
  return out;
}

}  // namespace collcheck::swing
