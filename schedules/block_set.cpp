#include "schedules/block_set.hpp"

#include <algorithm>
#include <bit>
#include <utility>

namespace collcheck {

BlockSet BlockSet::range(Block lo, Block hi) {
  BlockSet s;
  if (lo < hi) s.ranges_.push_back({lo, hi});
  return s;
}

namespace {
template <class T>
BlockSet sorted_blocks(std::vector<T> blocks) {
  std::sort(blocks.begin(), blocks.end());
  BlockSet s;
  for (T b : blocks) s.insert(b);
  return s;
}
}  // namespace

BlockSet BlockSet::from_blocks(std::vector<Block> blocks) { return sorted_blocks(std::move(blocks)); }
BlockSet BlockSet::from_rank_blocks(std::vector<Rank> blocks) { return sorted_blocks(std::move(blocks)); }

BlockSet BlockSet::from_bitmap(const std::vector<uint64_t>& words) {
  BlockSet s;
  const uint64_t total = static_cast<uint64_t>(words.size()) * 64;
  // The first bit at or after pos that is set (or clear), else total.
  auto next = [&](uint64_t pos, bool set) -> uint64_t {
    size_t w = static_cast<size_t>(pos / 64);
    if (w >= words.size()) return total;
    uint64_t x = (set ? words[w] : ~words[w]) & (~uint64_t{0} << (pos % 64));
    while (!x) {
      if (++w >= words.size()) return total;
      x = set ? words[w] : ~words[w];
    }
    return static_cast<uint64_t>(w) * 64 + static_cast<uint64_t>(std::countr_zero(x));
  };
  uint64_t lo = next(0, true);
  while (lo < total) {
    const uint64_t hi = next(lo, false);
    s.ranges_.push_back({lo, hi});
    lo = next(hi, true);
  }
  return s;
}

void BlockSet::insert_range_slow(Block lo, Block hi) {
  // General case: insert in order, then merge overlapping or adjacent ranges.
  auto pos = std::lower_bound(ranges_.begin(), ranges_.end(), lo,
                              [](const Range& r, Block x) { return r.lo < x; });
  ranges_.insert(pos, Range{lo, hi});
  std::vector<Range> out;
  out.reserve(ranges_.size());
  for (const Range& r : ranges_) {
    if (!out.empty() && out.back().hi >= r.lo)
      out.back().hi = std::max(out.back().hi, r.hi);
    else
      out.push_back(r);
  }
  ranges_ = std::move(out);
}

void BlockSet::insert_all(const BlockSet& other) {
  for (const Range& r : other.ranges_) insert_range(r.lo, r.hi);
}

void BlockSet::erase(Block b) {
  for (size_t i = 0; i < ranges_.size(); ++i) {
    Range r = ranges_[i];
    if (b < r.lo || b >= r.hi) continue;
    if (r.lo + 1 == r.hi) {
      ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (b == r.lo) {
      ranges_[i].lo++;
    } else if (b + 1 == r.hi) {
      ranges_[i].hi--;
    } else {
      ranges_[i].hi = b;
      ranges_.insert(ranges_.begin() + static_cast<std::ptrdiff_t>(i) + 1, Range{b + 1, r.hi});
    }
    return;
  }
}

uint64_t BlockSet::size() const {
  uint64_t n = 0;
  for (const Range& r : ranges_) n += r.hi - r.lo;
  return n;
}

bool BlockSet::contains(Block b) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), b,
                             [](Block x, const Range& r) { return x < r.lo; });
  if (it == ranges_.begin()) return false;
  --it;
  return b < it->hi;
}

std::vector<Block> BlockSet::blocks() const {
  std::vector<Block> out;
  out.reserve(size());
  for_each([&](Block b) { out.push_back(b); });
  return out;
}

BlockSet BlockSet::intersect(Block lo, Block hi) const {
  BlockSet s;
  for (const Range& r : ranges_) {
    Block a = std::max(r.lo, lo), z = std::min(r.hi, hi);
    if (a < z) s.ranges_.push_back({a, z});
  }
  return s;
}

BlockSet BlockSet::intersect(const BlockSet& other) const {
  BlockSet s;
  size_t i = 0, j = 0;
  while (i < ranges_.size() && j < other.ranges_.size()) {
    const Range& a = ranges_[i];
    const Range& b = other.ranges_[j];
    Block lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
    if (lo < hi) s.ranges_.push_back({lo, hi});
    (a.hi < b.hi) ? ++i : ++j;
  }
  return s;
}

bool BlockSet::intersects(const BlockSet& other, Block lo, Block hi) const {
  size_t i = 0, j = 0;
  while (i < ranges_.size() && j < other.ranges_.size()) {
    const Range& a = ranges_[i];
    const Range& b = other.ranges_[j];
    const Block x = std::max({a.lo, b.lo, lo}), z = std::min({a.hi, b.hi, hi});
    if (x < z) return true;
    if (a.lo >= hi || b.lo >= hi) return false;
    (a.hi < b.hi) ? ++i : ++j;
  }
  return false;
}

bool BlockSet::includes(const BlockSet& other) const {
  // Both canonical (sorted, disjoint, not adjacent): each range of `other`
  // lies inside one range of this set or is not included.
  size_t i = 0;
  for (const Range& b : other.ranges_) {
    while (i < ranges_.size() && ranges_[i].hi <= b.lo) ++i;
    if (i == ranges_.size() || ranges_[i].lo > b.lo || ranges_[i].hi < b.hi) return false;
  }
  return true;
}

BlockSet BlockSet::minus(const BlockSet& other) const {
  BlockSet s;
  size_t j = 0;
  for (Range r : ranges_) {
    Block lo = r.lo;
    while (j < other.ranges_.size() && other.ranges_[j].hi <= lo) ++j;
    size_t k = j;
    while (lo < r.hi && k < other.ranges_.size() && other.ranges_[k].lo < r.hi) {
      const Range& o = other.ranges_[k];
      if (o.lo > lo) s.ranges_.push_back({lo, o.lo});
      lo = std::max(lo, o.hi);
      ++k;
    }
    if (lo < r.hi) s.ranges_.push_back({lo, r.hi});
  }
  return s;
}

uint64_t BlockSet::hash() const {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  auto mix = [&](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
  };
  for (const Range& r : ranges_) {
    mix(r.lo);
    mix(r.hi);
  }
  return h;
}

std::string BlockSet::to_string() const {
  std::string s = "{";
  for (size_t i = 0; i < ranges_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(ranges_[i].lo);
    if (ranges_[i].hi > ranges_[i].lo + 1) s += "-" + std::to_string(ranges_[i].hi - 1);
  }
  return s + "}";
}

}  // namespace collcheck
