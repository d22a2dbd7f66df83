// The held-cell enumeration of an all-to-all (properties/flow/
// held_enumeration.hpp) against the dense exact enumeration it replaces:
// every TRA variant at every P <= 24 and every radix, every TRA2 variant
// (the printed paper-literal reading included, which is refuted) at every
// P <= 24, every Q dividing P and every radix pair, and a sweep of
// mutants of TRA, Bruck and spread-out (dropped, duplicated, redirected,
// moved transfers, swapped and added blocks, flipped combines, one-ended
// transfers) that break every flow property: the same verdicts, checks,
// violations and minimal counterexamples. The held cells must also be
// what decided (the method says so) and the memory guard must stop it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "properties/flow/held_enumeration.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra.hpp"
#include "tests/support/alltoall.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck::test {
namespace {

// Exact enumeration (no quotient), held cells (automatic) or dense cells.
InstanceCheck enumerated(const Schedule& s, const Claim* claim, const StepHook& hook, bool dense) {
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.use_symmetry = false;
  if (dense) o.bookkeeping = Bookkeeping::dense;
  return check_schedule(s, claim, hook, o);
}

bool by_held(const InstanceCheck& c) {
  return c.stats.count("method") && c.stats.at("method") == flow::kHeldEnumerationMethod;
}

void compare(const Schedule& s, const Claim* claim, const StepHook& hook, const std::string& what) {
  const InstanceCheck held = enumerated(s, claim, hook, false), dense = enumerated(s, claim, hook, true);
  ASSERT_FALSE(held.refused) << what;
  ASSERT_TRUE(by_held(held)) << what;
  ASSERT_FALSE(dense.stats.count("method")) << what;  // the dense simulation names no method
  expect_same_verdicts(held, dense, what);
}

TEST(HeldEnumeration, SameVerdictsAsDenseCellsForEveryTraVariantAndRadix) {
  const AlgorithmInfo* tra = find_algorithm("tra");
  ASSERT_NE(tra, nullptr);
  uint64_t compared = 0;
  for (const VariantInfo& v : tra->variants) {
    const bool radix = v.name == tra->default_variant().name;
    for (uint64_t p = 2; p <= 24; ++p)
      for (uint64_t r = 2; r <= (radix ? p : 2); ++r) {
        InstanceParams ip;
        ip.p = p;
        if (radix) ip.radix = static_cast<uint32_t>(r);
        if (v.violates(ip)) continue;
        const auto s = v.make(ip);
        const Claim claim = v.claim(ip);
        compare(*s, &claim, family_step_hook(v, ip), "tra/" + v.name + " p=" + std::to_string(p) + " r=" + std::to_string(r));
        ++compared;
      }
  }
  EXPECT_EQ(compared, 23u * 24 / 2 + 2 * 23);
}

TEST(HeldEnumeration, SameVerdictsAsDenseCellsForEveryTra2ReadingShapeAndRadixPair) {
  const AlgorithmInfo* tra2 = find_algorithm("tra2");
  ASSERT_NE(tra2, nullptr);
  uint64_t compared = 0, refuted = 0;
  for (const VariantInfo& v : tra2->variants)
    for_each_tra2_shape(2, 24, [&](uint64_t p, uint64_t q, uint64_t r1, uint64_t r2) {
      if (::testing::Test::HasFatalFailure()) return;
      InstanceParams ip;
      ip.p = p;
      ip.ppn = static_cast<uint32_t>(q);
      ip.radix = static_cast<uint32_t>(r1);
      ip.radix2 = static_cast<uint32_t>(r2);
      if (v.violates(ip)) return;
      const auto s = v.make(ip);
      const Claim claim = v.claim(ip);
      const std::string what = "tra2/" + v.name + " P=" + std::to_string(p) + " Q=" + std::to_string(q) +
                               " r1=" + std::to_string(r1) + " r2=" + std::to_string(r2);
      compare(*s, &claim, family_step_hook(v, ip), what);
      const InstanceCheck c = enumerated(*s, &claim, family_step_hook(v, ip), false);
      refuted += !mutation::violated(c).empty();
      ++compared;
    });
  EXPECT_GT(compared, 3u * 24);
  // The printed readings are refuted (paper-literal in the postcondition,
  // paper-formulas in cost), so the comparison covers violations too.
  EXPECT_GT(refuted, 24u);
}

// Every mutation operator at every step of rank `src` (and the pairs it
// needs), on a materialized all-to-all.
TEST(HeldEnumeration, SameVerdictsAsDenseCellsOnMutants) {
  using namespace mutation;
  struct Base {
    const char* algo;
    const char* variant;
    uint64_t p;
    uint32_t radix;
  };
  uint64_t mutants = 0;
  std::set<std::string> broken;  // the properties some mutant violates
  for (const Base& b : {Base{"tra", "tra", 7, 2}, Base{"tra", "tra", 9, 3}, Base{"tra", "tra", 8, 8},
                        Base{"tra", "bruck", 6, 0}, Base{"tra", "spread-out", 5, 0}}) {
    const VariantInfo& v = registered_variant(b.algo, b.variant);
    InstanceParams ip;
    ip.p = b.p;
    ip.radix = b.radix;
    const auto s = v.make(ip);
    const Claim claim = v.claim(ip);
    const MaterializedSchedule base = materialize(*s);
    const uint64_t p = b.p;
    for (int st = 0; st < base.num_steps(); ++st)
      for (Rank src = 0; src < p; src += 2) {
        if (at(base, st, src).sends.empty()) continue;
        const Rank dst = send_peer(base, st, src);
        const Block first = at(base, st, src).sends.front().blocks.ranges().front().lo;
        const std::vector<std::pair<std::string, std::function<void(MaterializedSchedule&)>>> ops = {
            {"drop", [&](MaterializedSchedule& m) { drop_transfer(m, st, src, dst); }},
            {"drop-recv", [&](MaterializedSchedule& m) { drop_recv(m, st, src, dst); }},
            {"duplicate-later",
             [&](MaterializedSchedule& m) { duplicate_transfer(m, st, src, dst, m.num_steps(), dst); }},
            {"redirect", [&](MaterializedSchedule& m) { redirect_transfer(m, st, src, dst, (dst + 1) % p == src ? (dst + 2) % p : (dst + 1) % p); }},
            {"move-earlier", [&](MaterializedSchedule& m) { if (st > 0) move_transfer(m, st, src, dst, st - 1); else throw std::logic_error("none"); }},
            {"move-later", [&](MaterializedSchedule& m) { move_transfer(m, st, src, dst, m.num_steps()); }},
            {"flip", [&](MaterializedSchedule& m) { flip_combine(m, st, src, dst); }},
            {"swap-block", [&](MaterializedSchedule& m) { swap_block(m, st, src, dst, first, static_cast<Block>((first + p) % (p * p))); }},
            {"add-own-block", [&](MaterializedSchedule& m) { add_block(m, st, src, dst, static_cast<Block>(src * p + src)); }},
            {"add-foreign-block", [&](MaterializedSchedule& m) { add_block(m, st, src, dst, static_cast<Block>(((src + 1) % p) * p + dst)); }},
            {"send-only", [&](MaterializedSchedule& m) { add_send_only(m, st, src, dst, BlockSet::from_blocks({static_cast<Block>(src * p + dst)}), Combine::copy); }},
            {"reduce-twice", [&](MaterializedSchedule& m) { add_transfer(m, st, src, dst, BlockSet::from_blocks({static_cast<Block>(src * p + dst)}), Combine::reduce); }},
            // One end lists a block the other does not: the blocks both list still arrive.
            {"send-extra-block", [&](MaterializedSchedule& m) { add_block_at_one_end(send_of(m, st, src, dst), static_cast<Block>(((src + 1) % p) * p + dst)); }},
            {"recv-extra-block", [&](MaterializedSchedule& m) { add_block_at_one_end(recv_of(m, st, src, dst), static_cast<Block>(src * p + src)); }},
        };
        for (const auto& [name, op] : ops) {
          MaterializedSchedule m = base;
          try {
            op(m);
          } catch (const std::logic_error&) {
            continue;  // the operator does not apply here
          }
          const MaterializedView view(m);
          const std::string what = std::string(b.algo) + "/" + b.variant + " p=" + std::to_string(p) + " " + name +
                                   " at step " + std::to_string(st) + " " + std::to_string(src) + "->" +
                                   std::to_string(dst);
          compare(view, &claim, {}, what);
          for (const std::string& x : violated(enumerated(view, &claim, {}, false))) broken.insert(x);
          ++mutants;
        }
      }
  }
  EXPECT_GT(mutants, 200u);
  // The mutants reach every property the simulation judges.
  for (const char* x : {"matching", "ports", "causality", "exactly-once", "postcondition", "cost"})
    EXPECT_TRUE(broken.count(x)) << x << " is never violated: the comparison does not cover it";
}

// A value counted twice (a set cell, not a single contribution) forwarded
// by copy into an empty cell, over another set cell, over a delivered
// single contribution and back, and a reduce from a sender that holds
// nothing: every path of the held cells besides the single-contribution
// ones, against the dense cells, after a correct all-to-all (spread-out,
// P = 4) so that the final values show each path's result. Block (0, 2) = 2.
TEST(HeldEnumeration, SameVerdictsAsDenseCellsWhenAValueIsCountedTwiceAndForwarded) {
  using namespace mutation;
  InstanceParams ip;
  ip.p = 4;
  MaterializedSchedule m = materialize(*registered_variant("tra", "spread-out").make(ip));
  const int base = m.num_steps();
  const BlockSet b1 = BlockSet::from_blocks({1}), b2 = BlockSet::from_blocks({2});
  add_transfer(m, base, 3, 0, b1, Combine::reduce);     // rank 3 never holds (0, 1): causality
  add_transfer(m, base + 1, 0, 1, b2, Combine::copy);   // rank 1: {0}
  add_transfer(m, base + 2, 0, 1, b2, Combine::reduce); // rank 1: {0} counted twice (exactly-once)
  add_transfer(m, base + 3, 1, 3, b2, Combine::copy);   // a set into rank 3's empty cell
  add_transfer(m, base + 4, 1, 3, b2, Combine::copy);   // a set over a set
  add_transfer(m, base + 5, 1, 2, b2, Combine::copy);   // over rank 2's delivered (0, 2): postcondition
  add_transfer(m, base + 6, 0, 2, b2, Combine::copy);   // a single contribution over a set: delivered again
  for (int last = base + 2; last <= base + 6; ++last) {
    MaterializedSchedule cut = m;
    cut.steps.resize(static_cast<size_t>(last) + 1);
    const MaterializedView view(cut);
    compare(view, nullptr, {}, "spread-out P=4 and the steps to " + std::to_string(last));
    const InstanceCheck held = enumerated(view, nullptr, {}, false);
    EXPECT_EQ(verdict(held, "causality").status, Status::violated) << describe(held);
    EXPECT_EQ(verdict(held, "exactly-once").status, Status::violated) << describe(held);
    // Rank 2's (0, 2) is counted twice only between the two copies into it.
    EXPECT_EQ(verdict(held, "postcondition").status, last == base + 5 ? Status::violated : Status::holds)
        << last << "\n" << describe(held);
  }
}

TEST(HeldEnumeration, StopsAtTheMemoryGuard) {
  Tra s(64, 2);
  const flow::HeldEnumerationResult r = flow::run_held_enumeration(s, {}, 1 << 16);
  ASSERT_TRUE(r.aborted.has_value());
  EXPECT_NE(r.aborted->find("--max-memory"), std::string::npos) << *r.aborted;
  const flow::HeldEnumerationResult ok = flow::run_held_enumeration(s, {}, 0);
  EXPECT_FALSE(ok.aborted.has_value());
  // Every rank keeps its own 64 blocks and the 64 it must end with, and what
  // passes through it; never the 64^3 cells of the dense state.
  EXPECT_GE(ok.max_cells, 64u * 64);
  EXPECT_LT(ok.max_cells, 64u * 64 * 64 / 4);
  // The estimate holds them (rank 0 receives 6 x 32 blocks over the 6 rounds).
  EXPECT_LE(ok.max_cells * 48, flow::held_enumeration_bytes(s, 6 * 32));
}

// verify and check-file refuse an exact check whose dense cells pass 2^32
// before building anything; held cells have no such limit.
TEST(HeldEnumeration, NoDenseCellLimitForAnExactAllToAll) {
  CheckOptions o;
  o.exactness = Exactness::exact;
  const Tra big(2048, 2);  // 2048 ranks x 2048^2 blocks = 2^33 dense cells
  EXPECT_TRUE(infeasible(big.p(), big.num_blocks(), o).has_value());
  EXPECT_FALSE(infeasible(big, o).has_value());
  o.bookkeeping = Bookkeeping::dense;  // asked for: the limit binds again
  EXPECT_TRUE(infeasible(big, o).has_value());
  CheckOptions exact;
  exact.exactness = Exactness::exact;
  const auto ring = find_algorithm("ring")->default_variant().make(InstanceParams{70000, 0});
  EXPECT_TRUE(infeasible(*ring, exact).has_value());
}

TEST(HeldEnumeration, AppliesToAllToAllOnly) {
  EXPECT_TRUE(flow::held_enumeration_applies(Tra(5, 2)));
  const auto ring = find_algorithm("ring")->default_variant().make(InstanceParams{5, 0});
  EXPECT_FALSE(flow::held_enumeration_applies(*ring));
}

}  // namespace
}  // namespace collcheck::test
