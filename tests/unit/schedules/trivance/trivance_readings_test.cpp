// Trivance's bandwidth routing read every way the paper leaves open
// (schedules/trivance/trivance_bandwidth.hpp, TrivanceRouting).
//
// The paper (Trivance, Sec. 4.1, 4.3: Algorithm 1 and the closed form
// Pi(n, r, p, k)) sends to each peer p "the data intended for p but also the
// data blocks designated for the nodes that p will reach in the subsequent
// steps". For n = 3^s the three choices of step k, forwarded right (+1), left
// (-1) or not (0), reach disjoint sets of nodes and Pi never contains r, so
// nothing needs choosing. For other n the reach sets overlap, and the paper
// prints neither a de-duplication nor a rule about a rank's own block b = r
// (Pi contains it when p reaches r later, e.g. n = 4: Pi(4, 0, 1, 0) =
// {1, 2, 0}). Every reading is a registered variant:
//
//  * no de-duplication (`paper-bandwidth`, `paper-bandwidth-own-stays`):
//    refuted at n = 2 (both ports send block 0 to rank 0), own block or not;
//  * "stay" first (`bandwidth`: stay, right, left; `dedup-stay-left-right`):
//    hold. Why: a contribution is forwarded only when its remainder cannot stay
//    reachable otherwise; every incoming contribution lands on a reachable
//    remainder, and the reachable sets only shrink with k, so a rank never
//    receives a block it has forwarded: nothing it sent is sent again (tested
//    below from the moves alone). The own block (remainder 0, reachable with
//    all digits 0) never moves, so an own-block rule changes nothing (tested).
//    With the text's last distance every remainder is reachable at the start
//    (3^t consecutive offsets from digits 0..t-1, then +-d with
//    d = ceil((n - 3^t)/2) <= 3^t: 3^t + 2d >= n consecutive offsets), so each
//    contribution follows exactly one path to its destination. The mirror
//    reading is the reflection r -> -r of `bandwidth` (tested).
//  * a move first (Sec. 4.1's wording: forward whatever a peer reaches), own
//    block sent or kept (`dedup-{right,left}-...`, 8 variants): refuted, minimal
//    n = 4, where d = (1, 1). Why: a remainder that could stay is forwarded,
//    and the neighbour's same choice refills it in the same step; a sender keeps
//    what it sent (sends read; the paper: "after each step, the received data
//    is aggregated at each node over all blocks", nothing is discarded), so
//    the refilled block carries the forwarded contributions a second time
//    (exactly-once, postcondition) and is sent again (cost: 8 blocks, not 6).
//    Each fails exactly where it forwards a block that could stay, i.e. where
//    its routing differs from the stay-first reading with the same order of
//    the two moves (tested for n <= 200 here, 1500 in
//    tests/slow/schedules/trivance/trivance_readings_sweep_test.cpp): everywhere except the
//    powers of three and a few n where no remainder is reachable both by
//    staying and by a move; keeping the own block changes no verdict.
// All counterexamples below were derived by running the variants
// (`collcheck verify --algo trivance --variant V --p 1..400`).
#include "tests/support/trivance_readings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "properties/catalog.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

using M = TrivanceRouting::Move;
using Moves = std::vector<std::vector<OffsetRoutingRing::Move>>;
using mutation::describe;
using mutation::verdict;
using mutation::violated;
using test::TrivanceReading;

const VariantInfo& variant(const std::string& name) { return test::registered_variant("trivance", name); }

// Every routing the generator can build: 6 preference orders x own block sent
// or kept, and Algorithm 1 without de-duplication (own block sent or kept).
std::vector<TrivanceRouting> every_routing() {
  std::vector<TrivanceRouting> out;
  std::array<M, 3> order{M::stay, M::right, M::left};
  std::sort(order.begin(), order.end());
  do {
    for (bool own : {false, true}) out.push_back(test::trivance_routing(order[0], order[1], order[2], own));
  } while (std::next_permutation(order.begin(), order.end()));
  for (bool own : {false, true}) {
    TrivanceRouting literal;
    literal.every_path = true;
    literal.own_block_stays = own;
    out.push_back(literal);
    literal.printed_last_distance = true;
    out.push_back(literal);
    TrivanceRouting keep_last;  // Algorithm 1's listings, each block at its last one
    keep_last.every_path = true;
    keep_last.keep_last_listing = true;
    keep_last.own_block_stays = own;
    out.push_back(keep_last);
  }
  return out;
}

bool sends_own_block(const Moves& m) {
  for (const auto& step : m)
    for (const auto& mv : step)
      if (std::find(mv.offsets.begin(), mv.offsets.end(), 0u) != mv.offsets.end()) return true;
  return false;
}

// Some rank receives, in step k' >= k, a block it forwarded in step k (the
// moves are translation invariant: a move (shift, C) sends remainders C and
// delivers remainders C - shift at the receiver).
bool refills_a_forwarded_block(uint64_t n, const Moves& m) {
  std::set<uint64_t> forwarded;
  for (const auto& step : m) {
    for (const auto& mv : step) forwarded.insert(mv.offsets.begin(), mv.offsets.end());
    for (const auto& mv : step)
      for (uint64_t c : mv.offsets)
        if (forwarded.count((c + n - mv.shift) % n)) return true;
  }
  return false;
}

TEST(TrivanceReadings, AllReadingsAgreeAtPowersOfThree) {
  for (int s = 0; s <= 6; ++s) {
    const uint64_t n = trivance::pow3(s);
    const Moves want = trivance_moves(n);
    EXPECT_FALSE(sends_own_block(want)) << n;
    for (const TrivanceRouting& how : every_routing()) EXPECT_EQ(trivance_moves(n, how), want) << "n = " << n;
  }
}

TEST(TrivanceReadings, OwnBlockRuleIsVacuousWhenStayComesFirst) {
  for (uint64_t n = 1; n <= 729; ++n)
    for (M second : {M::right, M::left}) {
      const M third = second == M::right ? M::left : M::right;
      const Moves sent = trivance_moves(n, test::trivance_routing(M::stay, second, third, false));
      EXPECT_FALSE(sends_own_block(sent)) << n;
      EXPECT_EQ(trivance_moves(n, test::trivance_routing(M::stay, second, third, true)), sent) << n;
    }
}

// The reason the stay-first readings hold, from the moves alone; the
// forwarding-first ones refill exactly where they differ from their
// stay-first counterparts.
TEST(TrivanceReadings, OnlyForwardingFirstReadingsRefillAForwardedBlock) {
  for (uint64_t n = 1; n <= 400; ++n) {
    EXPECT_FALSE(refills_a_forwarded_block(n, trivance_moves(n))) << n;
    EXPECT_FALSE(
        refills_a_forwarded_block(n, trivance_moves(n, test::trivance_routing(M::stay, M::left, M::right, false))))
        << n;
    for (const TrivanceReading& r : test::forwarding_first_readings())
      EXPECT_EQ(refills_a_forwarded_block(n, trivance_moves(n, r.how)), test::differs_from_stay_first(n, r.how))
          << r.variant << " n = " << n;
  }
}

// The n <= 400 where a forwarding-first reading never forwards a block that
// could stay (docs/findings/trivance.md, item 4; registry known_failure): the
// powers of three and these.
TEST(TrivanceReadings, WhereForwardingFirstReadingsHaveNothingToChoose) {
  const std::vector<uint64_t> documented = {1,  2,  3,  6,  7,  8,   9,   20,  21,  24,  25,  26,  27,  62,  63, 74,
                                            75, 78, 79, 80, 81, 188, 189, 224, 225, 236, 237, 240, 241, 242, 243};
  for (const TrivanceReading& r : test::forwarding_first_readings()) {
    std::vector<uint64_t> same;
    for (uint64_t n = 1; n <= 400; ++n)
      if (!test::differs_from_stay_first(n, r.how)) same.push_back(n);
    EXPECT_EQ(same, documented) << r.variant;
  }
}

TEST(TrivanceReadings, StayLeftRightIsTheMirrorOfBandwidth) {
  auto reflected = [](uint64_t n, const std::vector<uint64_t>& offsets) {
    std::vector<uint64_t> out;
    for (uint64_t c : offsets) out.push_back((n - c) % n);
    std::sort(out.begin(), out.end());
    return out;
  };
  for (uint64_t n = 1; n <= 400; ++n) {
    const Moves a = trivance_moves(n), b = trivance_moves(n, test::trivance_routing(M::stay, M::left, M::right, false));
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(b[k].size(), 2u);
      EXPECT_EQ(b[k][0].offsets, reflected(n, a[k][1].offsets)) << "n = " << n << " step " << k;  // right <- left
      EXPECT_EQ(b[k][1].offsets, reflected(n, a[k][0].offsets)) << "n = " << n << " step " << k;
    }
  }
}

// n = 4 (d = 1, 1): who sends its own block in step 0, from the registry.
TEST(TrivanceReadings, OwnBlockAtN4) {
  RankStep rs;
  auto step0_to_rank1 = [&](const char* name) {
    variant(name).make({4, 0})->rank_step(0, 0, rs);
    return test::send_to(rs, 1).blocks;
  };
  // Pi(4, 0, 1, 0) = 1 + {0, -+3} mod 4 (printed last distance 3) contains 0.
  EXPECT_EQ(step0_to_rank1("paper-bandwidth"), BlockSet::from_blocks({0, 1, 2}));
  EXPECT_EQ(step0_to_rank1("paper-bandwidth-own-stays"), BlockSet::from_blocks({1, 2}));
  EXPECT_EQ(step0_to_rank1("dedup-right-stay-left"), BlockSet::from_blocks({0, 1, 2}));
  EXPECT_EQ(step0_to_rank1("dedup-right-stay-left-own-stays"), BlockSet::from_blocks({1, 2}));
  EXPECT_EQ(step0_to_rank1("bandwidth"), BlockSet::single(2));  // 0, 1 and 3 can stay
}

TEST(TrivanceReadings, StayFirstReadingsHoldForN1To200) {
  for (const char* name : {"bandwidth", "dedup-stay-left-right"}) {
    EXPECT_TRUE(variant(name).expected_to_hold) << name;
    for (uint64_t n = 1; n <= 200; ++n) EXPECT_FALSE(test::fails(variant(name), n)) << name << " n = " << n;
  }
}

// The first double count at n = 4 as collcheck reports it (exact mode): the
// location and whose contribution, which the registry's known_failure names.
TEST(TrivanceReadings, ForwardingFirstReadingsFailAtN4) {
  const struct {
    const char* variant;
    Rank peer, twice;
    int blocks;                                     // sent per rank (the claim: 2(n-1) = 6)
  } want[] = {{"dedup-right-stay-left", 1, 0, 10},  // rank 0's own block, sent right in step 0, comes back
              {"dedup-right-stay-left-own-stays", 3, 3, 8}, {"dedup-right-left-stay", 1, 0, 12},
              {"dedup-right-left-stay-own-stays", 3, 3, 8}, {"dedup-left-stay-right", 1, 1, 10},
              {"dedup-left-stay-right-own-stays", 1, 1, 8}, {"dedup-left-right-stay", 1, 1, 12},
              {"dedup-left-right-stay-own-stays", 1, 1, 8}};
  ASSERT_EQ(std::size(want), test::forwarding_first_readings().size());
  for (const auto& w : want) {
    SCOPED_TRACE(w.variant);
    const VariantInfo& v = variant(w.variant);
    EXPECT_FALSE(v.expected_to_hold);
    for (uint64_t n = 1; n < 4; ++n) EXPECT_FALSE(test::fails(v, n)) << n;
    const Claim c = v.claim({4, 0});
    mutation::CheckArgs a;
    a.claim = &c;
    const InstanceCheck ic = mutation::check(*v.make({4, 0}), a);
    EXPECT_EQ(violated(ic), (std::set<std::string>{prop::exactly_once, prop::postcondition, prop::cost}))
        << describe(ic);
    const Counterexample& eo = *verdict(ic, prop::exactly_once).counterexample;
    EXPECT_EQ(eo.location(), "p=4 rank=0 step=1 block=0 peer=" + std::to_string(w.peer));
    EXPECT_EQ(eo.expected, "contribution of rank " + std::to_string(w.twice) + " at most once");
    const std::string blocks = std::to_string(w.blocks) + " blocks";
    EXPECT_EQ(verdict(ic, prop::cost).counterexample->actual, blocks);
    EXPECT_NE(v.known_failure.find("cost (" + blocks + " per rank"), std::string::npos) << v.known_failure;
    const std::string who =
        w.twice == 0 ? "rank 0's own contribution" : "rank " + std::to_string(w.twice) + "'s contribution";
    EXPECT_NE(v.known_failure.find("minimal p = 4"), std::string::npos) << v.known_failure;
    EXPECT_NE(v.known_failure.find(who + " again from rank " + std::to_string(w.peer) + ","), std::string::npos)
        << v.known_failure;
  }
}

// The mechanism at n = 4 for dedup-right-stay-left-own-stays: rank 3 forwards
// block 0 (remainder 1, which could stay) to rank 0 in step 0 and receives
// block 0 from rank 2 in the same step; in step 1 it forwards block 0 again,
// its own contribution included a second time.
TEST(TrivanceReadings, ForwardedBlockIsRefilledAndSentAgainAtN4) {
  auto s = variant("dedup-right-stay-left-own-stays").make({4, 0});
  RankStep rs;
  s->rank_step(3, 0, rs);
  EXPECT_TRUE(test::send_to(rs, 0).blocks.contains(0));
  bool refilled = false;
  for (const Transfer& t : rs.recvs) refilled = refilled || (t.peer == 2 && t.blocks.contains(0));
  EXPECT_TRUE(refilled);
  s->rank_step(3, 1, rs);
  EXPECT_TRUE(test::send_to(rs, 0).blocks.contains(0));
}

TEST(TrivanceReadings, ForwardingFirstFailExactlyWhereTheyDifferUpTo200) {
  // 200 - 5 powers of three - the 18 other n <= 200 of WhereForwardingFirstReadingsHaveNothingToChoose.
  EXPECT_EQ(test::expect_forwarding_first_fail_exactly_where_they_differ(200), 200u - 5 - 18);
}

TEST(TrivanceReadings, PaperBandwidthOwnStaysFailsAtN2LikePaperBandwidth) {
  for (const char* name : {"paper-bandwidth", "paper-bandwidth-own-stays"}) {
    SCOPED_TRACE(name);
    const VariantInfo& v = variant(name);
    EXPECT_FALSE(v.expected_to_hold);
    EXPECT_NE(v.known_failure.find("minimal p = 2"), std::string::npos);
    EXPECT_FALSE(test::fails(v, 1));
    const InstanceCheck ic = mutation::check(*v.make({2, 0}), {});
    EXPECT_EQ(violated(ic), (std::set<std::string>{prop::causality, prop::exactly_once, prop::postcondition}))
        << describe(ic);
    // Every n in 1..100 that is not a power of three fails.
    for (uint64_t n = 1; n <= 100; ++n) EXPECT_EQ(test::fails(v, n), !trivance::is_pow3(n)) << n;
  }
}

// Algorithm 1's listings sent only at their last listing (Swing's App. A.2
// rule carried over, in Algorithm 1's order: peer_left, then peer_right).
// Without the own block it is `bandwidth` move for move: the last listing
// keeps a block while it can stay reachable and prefers peer_right, i.e.
// stay, right, left. So the own-block rule is not vacuous in general, only
// for the stay-first orders.
TEST(TrivanceReadings, KeepLastListingWithoutTheOwnBlockIsBandwidth) {
  TrivanceRouting keep_last;
  keep_last.every_path = true;
  keep_last.keep_last_listing = true;
  keep_last.own_block_stays = true;
  for (uint64_t n = 1; n <= 729; ++n) EXPECT_EQ(trivance_moves(n, keep_last), trivance_moves(n)) << n;
  EXPECT_TRUE(variant("paper-keep-last-own-stays").expected_to_hold);
  for (uint64_t n = 1; n <= 100; ++n) EXPECT_FALSE(test::fails(variant("paper-keep-last-own-stays"), n)) << n;
}

// With the own block sent where Pi lists it, the same rule is refuted at
// n = 4: rank 0 sends block 0 to rank 1 in step 0 (its last listing, peer
// right) and gets its own contribution back from rank 1 in step 1.
TEST(TrivanceReadings, KeepLastListingWithTheOwnBlockFailsAtN4) {
  const VariantInfo& v = variant("paper-keep-last");
  EXPECT_FALSE(v.expected_to_hold);
  for (uint64_t n = 1; n < 4; ++n) EXPECT_FALSE(test::fails(v, n)) << n;
  RankStep rs;
  v.make({4, 0})->rank_step(0, 0, rs);
  EXPECT_TRUE(test::send_to(rs, 1).blocks.contains(0));
  const Claim c = v.claim({4, 0});
  mutation::CheckArgs a;
  a.claim = &c;
  const InstanceCheck ic = mutation::check(*v.make({4, 0}), a);
  EXPECT_EQ(violated(ic), (std::set<std::string>{prop::exactly_once, prop::postcondition, prop::cost})) << describe(ic);
  const Counterexample& eo = *verdict(ic, prop::exactly_once).counterexample;
  EXPECT_EQ(eo.location(), "p=4 rank=0 step=1 block=0 peer=1");
  EXPECT_EQ(eo.expected, "contribution of rank 0 at most once");
  EXPECT_EQ(verdict(ic, prop::cost).counterexample->actual, "8 blocks");
  EXPECT_NE(v.known_failure.find("minimal p = 4"), std::string::npos);
  EXPECT_NE(v.known_failure.find("cost (8 blocks per rank"), std::string::npos);
  // It fails exactly where it sends its own block.
  for (uint64_t n = 1; n <= 100; ++n) {
    TrivanceRouting how;
    how.every_path = how.keep_last_listing = true;
    EXPECT_EQ(test::fails(v, n), sends_own_block(trivance_moves(n, how))) << n;
  }
}

}  // namespace
}  // namespace collcheck
