// The extra-node composition (properties/flow/extra_node_composition.hpp):
//   * Swing's own odd-p scheme (paper-odd and paper-odd-later) is decided by
//     it exactly where enumeration finds nothing wrong but the extra rank's
//     ports, with enumeration's verdicts, checks and counterexamples (every
//     odd p <= 259), and declined everywhere else (the coverage gap when
//     p - 1 is a power of two, paper-odd-later's own block sent), as the
//     cost model predicts (grouped_takes);
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

#include <memory>
#include <optional>

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
    int by_composition = 0, declined = 0;
    for (uint64_t p = 3; p <= 259; p += 2) {
      const std::string what = std::string(name) + " p=" + std::to_string(p);
      const InstanceCheck c = check(v, p, true), e = check(v, p, false);
      EXPECT_FALSE(e.stats.count("method")) << what;
      // Enumeration finds nothing wrong but ports (at the extra rank):
      // exactly the instances the composition decides.
      bool only_ports = true;
      for (const Verdict& x : e.verdicts)
        if (x.status == Status::violated && x.property != "ports") only_ports = false;
      EXPECT_EQ(composed(c), only_ports) << what << ": " << (c.stats.count("grouped_declined")
                                                                 ? c.stats.at("grouped_declined")
                                                                 : std::string("(no reason)"));
      // The cost model's prediction (swing_odd_composition_expected) is what happens.
      EXPECT_EQ(grouped_takes(*v.make(InstanceParams{p, 0}), CheckOptions{}), composed(c)) << what;
      if (composed(c)) {
        ++by_composition;
        test::expect_same_verdicts(c, e, what);
        EXPECT_EQ(c.stats.at("max_volume_blocks"), e.stats.at("max_volume_blocks")) << what;
      } else {
        ++declined;
        test::expect_same_verdicts(c, e, what);  // enumerated either way
      }
    }
    // paper-odd: declined only where p - 1 is a power of two (p = 3, 5, 9,
    // 17, 33, 65, 129, 257); paper-odd-later also where a ring rank lists
    // its own block.
    EXPECT_GE(declined, 8) << name;
    EXPECT_GT(by_composition, 80) << name;
    if (std::string(name) == "paper-odd") {
      EXPECT_EQ(declined, 8);
    }
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
  enum class Defect { skips_a_rank, serves_twice, wrong_block, rank0_forgets };
  BrokenExtraNode(uint64_t p, Defect d) : odd_(p), defect_(d) {}
  const CollectiveSpec& spec() const override { return odd_.spec(); }
  int num_steps() const override { return odd_.num_steps(); }
  int ports() const override { return odd_.ports(); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    odd_.rank_step(r, s, out);
    const auto extra = static_cast<Rank>(p() - 1);
    const Rank last = extra - 1;  // served at the last reduce-scatter step
    const int L = odd_.num_steps() / 2;
    switch (defect_) {
      case Defect::skips_a_rank:  // both sides drop the exchange with the last ring rank
        if (s == L - 1 && (r == extra || r == last)) {
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

TEST(ExtraNodeComposition, ACoreThatDoesNotHoldIsNeverComposed) {
  // paper-later's ring at p - 1 = 10 sends rank 0's own block: declined
  // (the extra rank's contribution would travel with it).
  const SwingSendRule later{SwingStepSet::peer, SwingKeep::later, false};
  std::string why;
  EXPECT_FALSE(composes(SwingOddExtraNode(11, later), ring_core(10, later), &why));
  EXPECT_NE(why.find("its own block 0"), std::string::npos) << why;
  // Listing 1 without de-duplication at p - 1 = 6 counts a contribution
  // twice in the core (it never lists a rank's own block there).
  const SwingSendRule every{SwingStepSet::peer, SwingKeep::every, true};
  EXPECT_FALSE(composes(SwingOddExtraNode(7, every), ring_core(6, every), &why));
  EXPECT_NE(why.find("the core of 6 ranks does not satisfy exactly-once"), std::string::npos) << why;
}

}  // namespace
}  // namespace collcheck
