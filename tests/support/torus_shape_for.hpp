#pragma once
// A torus shape of p nodes a torus variant accepts, for the tests that run
// every registry variant at every p: the 1-D torus {p} if the variant takes
// it, else the first r x c (c = 2, 3, ..) it takes (the Hamiltonian ring needs
// two dimensions), else {p} (the variant then rejects p with its reason).
#include <cstdint>
#include <vector>

#include "schedules/family.hpp"

namespace collcheck::test {

inline std::vector<uint32_t> torus_shape_for(const VariantInfo& v, uint64_t p) {
  InstanceParams ip{p, 0};
  ip.dims = {static_cast<uint32_t>(p)};
  if (!v.violates(ip)) return ip.dims;
  for (uint64_t c = 2; c < p; ++c) {
    if (p % c) continue;
    ip.dims = {static_cast<uint32_t>(p / c), static_cast<uint32_t>(c)};
    if (!v.violates(ip)) return ip.dims;
  }
  return {static_cast<uint32_t>(p)};
}

}  // namespace collcheck::test
