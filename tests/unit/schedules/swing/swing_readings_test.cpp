// The readings of Swing's Listing 1 and of its de-duplication rule (Swing
// NSDI'24, Sec. 3.1.1 Listing 1, Sec. 3.2, App. A.2; schedules/swing/swing_bandwidth.hpp
// quotes them and says why each holds or fails), checked at the level of the
// generator:
//
//  * the registry's paper-listing1-printed sends exactly what a transcription
//    of Listing 1's printed code (recursive get_rs_idx on a bitmap, called as
//    get_rs_idx(r, s, p, blocks_s)) marks, and paper-listing1 what the
//    peer-index reading {dest} + get_rs_idx(dest, s+1) marks;
//  * under the later-step rule the two step sets give the same schedule, so
//    the printed call + later + never the own block is `bandwidth`;
//  * a rank lists its own block exactly when 2^k < p < 4/3 2^k, and
//    paper-later equals `bandwidth` at every other even p;
//  * the printed listing's reduce-scatter alone computes the right blocks at
//    powers of two (only its volume is wrong): its allreduce fails in the
//    mirrored allgather.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "properties/catalog.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_math.hpp"
#include "tests/support/same_schedule.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

using swing::pi;
using test::registered_variant;

// Listing 1's get_rs_idx, transcribed from the printed code (the step bound
// `log2(p)` is L; the listing is printed for p a power of two).
void get_rs_idx(Rank r, int step, uint64_t p, int L, std::vector<bool>& blocks) {
  if (step >= L) return;
  for (int s = step; s < L; ++s) {
    Rank peer = pi(r, s, p);
    blocks[peer] = true;  // "Set to 1 the node I directly reach"
    get_rs_idx(peer, s + 1, p, L, blocks);  // "and those that it will reach"
  }
}

BlockSet marked(const std::vector<bool>& blocks) {
  std::vector<Block> out;
  for (Block b = 0; b < blocks.size(); ++b)
    if (blocks[b]) out.push_back(b);
  return BlockSet::from_blocks(std::move(out));
}

std::unique_ptr<Schedule> make(const std::string& variant, uint64_t p) {
  return registered_variant("swing", variant).make(InstanceParams{p, 0});
}

// The reduce-scatter send of rank r at step s (empty if none).
BlockSet rs_sent(const Schedule& s, Rank r, int step) {
  RankStep rs;
  s.rank_step(r, step, rs);
  return rs.sends.empty() ? BlockSet{} : rs.sends.front().blocks;
}

bool same_schedule(const Schedule& a, const Schedule& b) { return !test::differ_somewhere(a, b); }

std::unique_ptr<Schedule> ring(uint64_t p, SwingSendRule rule) { return make_swing_bandwidth(p, rule); }

bool is_pow2(uint64_t p) { return swing::is_pow2(p); }
// 2^k < p < 4/3 2^k with 2^k the largest power of two below p.
bool in_own_listing_band(uint64_t p) { return !is_pow2(p) && 3 * p < 4 * std::bit_floor(p); }

TEST(SwingReadings, PrintedVariantIsTheTranscribedListing) {
  uint64_t compared = 0;
  for (uint64_t p = 2; p <= 64; p *= 2) {
    const int L = swing::ceil_log2(p);
    auto s = make("paper-listing1-printed", p);
    ASSERT_EQ(s->num_steps(), 2 * L);
    for (Rank r = 0; r < p; ++r)
      for (int step = 0; step < L; ++step) {
        std::vector<bool> blocks_s(p, false);
        get_rs_idx(r, step, p, L, blocks_s);
        RankStep rs;
        s->rank_step(r, step, rs);
        ASSERT_EQ(rs.sends.size(), 1u);
        EXPECT_EQ(rs.sends[0].peer, pi(r, step, p));  // dest = pi(r, s)
        EXPECT_EQ(rs.sends[0].blocks, marked(blocks_s)) << "p = " << p << " rank " << r << " step " << step;
        ++compared;
      }
  }
  EXPECT_EQ(compared, 2u + 8 + 24 + 64 + 160 + 384);
}

TEST(SwingReadings, PeerIndexVariantMarksDestAndWhatItReachesLater) {
  for (uint64_t p = 2; p <= 40; p += 2) {
    const int L = swing::ceil_log2(p);
    auto s = make("paper-listing1", p);
    for (Rank r = 0; r < p; ++r)
      for (int step = 0; step < L; ++step) {
        std::vector<bool> blocks(p, false);
        const Rank dest = pi(r, step, p);
        blocks[dest] = true;
        get_rs_idx(dest, step + 1, p, L, blocks);
        EXPECT_EQ(rs_sent(*s, r, step), marked(blocks)) << "p = " << p << " rank " << r << " step " << step;
      }
  }
}

// The two calls differ at every power of two from p = 4 (not only where
// de-duplication matters): the printed one also lists the later steps' blocks.
TEST(SwingReadings, PrintedAndPeerIndexCallsDifferFromP4) {
  EXPECT_TRUE(same_schedule(*make("paper-listing1-printed", 2), *make("paper-listing1", 2)));
  for (uint64_t p = 4; p <= 64; p *= 2) {
    auto printed = make("paper-listing1-printed", p), peer = make("paper-listing1", p);
    EXPECT_FALSE(same_schedule(*printed, *peer)) << "p = " << p;
    // Rank 0 at step 0: every other rank, against the p/2 blocks of pi(0, 0)'s subtree.
    EXPECT_EQ(rs_sent(*printed, 0, 0).size(), p - 1) << "p = " << p;
    EXPECT_EQ(rs_sent(*peer, 0, 0).size(), p / 2) << "p = " << p;
  }
}

// get_rs_idx(r, s) minus get_rs_idx(r, s+1) is Lit(r, s) minus the later Lit
// sets, so the later-step rule makes the two readings of the call one
// schedule, with the own block sent or not.
TEST(SwingReadings, UnderTheLaterRuleBothCallsAreOneSchedule) {
  for (uint64_t p = 2; p <= 64; p += 2) {
    for (bool skip_own : {true, false}) {
      auto printed = ring(p, {SwingStepSet::printed, SwingKeep::later, skip_own});
      auto peer = ring(p, {SwingStepSet::peer, SwingKeep::later, skip_own});
      EXPECT_TRUE(same_schedule(*printed, *peer)) << "p = " << p << " skip_own " << skip_own;
    }
    EXPECT_TRUE(same_schedule(*ring(p, {SwingStepSet::printed, SwingKeep::later, true}), *make("bandwidth", p)))
        << "p = " << p;
    EXPECT_TRUE(same_schedule(*ring(p, {SwingStepSet::peer, SwingKeep::later, false}), *make("paper-later", p)))
        << "p = " << p;
  }
}

// A rank's peer-index sets list the rank itself exactly when 2^k < p < 4/3
// 2^k (swing_bandwidth.hpp derives "only if"; this measures "if" too), and
// there paper-later sends block r; everywhere else it is `bandwidth`.
TEST(SwingReadings, OwnBlockIsListedExactlyIn2kToFourThirds2k) {
  uint64_t band = 0;
  for (uint64_t p = 2; p <= 512; p += 2) {
    const int L = swing::ceil_log2(p);
    auto listing = ring(p, {SwingStepSet::peer, SwingKeep::every, false});
    bool own = false;
    for (Rank r = 0; r < p && !own; ++r)
      for (int s = 0; s < L && !own; ++s) own = rs_sent(*listing, r, s).contains(r);
    EXPECT_EQ(own, in_own_listing_band(p)) << "p = " << p;
    band += own;
    if (p <= 64) {
      EXPECT_EQ(same_schedule(*make("paper-later", p), *make("bandwidth", p)), !own) << "p = " << p;
    }
  }
  EXPECT_EQ(band, 81u);  // even p in 10, 18..20, 34..42, 66..84, 130..170, 258..340
}

// Example of the band: p = 10, Lit(0, 0) = {0,1,2,3,5,6,7,8}; paper-later
// sends block 0 at step 0, bandwidth does not.
TEST(SwingReadings, PaperLaterSendsItsOwnBlockAtP10) {
  EXPECT_EQ(rs_sent(*ring(10, {SwingStepSet::peer, SwingKeep::every, false}), 0, 0),
            BlockSet::from_blocks({0, 1, 2, 3, 5, 6, 7, 8}));
  EXPECT_TRUE(rs_sent(*make("paper-later", 10), 0, 0).contains(0));
  EXPECT_FALSE(rs_sent(*make("bandwidth", 10), 0, 0).contains(0));
}

// The first L steps of a schedule as a reduce-scatter (block b owned by rank b).
InstanceCheck check_reduce_scatter_half(const Schedule& s) {
  MaterializedSchedule m = materialize(s);
  m.steps.resize(static_cast<size_t>(m.num_steps() / 2));
  m.spec.kind = Collective::reduce_scatter;
  MaterializedView view(std::move(m));
  return check_schedule(view, nullptr, {}, {});
}

std::set<std::string> violated(const InstanceCheck& ic) {
  std::set<std::string> out;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) out.insert(v.property);
  return out;
}

// At a power of two the printed call's extra copies are stranded (the
// receiver's later steps never reach the block: Theorem A.5), so its
// reduce-scatter leaves every owner with exactly all contributions; it only
// sends more than p-1 blocks. At p = 6 the reduce-scatter itself double counts,
// into the owners' results.
TEST(SwingReadings, PrintedReduceScatterIsRightAtPowersOfTwoButSendsMore) {
  for (uint64_t p = 4; p <= 64; p *= 2) {
    auto s = make("paper-listing1-printed", p);
    InstanceCheck ic = check_reduce_scatter_half(*s);
    EXPECT_TRUE(violated(ic).empty()) << "p = " << p;
    uint64_t sent = 0;
    for (int step = 0; step < s->num_steps() / 2; ++step) sent += rs_sent(*s, 0, step).size();
    EXPECT_GT(sent, p - 1) << "p = " << p;
  }
  EXPECT_EQ(rs_sent(*make("paper-listing1-printed", 4), 0, 0), BlockSet::from_blocks({1, 2, 3}));
  EXPECT_EQ(rs_sent(*make("paper-listing1-printed", 4), 0, 1), BlockSet::from_blocks({3}));
  InstanceCheck six = check_reduce_scatter_half(*ring(6, {SwingStepSet::printed, SwingKeep::every, false}));
  EXPECT_EQ(violated(six), (std::set<std::string>{prop::exactly_once, prop::postcondition}));
  // The check is not vacuous: the default's reduce-scatter half holds with
  // p-1 blocks per rank.
  auto bw = make("bandwidth", 16);
  EXPECT_TRUE(violated(check_reduce_scatter_half(*bw)).empty());
  uint64_t sent = 0;
  for (int step = 0; step < 4; ++step) sent += rs_sent(*bw, 0, step).size();
  EXPECT_EQ(sent, 15u);
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// The generator's two paths to a rank's reduce-scatter sets: all steps at
// once (compute_rs_sends: the cache and the de-duplicating rules' lazy path)
// and one step by the rule as worded (compute_rs_send), for every rule,
// every ring size to 130 (and one above the cache's 4096), every rank and
// step. A rule that keeps a block at a wrong step, or drops or keeps the own
// block wrongly, differs here.
TEST(SwingReadings, AllStepsAtOnceEqualOneStepAtATime) {
  std::vector<SwingSendRule> rules;
  for (SwingStepSet sets : {SwingStepSet::peer, SwingStepSet::printed})
    for (SwingKeep keep : {SwingKeep::every, SwingKeep::earlier, SwingKeep::later, SwingKeep::last_step})
      for (bool skip_own : {false, true}) rules.push_back({sets, keep, skip_own});
  uint64_t compared = 0, nonempty = 0;
  for (const SwingSendRule& rule : rules)
    for (uint64_t m : std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 22, 24, 40, 64, 96, 100, 128, 130,
                                            4098}) {
      const CollectiveSpec spec{Collective::allreduce, m, static_cast<uint32_t>(m), 0};
      const SwingBandwidthRing ring(spec, m, rule);
      const uint64_t ranks = m > 4096 ? 3 : m;  // above the cache: ranks 0, 1, 2
      for (Rank r = 0; r < ranks; ++r) {
        const std::vector<BlockSet> all = ring.compute_rs_sends(r);
        ASSERT_EQ(all.size(), static_cast<size_t>(ring.swing_steps()));
        for (int s = 0; s < ring.swing_steps(); ++s) {
          const BlockSet one = ring.compute_rs_send(r, s);
          ASSERT_EQ(all[static_cast<size_t>(s)], one) << "m=" << m << " r=" << r << " s=" << s << " keep="
                                                       << static_cast<int>(rule.keep) << " skip_own=" << rule.skip_own;
          ASSERT_EQ(ring.rs_send(r, s), one);  // the generator's own path (cached or not)
          ++compared;
          nonempty += !one.empty();
        }
      }
    }
  EXPECT_GT(compared, 10000u);
  EXPECT_GT(nonempty, compared / 2);
}

}  // namespace
}  // namespace collcheck
