// RunCells (properties/flow/run_cells.hpp) judge exactly as the p-bit cells
// (ExactCells, judge_exact_cell) on every operation, on random sets of
// ranks for p around word boundaries: the lowest rank counted twice, `held`,
// the union and its flag, the copy loss and result, the images under
// translations and reflections (against rotate_bits / reflect_bits), the
// postcondition's messages for allreduce, reduce-scatter and allgather
// requirements; and runs_held() follows every operation.
#include <gtest/gtest.h>

#include <random>

#include "properties/flow/flow_common.hpp"
#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/run_cells.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck::flow {
namespace {

struct Pair {
  RunSet runs;
  std::vector<uint64_t> bits;  // the same set and flag as a p-bit cell
};

Pair random_set(std::mt19937_64& rng, uint64_t p, const RunCells& rc, const ExactCells& ec) {
  Pair out;
  out.bits.assign(ec.words, 0);
  const int shape = static_cast<int>(rng() % 5);
  for (uint64_t x = 0; x < p; ++x) {
    bool in = false;
    switch (shape) {
      case 0: in = false; break;                        // empty
      case 1: in = true; break;                         // every rank
      case 2: in = rng() % 2; break;                    // scattered
      case 3: in = (x / (1 + rng() % 3)) % 2; break;    // short runs
      default: in = x >= p / 3 && x < 2 * p / 3; break; // one run
    }
    if (in) {
      rc.init(&out.runs, static_cast<Rank>(x));
      out.bits[x / 64] |= uint64_t{1} << (x % 64);
    }
  }
  if (rng() % 4 == 0) {
    out.runs.doubled = true;
    out.bits[ec.bits] = 1;
  }
  return out;
}

std::vector<uint64_t> as_bits(const RunSet& s, const ExactCells& ec) {
  std::vector<uint64_t> b(ec.words, 0);
  for (const auto& r : s.ranks.ranges())
    for (uint64_t x = r.lo; x < r.hi; ++x) b[x / 64] |= uint64_t{1} << (x % 64);
  b[ec.bits] = s.doubled ? 1 : 0;
  return b;
}

TEST(RunCells, EveryOperationAsPBitSets) {
  std::mt19937_64 rng(20261125);
  for (uint64_t p : {1u, 2u, 3u, 7u, 63u, 64u, 65u, 130u}) {
    const RunCells rc(p);
    const ExactCells ec(p);
    std::vector<uint64_t> full(ec.bits, ~uint64_t{0});
    if (p % 64) full.back() = (uint64_t{1} << (p % 64)) - 1;
    for (int trial = 0; trial < 300; ++trial) {
      const std::string what = "p=" + std::to_string(p) + " trial " + std::to_string(trial);
      Pair a = random_set(rng, p, rc, ec), b = random_set(rng, p, rc, ec);
      ASSERT_EQ(as_bits(a.runs, ec), a.bits) << what;
      // reduce
      {
        RunSet c = a.runs;
        std::vector<uint64_t> cb = a.bits;
        bool held_r = false, held_b = false, representable = false;
        const auto twice_r = rc.reduce(&c, &b.runs, held_r, representable);
        const auto twice_b = ec.reduce(cb.data(), b.bits.data(), held_b);
        EXPECT_TRUE(representable);
        EXPECT_EQ(twice_r, twice_b) << what;
        EXPECT_EQ(held_r, held_b) << what;
        EXPECT_EQ(as_bits(c, ec), cb) << what;
      }
      // copy
      {
        RunSet c = a.runs;
        std::vector<uint64_t> cb = a.bits;
        EXPECT_EQ(rc.copy(&c, &b.runs), ec.copy(cb.data(), b.bits.data())) << what;
        EXPECT_EQ(as_bits(c, ec), cb) << what;
      }
      // the group's images
      for (uint64_t q : {uint64_t{0}, uint64_t{1}, p / 2, p - 1, static_cast<uint64_t>(rng() % p)}) {
        for (bool reflect : {false, true}) {
          RunSet img;
          rc.map(static_cast<Rank>(q), reflect, &a.runs, &img);
          std::vector<uint64_t> ib(ec.words, 0);
          if (reflect) reflect_bits(ib.data(), a.bits.data(), p, q);
          else rotate_bits(ib.data(), a.bits.data(), p, q);
          ib[ec.bits] = a.bits[ec.bits];
          EXPECT_EQ(as_bits(img, ec), ib) << what << " q=" << q << " reflect=" << reflect;
        }
      }
      // the postcondition
      for (Collective kind : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
        CollectiveSpec spec;
        spec.kind = kind;
        spec.p = p;
        spec.nblocks = static_cast<uint32_t>(p);
        for (Block blk : {Block{0}, static_cast<Block>(p - 1)}) {
          Verdict vr, vb;
          rc.judge(vr, spec, 3, blk, &a.runs);
          judge_exact_cell(vb, spec, p, 0, 3, blk, a.bits.data(), ec.bits, full);
          test::expect_same_verdict(vr, vb, what + " judge " + to_string(kind) + " block " + std::to_string(blk));
        }
      }
    }
  }
}

TEST(RunCells, RunsHeldFollowEveryOperation) {
  const RunCells rc(100);
  RunSet a, b, c;
  for (Rank x : {1u, 2u, 3u, 10u, 50u}) rc.init(&a, x);  // {1-3, 10, 50}: 3 runs
  EXPECT_EQ(rc.runs_held(), 3u);
  rc.init(&b, 4);  // joins a's first run once reduced
  EXPECT_EQ(rc.runs_held(), 4u);
  bool held = false, representable = false;
  EXPECT_FALSE(rc.reduce(&a, &b, held, representable).has_value());
  EXPECT_EQ(a.ranks.to_string(), "{1-4,10,50}");
  EXPECT_EQ(rc.runs_held(), 4u);
  rc.map(99, true, &a, &c);  // x -> 99 - x: {49, 89, 95-98}
  EXPECT_EQ(c.ranks.to_string(), "{49,89,95-98}");
  EXPECT_EQ(rc.runs_held(), 7u);
  rc.release(&c);
  rc.release(&b);
  EXPECT_EQ(rc.runs_held(), 3u);
  EXPECT_EQ(rc.copy(&a, &b), "6 contribution(s) (holds 6, copy has 0)");
  EXPECT_EQ(rc.runs_held(), 0u);
}

}  // namespace
}  // namespace collcheck::flow
