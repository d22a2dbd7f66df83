#include "runtime/inputs.hpp"

#include <algorithm>
#include <utility>

namespace collcheck::runtime {

std::pair<uint64_t, uint64_t> block_elements(uint64_t count, uint64_t nblocks, Block b) {
  const uint64_t base = count / nblocks, extra = count % nblocks;
  const uint64_t lo = uint64_t{b} * base + std::min<uint64_t>(b, extra);
  return {lo, lo + base + (b < extra ? 1 : 0)};
}

const char* to_string(DType d) {
  switch (d) {
    case DType::int64: return "int64";
    case DType::float32: return "float";
    case DType::float64: return "double";
    case DType::int32: return "int32";
  }
  return "?";
}

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::permutation: return "permutation";
  }
  return "?";
}

std::optional<DType> dtype_from_string(const std::string& s) {
  if (s == "int64") return DType::int64;
  if (s == "int32") return DType::int32;
  if (s == "float" || s == "float32") return DType::float32;
  if (s == "double" || s == "float64") return DType::float64;
  return std::nullopt;
}

Perm identity_perm() {
  Perm p{};
  for (uint8_t i = 0; i < p.size(); ++i) p[i] = i;
  return p;
}

Perm compose(const Perm& a, const Perm& b) {
  Perm c{};
  for (size_t i = 0; i < c.size(); ++i) c[i] = b[a[i]];
  return c;
}

std::string to_string(const Perm& x) {
  std::string s = "[";
  for (size_t i = 0; i < x.size(); ++i) {
    if (i) s += ' ';
    s += static_cast<char>('0' + x[i]);
  }
  return s + "]";
}

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t key(uint64_t seed, Rank r, uint64_t index) {
  return mix64(mix64(mix64(seed) ^ (uint64_t{r} + 0x51ed27ULL)) ^ index);
}

int64_t input_integer(uint64_t seed, Rank r, uint64_t index) {
  uint64_t h = key(seed, r, index);
  int64_t k = 1 + static_cast<int64_t>(h % 15);
  int e = static_cast<int>((h >> 32) % 4);
  return k << e;
}

Perm input_perm(uint64_t seed, Rank r, uint64_t index) {
  uint64_t h = key(seed ^ 0x7065726dULL, r, index);
  Perm p = identity_perm();
  for (size_t i = p.size() - 1; i > 0; --i) {  // Fisher-Yates
    h = mix64(h);
    size_t j = static_cast<size_t>(h % (i + 1));
    std::swap(p[i], p[j]);
  }
  return p;
}

}  // namespace collcheck::runtime
