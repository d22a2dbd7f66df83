// BoxCells (properties/flow/box_cells.hpp) judge exactly as the p-bit cells
// (ExactCells, judge_exact_cell) on every operation, on random boxes of a
// 4x2x8 torus (64 nodes: one word of p bits): the lowest rank counted twice,
// `held`, the union (or "not representable" exactly when the union of two
// boxes is not a box), the copy loss, the postcondition's messages, and the
// group's image of a box against the image of its ranks.
#include <gtest/gtest.h>

#include <random>

#include "properties/flow/box_cells.hpp"
#include "properties/flow/flow_common.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck::flow {
namespace {

const std::vector<uint32_t> kDims = {4, 2, 8};

struct Pair {
  std::vector<uint64_t> box, bits;  // the same set two ways (and the flag word)
};

Pair random_box(std::mt19937_64& rng, const BoxCells& bc, const ExactCells& ec, const Pair* like) {
  Pair out{std::vector<uint64_t>(bc.words(), 0), std::vector<uint64_t>(ec.words, 0)};
  if (rng() % 10 == 0) return out;  // empty
  std::vector<std::vector<uint32_t>> f(kDims.size());
  const size_t keep = rng() % kDims.size();  // often differ from `like` in one factor only
  size_t off = 0;
  for (size_t i = 0; i < kDims.size(); ++i) {
    if (like && like->box[off] && i != keep && rng() % 3) {
      for (uint32_t x = 0; x < kDims[i]; ++x)
        if ((like->box[off] >> x) & 1) f[i].push_back(x);
    } else {
      for (uint32_t x = 0; x < kDims[i]; ++x)
        if (rng() % 2) f[i].push_back(x);
      if (f[i].empty()) f[i].push_back(static_cast<uint32_t>(rng() % kDims[i]));
    }
    for (uint32_t x : f[i]) out.box[off] |= uint64_t{1} << x;
    off += 1;  // every side here fits one word
  }
  const std::vector<uint64_t> stride = torus_strides(kDims);
  std::vector<size_t> idx(kDims.size(), 0);
  for (;;) {
    uint64_t r = 0;
    for (size_t i = 0; i < kDims.size(); ++i) r += f[i][idx[i]] * stride[i];
    out.bits[r / 64] |= uint64_t{1} << (r % 64);
    size_t i = kDims.size();
    while (i-- > 0 && ++idx[i] == f[i].size()) idx[i] = 0;
    if (i == static_cast<size_t>(-1)) break;
  }
  return out;
}

std::vector<uint64_t> as_bits(const BoxCells& bc, const std::vector<uint64_t>& box) {
  std::vector<uint64_t> bits(2, 0);
  for (Rank x = 0; x < bc.p(); ++x)
    if (bc.contains(box.data(), x)) bits[0] |= uint64_t{1} << x;
  bits[1] = box.back();
  return bits;
}

bool is_box(uint64_t set) {  // a set of ranks of kDims is a product iff it is the product of its projections
  if (!set) return true;
  const std::vector<uint64_t> stride = torus_strides(kDims);
  std::vector<uint64_t> proj(kDims.size(), 0);
  for (uint64_t r = 0; r < 64; ++r)
    if ((set >> r) & 1)
      for (size_t i = 0; i < kDims.size(); ++i) proj[i] |= uint64_t{1} << ((r / stride[i]) % kDims[i]);
  uint64_t prod = 0;
  for (uint64_t r = 0; r < 64; ++r) {
    bool in = true;
    for (size_t i = 0; i < kDims.size(); ++i) in &= (proj[i] >> ((r / stride[i]) % kDims[i])) & 1;
    if (in) prod |= uint64_t{1} << r;
  }
  return prod == set;
}

TEST(BoxCells, ReduceAndCopyJudgeAsPBitCells) {
  const BoxCells bc(kDims);
  const ExactCells ec(64);
  std::mt19937_64 rng(5);
  int unrepresentable = 0, doubles = 0, losses = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Pair a = random_box(rng, bc, ec, nullptr);
    Pair b = random_box(rng, bc, ec, &a);
    ASSERT_EQ(as_bits(bc, a.box), a.bits);
    if (trial % 2) {
      bool held_b = true, held_e = true, rep = true;
      const uint64_t exact_union = a.bits[0] | b.bits[0];
      const auto tb = bc.reduce(a.box.data(), b.box.data(), held_b, rep);
      const auto te = ec.reduce(a.bits.data(), b.bits.data(), held_e);
      EXPECT_EQ(tb, te);
      EXPECT_EQ(held_b, held_e);
      EXPECT_EQ(rep, is_box(exact_union));
      doubles += te.has_value();
      if (!rep) {
        ++unrepresentable;
        continue;
      }
      EXPECT_EQ(as_bits(bc, a.box), a.bits);
    } else {
      const auto lb = bc.copy(a.box.data(), b.box.data());
      const auto le = ec.copy(a.bits.data(), b.bits.data());
      EXPECT_EQ(lb, le);
      losses += le.has_value();
      EXPECT_EQ(as_bits(bc, a.box), a.bits);
    }
  }
  EXPECT_GT(unrepresentable, 100);
  EXPECT_GT(doubles, 1000);
  EXPECT_GT(losses, 1000);
}

// includes (the fold composition's every copy a superset) is containment
// of the p-bit sets, the empty box included.
TEST(BoxCells, IncludesIsContainmentOfTheRanks) {
  const BoxCells bc(kDims);
  const ExactCells ec(64);
  std::mt19937_64 rng(11);
  int contained = 0, not_contained = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Pair a = random_box(rng, bc, ec, nullptr);
    Pair b = random_box(rng, bc, ec, &a);
    const bool want = (b.bits[0] & ~a.bits[0]) == 0;
    EXPECT_EQ(bc.includes(a.box.data(), b.box.data()), want) << trial;
    (want ? contained : not_contained)++;
  }
  std::vector<uint64_t> empty(bc.words(), 0);
  Pair a = random_box(rng, bc, ec, nullptr);
  EXPECT_TRUE(bc.includes(a.box.data(), empty.data()));
  EXPECT_EQ(bc.includes(empty.data(), a.box.data()), a.bits[0] == 0);
  EXPECT_GT(contained, 100);
  EXPECT_GT(not_contained, 100);
}

TEST(BoxCells, PostconditionMessagesEqualThePBitJudgement) {
  const BoxCells bc(kDims);
  const ExactCells ec(64);
  std::mt19937_64 rng(9);
  CollectiveSpec spec;
  spec.p = 64;
  spec.nblocks = 64;
  const std::vector<uint64_t> full(1, ~uint64_t{0});
  for (int trial = 0; trial < 3000; ++trial) {
    Pair a = random_box(rng, bc, ec, nullptr);
    if (trial % 7 == 0) {  // the full box, sometimes counted twice
      for (size_t i = 0; i < kDims.size(); ++i) a.box[i] = (uint64_t{1} << kDims[i]) - 1;
      a.bits[0] = ~uint64_t{0};
    }
    if (trial % 5 == 0) a.box.back() = a.bits.back() = 1;
    for (Collective kind : {Collective::allreduce, Collective::allgather}) {
      spec.kind = kind;
      const Block b = static_cast<Block>(rng() % 64);
      Verdict vb, ve;
      bc.judge(vb, spec, 3, b, a.box.data());
      judge_exact_cell(ve, spec, 64, 0, 3, b, a.bits.data(), 1, full);
      EXPECT_EQ(vb.checks, ve.checks);
      EXPECT_EQ(vb.violations, ve.violations);
      ASSERT_EQ(vb.counterexample.has_value(), ve.counterexample.has_value());
      if (vb.counterexample) {
        EXPECT_EQ(vb.counterexample->expected, ve.counterexample->expected);
        EXPECT_EQ(vb.counterexample->actual, ve.counterexample->actual);
      }
    }
  }
}

TEST(BoxCells, TheGroupMapsABoxToTheImageOfItsRanks) {
  const BoxCells bc(kDims);
  const ExactCells ec(64);
  CollectiveSpec spec;
  spec.p = 64;
  spec.nblocks = 64;
  const GroupAction g(SymmetryGroup::torus_swing_dihedral, BlockAction::as_ranks, spec, 0, kDims);
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    const Pair a = random_box(rng, bc, ec, nullptr);
    for (Rank q = 0; q < 64; ++q) {
      std::vector<uint64_t> img(bc.words(), 0);
      bc.map(g, q, a.box.data(), img.data());
      uint64_t want = 0;
      for (Rank x = 0; x < 64; ++x)
        if ((a.bits[0] >> x) & 1) want |= uint64_t{1} << g.rank(q, x);
      ASSERT_EQ(as_bits(bc, img)[0], want) << "q=" << q;
    }
  }
}

}  // namespace
}  // namespace collcheck::flow
