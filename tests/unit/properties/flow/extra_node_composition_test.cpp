// The extra-node composition (properties/flow/extra_node_composition.hpp):
//   * Swing's own odd-p scheme (paper-odd and paper-odd-later) is decided by
//     it wherever the extra rank serves every ring rank (p - 1 not a power
//     of two), with enumeration's verdicts, checks and counterexamples
//     (every odd p <= 259): where enumeration finds nothing wrong but the
//     extra rank's ports, and where paper-odd-later's ring lists a rank's
//     own block (p = 11, 19, 21, 35..43, ...: the core's double counts,
//     followed to the extra rank's contribution); declined at the coverage
//     gap (p - 1 a power of two), as the cost model predicts (grouped_takes);
//   * its construction obligation holds: at every ring rank and step of
//     both variants up to p = 131, the rank lists the ring's transfers (the
//     direct per-rank generator's; the schedule maps rank 0's by the group)
//     and then exactly the mirror of the extra rank's exchange with it
//     (checked directly only at ring ranks 0 and p-2);
//   * a broken wrapper (the extra rank skips a ring rank, serves one twice,
//     sends the wrong block, or ring rank 0 forgets its side) is declined and
//     refuted by enumeration at its minimal p;
//   * a core that does not hold is never composed.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <memory>
#include <optional>

#include "properties/plan/decision_plan.hpp"
#include "properties/family_property.hpp"
#include "properties/flow/extra_node_composition.hpp"
#include "properties/swing/swing_rank_zero_masks.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_odd_extra_node.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

constexpr const char* kMethod = "composition: the extra rank p-1 beside the ring of p-1 ranks";

bool composed(const InstanceCheck& c) {
  return c.stats.count("method") && c.stats.at("method").rfind(kMethod, 0) == 0;
}

InstanceCheck check(const VariantInfo& v, uint64_t p, bool symmetry) {
  CheckOptions o;
  o.use_symmetry = symmetry;
  return test::check_variant(v, p, o);
}

// The ring of m ranks under `rule` as the composition takes it: the
// equivariant schedule and its rank-0 masks.
struct RingCore {
  std::unique_ptr<Schedule> owner;
  const EquivariantSchedule* eq = nullptr;
  std::optional<flow::MaskSchedule> masks;
};
RingCore ring_core(uint64_t m, SwingSendRule rule = {}) {
  RingCore c;
  c.owner = swing_equivariant(make_swing_bandwidth(m, rule), BlockAction::as_ranks);
  c.eq = dynamic_cast<const EquivariantSchedule*>(c.owner.get());
  if (c.eq) c.masks = swing::swing_mask_schedule(*c.eq);
  return c;
}

// Whether the composition decides `whole` over `core`, and why not.
bool composes(const Schedule& whole, const RingCore& core, std::string* why) {
  EXPECT_TRUE(core.eq && core.masks);
  return core.eq && core.masks && flow::run_extra_node_composition(whole, *core.eq, *core.masks, StepHook{}, why);
}

TEST(ExtraNodeComposition, DecidesSwingsOddSchemeWithEnumerationsVerdicts) {
  for (const char* name : {"paper-odd", "paper-odd-later"}) {
    const VariantInfo& v = test::registered_variant("swing", name);
    int by_composition = 0, declined = 0, own_block = 0;
    for (uint64_t p = 3; p <= 259; p += 2) {
      const std::string what = std::string(name) + " p=" + std::to_string(p);
      const InstanceCheck c = check(v, p, true), e = check(v, p, false);
      EXPECT_FALSE(e.stats.count("method")) << what;
      // Every ring rank served: composed, whatever the core does with its
      // own block; the coverage gap: declined.
      const bool served = !std::has_single_bit(p - 1);
      EXPECT_EQ(composed(c), served) << what << ": " << (c.stats.count("grouped_declined")
                                                             ? c.stats.at("grouped_declined")
                                                             : std::string("(no reason)"));
      bool only_ports = true;
      for (const Verdict& x : e.verdicts)
        if (x.status == Status::violated && x.property != "ports") only_ports = false;
      if (composed(c) && !only_ports) ++own_block;
      // The plan's prediction (the estimate's: ScheduleShape::extra_serves_every_core_rank) is what happens.
      EXPECT_EQ(planned_method(*v.make(InstanceParams{p, 0}), CheckOptions{}).method == MethodId::extra_rank, composed(c))
          << what;
      if (composed(c)) {
        ++by_composition;
        test::expect_same_verdicts(c, e, what);
        EXPECT_EQ(c.stats.at("max_volume_blocks"), e.stats.at("max_volume_blocks")) << what;
      } else {
        ++declined;
        test::expect_same_verdicts(c, e, what);  // enumerated either way
      }
    }
    // Declined only where p - 1 is a power of two (p = 3, 5, 9, 17, 33, 65,
    // 129, 257); paper-odd-later's ring lists a rank's own block at the odd
    // p with 2^k < p - 1 < 4/3 2^k (p = 11, 19, 21, 35..43, 67..85,
    // 131..171 and 259: 40 of them), refuted by the composition.
    EXPECT_EQ(declined, 8) << name;
    EXPECT_EQ(by_composition, 121) << name;
    EXPECT_EQ(own_block, std::string(name) == "paper-odd" ? 0 : 40) << name;
  }
}

TEST(ExtraNodeComposition, RingRanksListTheCoresStepThenTheMirrorOfTheExtraRanks) {
  for (bool own_block_sent : {false, true})
    for (uint64_t p = 3; p <= 131; p += 2) {
      SwingSendRule rule;
      if (own_block_sent) rule.skip_own = false;
      const SwingOddExtraNode whole(p, rule);
      // The direct generator (the schedule builds its ring steps through the group).
      const auto core = make_swing_bandwidth(p - 1, rule);
      const auto extra = static_cast<Rank>(p - 1);
      RankStep w, c, e;
      for (int s = 0; s < whole.num_steps(); ++s) {
        whole.rank_step(extra, s, e);
        for (Rank j = 0; j < extra; ++j) {
          whole.rank_step(j, s, w);
          core->rank_step(j, s, c);
          // The extra rank's exchange with j, mirrored.
          for (size_t k = 0; k < e.sends.size(); ++k)
            if (e.sends[k].peer == j) {
              c.sends.push_back({extra, e.recvs[k].blocks, e.recvs[k].combine});
              c.recvs.push_back({extra, e.sends[k].blocks, e.sends[k].combine});
            }
          ASSERT_EQ(w, c) << "p=" << p << " rank " << j << " step " << s << " own_block_sent=" << own_block_sent;
        }
      }
    }
}

// Swing's odd scheme at p with one defect in the wrapper.
class BrokenExtraNode final : public Schedule {
 public:
  enum class Defect {
    skips_a_rank,
    serves_twice,
    wrong_block,
    rank0_forgets,
    // Well-formed wrappers that move rank 0's exchange (both sides): the
    // composition must decide them as enumeration does, or decline.
    rank0_served_last,   // reduce-scatter: at its last step instead of step 0
    rank0_copied_first,  // allgather: at its first step instead of its last
  };
  BrokenExtraNode(uint64_t p, Defect d, SwingSendRule rule = {}) : odd_(p, rule), defect_(d) {}
  const CollectiveSpec& spec() const override { return odd_.spec(); }
  int num_steps() const override { return odd_.num_steps(); }
  int ports() const override { return odd_.ports(); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    odd_.rank_step(r, s, out);
    const auto extra = static_cast<Rank>(p() - 1);
    const Rank last = extra - 1;  // served last in the reduce-scatter
    const int L = odd_.num_steps() / 2;
    switch (defect_) {
      case Defect::skips_a_rank:  // both sides drop the reduce-scatter's exchange with the last ring rank
        if (s < L && (r == extra || r == last)) {
          std::erase_if(out.sends, [&](const Transfer& t) { return t.peer == (r == extra ? last : extra); });
          std::erase_if(out.recvs, [&](const Transfer& t) { return t.peer == (r == extra ? last : extra); });
        }
        break;
      case Defect::serves_twice:  // ... exchange with rank 0 again at step 1
        if (s == 1 && r == extra) {
          out.sends.push_back({0, BlockSet::single(0), Combine::reduce});
          out.recvs.push_back({0, BlockSet::single(extra), Combine::reduce});
        }
        if (s == 1 && r == 0) {
          out.sends.push_back({extra, BlockSet::single(extra), Combine::reduce});
          out.recvs.push_back({extra, BlockSet::single(0), Combine::reduce});
        }
        break;
      case Defect::wrong_block:  // the extra rank sends rank 0 block 1 instead of block 0, and rank 0 takes it
        if (s == 0 && (r == extra || r == 0)) {
          auto& list = r == extra ? out.sends : out.recvs;
          for (Transfer& t : list)
            if (t.peer == (r == extra ? Rank{0} : extra)) t.blocks = BlockSet::single(1);
        }
        break;
      case Defect::rank0_forgets:  // rank 0 lists no exchange with the extra rank in the reduce-scatter
        if (s < L && r == 0) {
          std::erase_if(out.sends, [&](const Transfer& t) { return t.peer == extra; });
          std::erase_if(out.recvs, [&](const Transfer& t) { return t.peer == extra; });
        }
        break;
      case Defect::rank0_served_last:
        move_exchange(r, s, 0, L - 1, out);
        break;
      case Defect::rank0_copied_first:
        move_exchange(r, s, odd_.num_steps() - 1, L, out);
        break;
    }
  }

 private:
  // Rank 0's exchange with the extra rank (both sides' transfers with each
  // other) taken out of step `from` and listed in step `to` instead.
  void move_exchange(Rank r, int s, int from, int to, RankStep& out) const {
    const auto extra = static_cast<Rank>(p() - 1);
    if (r != 0 && r != extra) return;
    const Rank other = r == 0 ? extra : 0;
    auto with_other = [&](const Transfer& t) { return t.peer == other && (r == 0 || t.blocks.contains(0) ||
                                                                          t.blocks.contains(extra)); };
    if (s == from) {
      std::erase_if(out.sends, with_other);
      std::erase_if(out.recvs, with_other);
    }
    if (s == to) {
      RankStep at;
      odd_.rank_step(r, from, at);
      for (const Transfer& t : at.sends)
        if (with_other(t)) out.sends.push_back(t);
      for (const Transfer& t : at.recvs)
        if (with_other(t)) out.recvs.push_back(t);
    }
  }

 private:
  SwingOddExtraNode odd_;
  Defect defect_;
};

TEST(ExtraNodeComposition, ABrokenWrapperIsDeclinedAndRefutedAtItsMinimalP) {
  using D = BrokenExtraNode::Defect;
  const struct {
    D defect;
    const char* reason;
  } cases[] = {
      {D::skips_a_rank, "never exchanges with the extra rank in the reduce-scatter"},
      {D::serves_twice, "exchanges with rank 0 at steps 0 and 1"},
      {D::wrong_block, "is not one block each way"},
      {D::rank0_forgets, "ring rank 0's step 0 is not the core's plus its exchange"},
  };
  for (const auto& k : cases) {
    // p = 7 is the smallest odd p the correct scheme composes at (3 and 5
    // leave a ring rank unserved).
    const uint64_t p = 7;
    const BrokenExtraNode w(p, k.defect);
    const RingCore core = ring_core(p - 1);
    std::string why;
    EXPECT_FALSE(composes(w, core, &why)) << static_cast<int>(k.defect);
    EXPECT_NE(why.find(k.reason), std::string::npos) << why;
    // The real scheme composes; the mutant, enumerated, is refuted beyond ports.
    EXPECT_TRUE(composes(SwingOddExtraNode(p), core, &why)) << why;
    const InstanceCheck e = test::check_exact(w, nullptr, StepHook{}, true);
    bool beyond_ports = false;
    for (const Verdict& x : e.verdicts) beyond_ports |= x.status == Status::violated && x.property != "ports";
    EXPECT_TRUE(beyond_ports) << static_cast<int>(k.defect);
  }
}

TEST(ExtraNodeComposition, ACoreThatCountsTwiceIsComposedOnlyWhereItListsItsOwnBlock) {
  // paper-later's ring at p - 1 = 10 sends rank 0's own block and counts
  // contributions twice: composed, the extra rank's contribution followed
  // (the verdicts are enumeration's: the test above).
  const SwingSendRule later{SwingStepSet::peer, SwingKeep::later, false};
  std::string why;
  EXPECT_TRUE(composes(SwingOddExtraNode(11, later), ring_core(10, later), &why)) << why;
  // Listing 1 without de-duplication at p - 1 = 6 counts a contribution
  // twice in the core without listing a rank's own block: declined.
  const SwingSendRule every{SwingStepSet::peer, SwingKeep::every, true};
  EXPECT_FALSE(composes(SwingOddExtraNode(7, every), ring_core(6, every), &why));
  EXPECT_NE(why.find("the core of 6 ranks does not satisfy exactly-once"), std::string::npos) << why;
}

// Where the core lists its own block (paper-later's rule, 2^k < p-1 <
// 4/3 2^k): a broken wrapper is declined as elsewhere, and a well-formed
// one that serves rank 0 at other steps is decided with enumeration's
// verdicts, or declined (then enumerated). Serving rank 0 last in the
// reduce-scatter lets its block leave before the extra contribution
// arrives; copying rank 0's block first in the allgather gives the extra
// rank a value that is not final yet.
TEST(ExtraNodeComposition, WrappersAroundACoreThatListsItsOwnBlock) {
  using D = BrokenExtraNode::Defect;
  const SwingSendRule later{SwingStepSet::peer, SwingKeep::later, false};
  int decided = 0, followed_declines = 0;
  for (uint64_t p : {11, 19, 21, 35, 43, 67}) {
    const RingCore core = ring_core(p - 1, later);
    std::string why;
    for (D d : {D::skips_a_rank, D::serves_twice, D::wrong_block, D::rank0_forgets})
      EXPECT_FALSE(composes(BrokenExtraNode(p, d, later), core, &why)) << p << " defect " << static_cast<int>(d);
    for (D d : {D::rank0_served_last, D::rank0_copied_first}) {
      const BrokenExtraNode w(p, d, later);
      const std::string what = "p=" + std::to_string(p) + " defect " + std::to_string(static_cast<int>(d));
      why.clear();
      const auto c = flow::run_extra_node_composition(w, *core.eq, *core.masks, StepHook{}, &why);
      if (!c) {
        // Declined by the new glue, never by the wrapper's well-formedness.
        EXPECT_NE(why.find("extra rank's contribution"), std::string::npos) << what << ": " << why;
        ++followed_declines;
        continue;
      }
      ++decided;
      const InstanceCheck e = test::check_exact(w, nullptr, StepHook{}, false);
      for (int k : {flow::kMatching, flow::kPorts, flow::kCausality, flow::kExactlyOnce, flow::kPostcondition})
        test::expect_same_verdict(c->result.verdicts[static_cast<size_t>(k)], e.verdicts[static_cast<size_t>(k)],
                                  what + " " + e.verdicts[static_cast<size_t>(k)].property);
    }
  }
  EXPECT_GT(decided, 0);
  std::printf("own-block wrappers: %d decided with enumeration's verdicts, %d declined\n", decided, followed_declines);
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// The glue that follows the extra rank's contribution, on paper-later's
// ring of 10 (its rank 0 sends its own block) with the exchanges and the
// core's snapshots of rank 0's block 0 made up: each of its checks fails
// where it should, and the extra rank's cells are judged from the snapshots.
struct MadeUpCore {
  static constexpr int T = 8, L = 4;
  RingCore core = ring_core(10, {SwingStepSet::peer, SwingKeep::later, false});
  std::vector<RankStep> rep = std::vector<RankStep>(T);
  std::vector<int> rs = std::vector<int>(10, 0), ag = std::vector<int>(10, T - 1);
  flow::GroupQuotientResult q;
  MadeUpCore() {
    for (int t = 0; t < T; ++t) core.eq->representative_step(t, rep[static_cast<size_t>(t)]);
    q.block0.assign(T + 1, {0x3FF, 0});  // every snapshot: all 10 contributions, once
  }
  std::optional<flow::detail::OwnBlockFlow> follow(std::string* why) const {
    return flow::detail::follow_extra_contribution(*core.eq, rep, rs, ag, L, q, why);
  }
};

TEST(ExtraNodeComposition, FollowingTheExtraContributionChecksEveryCell) {
  std::string why;
  {  // the core's own moves: every final cell holds it, the extra rank's copies are right
    MadeUpCore c;
    ASSERT_EQ(c.core.eq->num_steps(), MadeUpCore::T);
    const auto f = c.follow(&why);
    ASSERT_TRUE(f.has_value()) << why;
    EXPECT_EQ(f->extra_wrong, 0u);
  }
  {  // nothing moves block 0: no other ring rank's final cell gets it
    MadeUpCore c;
    for (RankStep& r : c.rep) r.clear();
    EXPECT_FALSE(c.follow(&why).has_value());
    EXPECT_NE(why.find("missing from a final ring cell"), std::string::npos) << why;
  }
  {  // it enters in the last reduce-scatter step, so only rank 0 holds it
     // then; a copy into rank 0's block 0 from its peer in the next step drops it
    MadeUpCore c;
    std::fill(c.rs.begin(), c.rs.end(), MadeUpCore::L - 1);
    RankStep& first_copy = c.rep[MadeUpCore::L];
    ASSERT_FALSE(first_copy.recvs.empty());
    first_copy.add_recv(first_copy.recvs[0].peer, Combine::copy).blocks = BlockSet::single(0);
    EXPECT_FALSE(c.follow(&why).has_value());
    EXPECT_NE(why.find("drops the extra rank's contribution"), std::string::npos) << why;
  }
  {  // rank 0 receives block 0 twice in one step: which value a rank ends
     // with would depend on the order of its receives
    MadeUpCore c;
    RankStep& first = c.rep[0];
    ASSERT_FALSE(first.recvs.empty());
    const Transfer again = first.recvs[0];  // a copy: add_recv may move the list
    first.add_recv(again.peer + 1, Combine::reduce).blocks = again.blocks;
    EXPECT_FALSE(c.follow(&why).has_value());
    EXPECT_NE(why.find("receives one block twice at step 0"), std::string::npos) << why;
  }
  {  // rank 0's block 0 counted twice before the last step, except that the
     // extra rank copies rank 3's block one step earlier, where it lacks
     // contribution 9: every extra cell of a ring block is wrong, the first
     // at block 0 (rank 0's cell, g_0 the identity), with the extra rank's
     // contribution and the flag
    MadeUpCore c;
    c.ag[3] = MadeUpCore::T - 2;
    c.q.block0[MadeUpCore::T - 1] = {0x3FF, 1};
    c.q.block0[MadeUpCore::T - 2] = {0x1FF, 0};
    auto f = c.follow(&why);
    ASSERT_TRUE(f.has_value()) << why;
    EXPECT_EQ(f->extra_wrong, 10u);
    EXPECT_EQ(f->first_wrong, 0u);
    ASSERT_EQ(f->first_value.size(), 2u);
    EXPECT_EQ(f->first_value[0], 0x3FFu | (uint64_t{1} << 10));  // all ten, and the extra rank's
    EXPECT_EQ(f->first_value[1], 1u);                            // counted twice
    // Rank 0's block right at the last step: only block 3's copy is wrong.
    c.q.block0[MadeUpCore::T - 1] = {0x3FF, 0};
    f = c.follow(&why);
    ASSERT_TRUE(f.has_value()) << why;
    EXPECT_EQ(f->extra_wrong, 1u);
    EXPECT_EQ(f->first_wrong, 3u);
    ASSERT_EQ(f->first_value.size(), 2u);
    EXPECT_EQ(std::popcount(f->first_value[0]), 10);  // nine of rank 0's, moved by g_3, and the extra rank's
    EXPECT_TRUE((f->first_value[0] >> 10) & 1);
    EXPECT_EQ(f->first_value[1], 0u);
  }
}

}  // namespace
}  // namespace collcheck
