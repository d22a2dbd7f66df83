#pragma once
// Swing bandwidth-optimal allreduce with contiguous blocks (powers of two).
//
// Algorithm  : Swing, NSDI'24 Sec. 3.1.1: "in the allreduce, we logically remap
//              the blocks (i.e., without any actual memory movement) so that each
//              node sends contiguous data". The paper does not give the remap;
//              we derive it. Let S(r, t) be the set of ranks r reaches through
//              steps t..L-1 (Listing 1's get_rs_idx plus r itself), so
//              S(r, t) = S(r, t+1) + S(pi(r, t), t+1). For p = 2^L the sets of
//              each level partition the ranks (Theorem A.5), so they form a
//              binary tree; numbering the leaves depth-first from S(0, 0)
//              (pos[x] = position of rank x) makes every S(q, t) the aligned
//              range of size 2^(L-t) that contains pos[q].
// Steps      : 2 log2 p.  Volume: 2(p-1) blocks of n/p per rank.
// Transfers  : RS step s: r sends the range of S(pi(r,s), s+1) and keeps the
//              range of S(r, s+1); AG step 2L-1-s mirrors it with copies.
//              Every transfer is one BlockSet range, so generating a rank's
//              step is O(1) after an O(p) permutation table (4 bytes per rank).
// Blocks     : block i is the block of rank pos^-1(i) in the paper's numbering.
// Restrictions: p a power of two. The checker re-verifies the derived remap;
//              it does not assume Theorem A.5.
// Example    : p = 8: blocks 0..7 are the paper's b_0 b_3 b_7 b_4 b_1 b_6 b_2 b_5;
//              rank 0 sends {4-7} (= b_1 b_6 b_2 b_5, i.e. {1,2,5,6}) at step 0.
#include <memory>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

class SwingBandwidthContiguous final : public Schedule {
 public:
  explicit SwingBandwidthContiguous(uint64_t p);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2 * L_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  // Position of rank x's block in the contiguous numbering.
  Block position(Rank x) const { return pos_[x]; }

 private:
  BlockSet::Range subtree(Rank q, int t) const;  // range of S(q, t)
  CollectiveSpec spec_;
  int L_;
  std::vector<Block> pos_;
};

}  // namespace collcheck
