#pragma once
// What every regular group action on a torus must satisfy, for each element
// g_r: g_r(0) = r, a bijection of the ranks inverted by inverse_rank, a block
// keeps its part (blocks as ranks, nblocks a multiple of p) or moves at both
// ends (blocks as (source, destination) pairs) and is inverted
// by inverse_block, and a block set maps to the set of its blocks' images.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "schedules/symmetry.hpp"

namespace collcheck::test {

inline void expect_regular_element(const GroupAction& g, Rank r, const std::string& what) {
  const uint64_t p = g.p();
  ASSERT_EQ(g.rank(r, 0), r) << what;
  std::set<Rank> image;
  for (Rank x = 0; x < p; ++x) {
    image.insert(g.rank(r, x));
    ASSERT_EQ(g.inverse_rank(r, g.rank(r, x)), x) << what << " r=" << r;
  }
  ASSERT_EQ(image.size(), p) << what << " r=" << r;
  for (Block b = 0; b < g.nblocks(); ++b) {
    if (g.block_action() == BlockAction::pairs)  // (source, destination): both ends move as ranks
      ASSERT_EQ(g.block(r, b), uint64_t{g.rank(r, static_cast<Rank>(b / p))} * p + g.rank(r, static_cast<Rank>(b % p)))
          << what;
    else
      ASSERT_EQ(g.block(r, b) / p, b / p) << what;  // a block keeps its part
    ASSERT_EQ(g.inverse_block(r, g.block(r, b)), b) << what;
  }
  BlockSet in, out;
  for (Block b = 0; b < g.nblocks(); b += 1 + (b * 7 + r) % 3) in.insert(b);
  g.blocks(r, in, out);
  std::vector<Block> want, got;
  in.for_each([&](Block b) { want.push_back(g.block(r, b)); });
  std::sort(want.begin(), want.end());
  out.for_each([&](Block b) { got.push_back(b); });
  ASSERT_EQ(got, want) << what << " r=" << r;
}

}  // namespace collcheck::test
