#pragma once
// BlockSet: a canonical set of block indices.
//
// Canonical form is a sorted list of disjoint, non-adjacent half-open ranges
// [lo, hi). Most schedules move contiguous ranges once blocks are renumbered
// (the Swing paper says so explicitly), so a transfer of p/2 blocks is usually
// one range, not p/2 integers. Two BlockSets are equal iff they hold the same
// blocks, because the form is canonical.
#include <cstdint>
#include <string>
#include <vector>

#include "schedules/check.hpp"

namespace collcheck {

using Rank = uint32_t;
using Block = uint64_t;  // block indices are < 2^64 - 1 (ranges are half-open); an all-to-all
                         // of P ranks has P^2 blocks, past 2^32 from P = 65536 on
inline constexpr Block kBlockEnd = UINT64_MAX;  // no block has this index: the open end of every range
// The most blocks a schedule has: every index is below 2^63, so it is exact in
// a signed 64-bit integer too (the results store's SQLite INTEGER column).
inline constexpr uint64_t kMaxBlockCount = uint64_t{1} << 63;

class BlockSet {
 public:
  struct Range {
    Block lo;  // first block
    Block hi;  // one past the last block
    friend bool operator==(const Range&, const Range&) = default;
  };

  BlockSet() = default;
  static BlockSet range(Block lo, Block hi);  // [lo, hi); empty if lo >= hi
  static BlockSet single(Block b) { return range(b, b + 1); }
  static BlockSet from_blocks(std::vector<Block> blocks);  // any order, duplicates allowed
  // Blocks numbered as ranks (one block per rank, 32 bits), any order.
  static BlockSet from_rank_blocks(std::vector<Rank> blocks);
  // The blocks whose bits are set in `words` (bit b of word b / 64), in
  // O(words + ranges): no sort.
  static BlockSet from_bitmap(const std::vector<uint64_t>& words);

  // Adds a block or range; amortised O(1) when appended in increasing order.
  void insert(Block b) {
    COLLCHECK_CHECK(b != kBlockEnd, "block index must be < 2^64 - 1");
    insert_range(b, b + 1);
  }
  void insert_range(Block lo, Block hi) {
    if (lo >= hi) return;
    if (ranges_.empty() || ranges_.back().hi < lo) {  // fast path: append
      ranges_.push_back({lo, hi});
      return;
    }
    if (ranges_.back().lo <= lo) {  // extends the last range
      if (hi > ranges_.back().hi) ranges_.back().hi = hi;
      return;
    }
    insert_range_slow(lo, hi);
  }
  // Empties the set, keeping its capacity (generators refill RankSteps).
  void clear() { ranges_.clear(); }
  void reserve(size_t ranges) { ranges_.reserve(ranges); }
  void insert_all(const BlockSet& other);
  // Removes one block; O(ranges).
  void erase(Block b);

  bool empty() const { return ranges_.empty(); }
  uint64_t size() const;  // number of blocks
  bool contains(Block b) const;
  const std::vector<Range>& ranges() const { return ranges_; }
  std::vector<Block> blocks() const;

  BlockSet intersect(Block lo, Block hi) const;  // restriction to [lo, hi)
  BlockSet intersect(const BlockSet& other) const;
  BlockSet minus(const BlockSet& other) const;
  // Whether this set and `other` share a block in [lo, hi); no allocation.
  bool intersects(const BlockSet& other, Block lo = 0, Block hi = kBlockEnd) const;
  // Whether every block of `other` is in this set; no allocation.
  bool includes(const BlockSet& other) const;

  uint64_t hash() const;
  std::string to_string() const;  // "{1-2,5,9-10}"

  friend bool operator==(const BlockSet&, const BlockSet&) = default;

  template <class F>
  void for_each(F&& f) const {
    for (const Range& r : ranges_)
      for (Block b = r.lo; b < r.hi; ++b) f(b);
  }

 private:
  void insert_range_slow(Block lo, Block hi);
  std::vector<Range> ranges_;
};

}  // namespace collcheck
