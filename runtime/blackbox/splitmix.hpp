#pragma once
// splitmix64's finaliser: the seeded values of the black-box payloads
// (payloads.cpp's matrices, power_sums.cpp's weights and hashed values).
#include <cstdint>

namespace collcheck::runtime::blackbox {

inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace collcheck::runtime::blackbox
