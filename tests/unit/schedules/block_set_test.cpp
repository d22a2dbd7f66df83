// BlockSet (schedules/block_set.hpp): the canonical set of block indices.
//
//  * canonical form: ranges are sorted, disjoint and non-adjacent whatever the
//    insertion order (out of order, overlapping, adjacent, duplicate);
//  * erase: removing the first, last, middle or only block of a range, and
//    absent blocks;
//  * intersect / minus / insert_all / contains / size / blocks against a
//    brute-force std::set reference, exhaustively for every pair of subsets
//    of a small universe and on pseudo-random sets over a larger one;
//  * to_string ("{1-2,5,9-10}"), hash and equality of equal sets built in
//    different ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "schedules/block_set.hpp"

namespace collcheck {
namespace {

using Ref = std::set<Block>;
using R = BlockSet::Range;

Ref ref_of(const BlockSet& s) {
  auto b = s.blocks();
  return Ref(b.begin(), b.end());
}

BlockSet from_ref(const Ref& r) { return BlockSet::from_blocks(std::vector<Block>(r.begin(), r.end())); }

// The canonical-form invariant: non-empty ranges, strictly increasing, with a
// gap of at least one block between consecutive ranges.
::testing::AssertionResult canonical(const BlockSet& s) {
  const auto& rs = s.ranges();
  for (size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].lo >= rs[i].hi)
      return ::testing::AssertionFailure() << "empty range " << i << " in " << s.to_string();
    if (i && rs[i - 1].hi >= rs[i].lo)
      return ::testing::AssertionFailure() << "ranges " << i - 1 << " and " << i
                                           << " overlap or touch in " << s.to_string();
  }
  return ::testing::AssertionSuccess();
}

// Subset number `mask` of {0..n-1}.
Ref subset(uint32_t mask, Block n) {
  Ref r;
  for (Block b = 0; b < n; ++b)
    if (mask >> b & 1) r.insert(b);
  return r;
}

TEST(BlockSetCanonical, EmptyAndSingle) {
  BlockSet e;
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.size(), 0u);
  EXPECT_EQ(e.to_string(), "{}");
  EXPECT_EQ(BlockSet::range(5, 5), e);
  EXPECT_EQ(BlockSet::range(7, 3), e);  // lo >= hi is empty, not an error
  BlockSet one = BlockSet::single(4);
  EXPECT_EQ(one.ranges(), (std::vector<R>{{4, 5}}));
  EXPECT_EQ(one.size(), 1u);
}

TEST(BlockSetCanonical, OutOfOrderInsertsSortAndMerge) {
  BlockSet s;
  for (Block b : {9u, 1u, 5u, 2u, 10u}) s.insert(b);
  EXPECT_EQ(s.ranges(), (std::vector<R>{{1, 3}, {5, 6}, {9, 11}}));
  EXPECT_TRUE(canonical(s));
  EXPECT_EQ(s.to_string(), "{1-2,5,9-10}");
  EXPECT_EQ(s.size(), 5u);
}

TEST(BlockSetCanonical, AdjacentRangesMerge) {
  BlockSet s;
  s.insert_range(4, 6);
  s.insert_range(0, 2);
  s.insert_range(2, 4);  // touches both neighbours: everything is one range
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 6}}));
  BlockSet t;
  t.insert_range(0, 3);
  t.insert_range(3, 5);  // appended adjacent range
  EXPECT_EQ(t.ranges(), (std::vector<R>{{0, 5}}));
}

TEST(BlockSetCanonical, OverlappingRangesMerge) {
  BlockSet s;
  s.insert_range(10, 20);
  s.insert_range(0, 5);
  s.insert_range(3, 12);  // overlaps both
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 20}}));
  s.insert_range(5, 8);  // fully inside
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 20}}));
  s.insert_range(25, 30);
  s.insert_range(18, 26);  // bridges the gap to the last range
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 30}}));
}

TEST(BlockSetCanonical, InsertSpanningManyRanges) {
  BlockSet s;
  for (Block b = 0; b < 20; b += 2) s.insert(b);  // 10 singletons
  ASSERT_EQ(s.ranges().size(), 10u);
  s.insert_range(3, 16);  // swallows 4..14 and merges with 2 and 16
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 1}, {2, 17}, {18, 19}}));
  EXPECT_TRUE(canonical(s));
}

TEST(BlockSetCanonical, DuplicatesAreIgnored) {
  BlockSet s = BlockSet::from_blocks({3, 3, 1, 3, 2, 1});
  EXPECT_EQ(s.ranges(), (std::vector<R>{{1, 4}}));
  s.insert(2);
  s.insert_range(1, 4);
  EXPECT_EQ(s.ranges(), (std::vector<R>{{1, 4}}));
  EXPECT_EQ(s.size(), 3u);
}

TEST(BlockSetCanonical, EqualSetsBuiltDifferentlyAreEqual) {
  BlockSet a = BlockSet::from_blocks({0, 1, 2, 3, 7, 8});
  BlockSet b;
  b.insert_range(7, 9);
  b.insert_range(2, 4);
  b.insert(0);
  b.insert(1);
  BlockSet c = BlockSet::range(0, 9);
  for (Block x : {4u, 5u, 6u}) c.erase(x);
  BlockSet d = BlockSet::range(0, 4);
  d.insert_all(BlockSet::range(7, 9));
  BlockSet e = BlockSet::range(0, 20).intersect(BlockSet::from_blocks({0, 1, 2, 3, 7, 8, 30}));
  for (const BlockSet* s : {&b, &c, &d, &e}) {
    EXPECT_EQ(*s, a) << s->to_string();
    EXPECT_EQ(s->hash(), a.hash());
    EXPECT_EQ(s->to_string(), "{0-3,7-8}");
  }
  EXPECT_NE(a, BlockSet::from_blocks({0, 1, 2, 3, 7}));
  EXPECT_NE(a.hash(), BlockSet::from_blocks({0, 1, 2, 3, 7}).hash());
}

TEST(BlockSetErase, SplitsARangeInTheMiddle) {
  BlockSet s = BlockSet::range(0, 10);
  s.erase(4);
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 4}, {5, 10}}));
  s.erase(7);
  EXPECT_EQ(s.ranges(), (std::vector<R>{{0, 4}, {5, 7}, {8, 10}}));
  EXPECT_EQ(s.size(), 8u);
  EXPECT_FALSE(s.contains(4));
  EXPECT_FALSE(s.contains(7));
  EXPECT_TRUE(s.contains(5));
  EXPECT_TRUE(canonical(s));
}

TEST(BlockSetErase, EndsSingletonsAndAbsentBlocks) {
  BlockSet s = BlockSet::from_blocks({2, 3, 4, 8});
  s.erase(2);  // first block of a range
  EXPECT_EQ(s.ranges(), (std::vector<R>{{3, 5}, {8, 9}}));
  s.erase(4);  // last block of a range
  EXPECT_EQ(s.ranges(), (std::vector<R>{{3, 4}, {8, 9}}));
  s.erase(8);  // a whole singleton range
  EXPECT_EQ(s.ranges(), (std::vector<R>{{3, 4}}));
  s.erase(100);  // absent: no change
  s.erase(0);
  EXPECT_EQ(s.ranges(), (std::vector<R>{{3, 4}}));
  s.erase(3);
  EXPECT_TRUE(s.empty());
  s.erase(3);  // erasing from the empty set is harmless
  EXPECT_TRUE(s.empty());
}

TEST(BlockSetQueries, ContainsAtRangeBoundaries) {
  BlockSet s = BlockSet::from_blocks({1, 2, 5, 9, 10});
  Ref r = ref_of(s);
  for (Block b = 0; b < 14; ++b) EXPECT_EQ(s.contains(b), r.count(b) == 1) << "block " << b;
  EXPECT_FALSE(BlockSet().contains(0));
  EXPECT_TRUE(BlockSet::range(0, 1u << 30).contains((1u << 30) - 1));
  EXPECT_FALSE(BlockSet::range(0, 1u << 30).contains(1u << 30));
}

TEST(BlockSetQueries, ToStringFormats) {
  EXPECT_EQ(BlockSet::single(0).to_string(), "{0}");
  EXPECT_EQ(BlockSet::range(3, 5).to_string(), "{3-4}");
  EXPECT_EQ(BlockSet::from_blocks({1, 2, 5, 9, 10}).to_string(), "{1-2,5,9-10}");
  EXPECT_EQ(BlockSet::from_blocks({0, 2, 4}).to_string(), "{0,2,4}");
  EXPECT_EQ(BlockSet::range(0, 1000000).to_string(), "{0-999999}");
}

TEST(BlockSetQueries, IntersectWithAnInterval) {
  BlockSet s = BlockSet::from_blocks({1, 2, 5, 9, 10, 11});
  EXPECT_EQ(s.intersect(2, 10), BlockSet::from_blocks({2, 5, 9}));
  EXPECT_EQ(s.intersect(0, 100), s);
  EXPECT_EQ(s.intersect(3, 5), BlockSet());
  EXPECT_EQ(s.intersect(6, 6), BlockSet());
  EXPECT_EQ(s.intersect(10, 2), BlockSet());  // inverted interval: empty
}

// Every pair of subsets of {0..7} (65,536 pairs): the set algebra agrees
// with std::set, results are canonical, and for_each visits blocks in order.
TEST(BlockSetAlgebra, ExhaustiveAgainstStdSetOnEightBlocks) {
  constexpr Block n = 8;
  for (uint32_t ma = 0; ma < (1u << n); ++ma) {
    Ref ra = subset(ma, n);
    BlockSet a = from_ref(ra);
    ASSERT_TRUE(canonical(a));
    ASSERT_EQ(ref_of(a), ra);
    ASSERT_EQ(a.size(), ra.size());
    for (uint32_t mb = 0; mb < (1u << n); ++mb) {
      Ref rb = subset(mb, n);
      BlockSet b = from_ref(rb);
      BlockSet i = a.intersect(b), d = a.minus(b), u = a;
      u.insert_all(b);
      ASSERT_EQ(ref_of(i), subset(ma & mb, n)) << a.to_string() << " & " << b.to_string();
      ASSERT_EQ(ref_of(d), subset(ma & ~mb, n)) << a.to_string() << " - " << b.to_string();
      ASSERT_EQ(ref_of(u), subset(ma | mb, n)) << a.to_string() << " | " << b.to_string();
      ASSERT_TRUE(canonical(i) && canonical(d) && canonical(u));
      ASSERT_EQ(i, from_ref(subset(ma & mb, n)));  // canonical => equality is set equality
      ASSERT_EQ(d, from_ref(subset(ma & ~mb, n)));
      ASSERT_EQ(u, from_ref(subset(ma | mb, n)));
    }
  }
}

// Random sets over a larger universe, with long runs (so ranges matter),
// built by random-order inserts and erases.
TEST(BlockSetAlgebra, RandomSetsAgainstStdSet) {
  std::mt19937 rng(12345);
  auto random_set = [&](Ref& ref) {
    BlockSet s;
    int ops = static_cast<int>(rng() % 40);
    for (int k = 0; k < ops; ++k) {
      Block lo = rng() % 300, len = 1 + rng() % 25;
      if (rng() % 4 == 0) {
        Block b = rng() % 300;
        s.erase(b);
        ref.erase(b);
      } else {
        s.insert_range(lo, lo + len);
        for (Block b = lo; b < lo + len; ++b) ref.insert(b);
      }
    }
    return s;
  };
  for (int iter = 0; iter < 2000; ++iter) {
    Ref ra, rb;
    BlockSet a = random_set(ra), b = random_set(rb);
    ASSERT_TRUE(canonical(a)) << a.to_string();
    ASSERT_EQ(ref_of(a), ra);
    ASSERT_EQ(a.size(), ra.size());
    Ref ri, rd, ru;
    std::set_intersection(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(ri, ri.end()));
    std::set_difference(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(rd, rd.end()));
    std::set_union(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(ru, ru.end()));
    BlockSet u = a;
    u.insert_all(b);
    ASSERT_EQ(ref_of(a.intersect(b)), ri) << a.to_string() << " & " << b.to_string();
    ASSERT_EQ(ref_of(a.minus(b)), rd) << a.to_string() << " - " << b.to_string();
    ASSERT_EQ(ref_of(u), ru);
    ASSERT_TRUE(canonical(a.intersect(b)) && canonical(a.minus(b)) && canonical(u));
    Block lo = rng() % 320, hi = rng() % 320;
    Ref rw;
    for (Block x : ra)
      if (x >= lo && x < hi) rw.insert(x);
    ASSERT_EQ(ref_of(a.intersect(lo, hi)), rw);
    // intersects(other, lo, hi) agrees with the allocating intersection.
    ASSERT_EQ(a.intersects(b, lo, hi), !a.intersect(b).intersect(lo, hi).empty()) << a.to_string() << " & "
                                                                                 << b.to_string();
    ASSERT_EQ(a.intersects(b), !ri.empty());
    for (Block x = 0; x < 330; x += 7) ASSERT_EQ(a.contains(x), ra.count(x) == 1);
    std::vector<Block> seen;
    a.for_each([&](Block x) { seen.push_back(x); });
    ASSERT_EQ(seen, std::vector<Block>(ra.begin(), ra.end()));
  }
}

TEST(BlockSetIncludes, EveryRangeInsideOneRangeOfTheSuperset) {
  const BlockSet a = BlockSet::range(2, 10);
  EXPECT_TRUE(a.includes(BlockSet{}));
  EXPECT_TRUE(a.includes(BlockSet::range(2, 10)));
  EXPECT_TRUE(a.includes(BlockSet::range(3, 5)));
  EXPECT_FALSE(a.includes(BlockSet::range(1, 5)));
  EXPECT_FALSE(a.includes(BlockSet::range(9, 11)));
  BlockSet two = BlockSet::range(0, 4);
  two.insert_all(BlockSet::range(6, 8));
  BlockSet inside = BlockSet::single(1);
  inside.insert_all(BlockSet::single(7));
  EXPECT_TRUE(two.includes(inside));
  EXPECT_FALSE(two.includes(BlockSet::range(3, 7)));  // spans the gap 4..5
  EXPECT_FALSE(BlockSet{}.includes(inside));
  // Against the block-by-block definition on random sets.
  std::mt19937_64 rng(3);
  for (int t = 0; t < 2000; ++t) {
    BlockSet x, y;
    for (Block b = 0; b < 40; ++b) {
      if (rng() % 3) x.insert_all(BlockSet::single(b));
      if (rng() % 4 == 0) y.insert_all(BlockSet::single(b));
    }
    bool want = true;
    for (Block b : y.blocks()) want = want && x.contains(b);
    EXPECT_EQ(x.includes(y), want) << t;
  }
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// from_bitmap against from_blocks: every subset of 0..11 in one word, and
// pseudo-random sets over several words (runs across word boundaries, full
// words, the last bit of the last word).
TEST(BlockSetFromBitmap, SameAsFromBlocks) {
  auto check = [](const std::vector<uint64_t>& words) {
    std::vector<Block> blocks;
    for (size_t w = 0; w < words.size(); ++w)
      for (int b = 0; b < 64; ++b)
        if (words[w] >> b & 1) blocks.push_back(static_cast<Block>(w) * 64 + static_cast<Block>(b));
    const BlockSet got = BlockSet::from_bitmap(words);
    EXPECT_TRUE(canonical(got)) << got.to_string();
    EXPECT_EQ(got, BlockSet::from_blocks(blocks)) << got.to_string();
  };
  for (uint32_t mask = 0; mask < (1u << 12); ++mask) check({mask});
  check({});
  check({~uint64_t{0}});
  check({~uint64_t{0}, ~uint64_t{0}, 1});
  check({uint64_t{1} << 63, 1, 0, uint64_t{1} << 63});
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint64_t> words(1 + rng() % 5);
    for (auto& w : words) {
      const int kind = static_cast<int>(rng() % 4);
      w = kind == 0 ? 0 : kind == 1 ? ~uint64_t{0} : rng() & rng();
    }
    check(words);
  }
}

}  // namespace
}  // namespace collcheck
