// The fold composition (properties/flow/fold_composition.hpp):
//   * Swing's default at odd p is decided by it, with the verdicts and
//     checks of enumeration (every odd p <= 201);
//   * its construction obligations hold: at every rank and step of every
//     fold in the registry up to p = 130 (Swing's, recursive doubling's, and
//     Trivance's and Bruck's onto 3^t with up to two extra ranks per core
//     rank), only core rank i and its extra ranks x (x mod p' = i) act at
//     the fold steps, each pair exchanging the whole vector (the wrapper's
//     rule, checked directly only at the first and last core rank of each
//     class), and ranks >= p' are idle in the core's steps;
//   * Swing's latency variant at non-powers of two (up to p/2 extra ranks)
//     is decided by it too, with enumeration's verdicts (every p <= 130);
//   * a broken wrapper (the extra rank skips a block, or sends its vector
//     to two core ranks) is declined by the composition and refuted by
//     enumeration at its minimal p;
//   * Trivance's and Bruck's latency folds onto 3^t (up to two extra ranks
//     per core rank, the core by the certified quotient) are decided by it,
//     with enumeration's verdicts (every p <= 130), and a second extra rank
//     that never sends its vector in is declined and refuted;
//   * a core that does not hold is never composed.
#include <gtest/gtest.h>

#include <memory>

#include "properties/family_property.hpp"
#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/fold_composition.hpp"
#include "properties/swing/swing_rank_zero_masks.hpp"
#include "schedules/fold.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

InstanceCheck check(const VariantInfo& v, uint64_t p, bool symmetry) {
  CheckOptions o;
  o.use_symmetry = symmetry;
  return test::check_variant(v, p, o);
}

TEST(FoldComposition, DecidesSwingsOddPWithEnumerationsVerdicts) {
  const VariantInfo& v = test::registered_variant("swing", "bandwidth");
  for (uint64_t p = 3; p <= 201; p += 2) {
    const InstanceCheck composed = check(v, p, true), enumerated = check(v, p, false);
    ASSERT_TRUE(composed.stats.count("method")) << p;
    EXPECT_EQ(composed.stats.at("method").rfind("composition: fold of rank p-1 onto the core of p-1 ranks", 0), 0u)
        << p << " " << composed.stats.at("method");
    EXPECT_FALSE(enumerated.stats.count("method")) << p;
    test::expect_same_verdicts(composed, enumerated, "p=" + std::to_string(p));
    for (const Verdict& x : composed.verdicts) EXPECT_EQ(x.status, Status::holds) << p << " " << x.property;
  }
}

TEST(FoldComposition, DecidesSwingLatencysFoldsWithEnumerationsVerdicts) {
  const VariantInfo& v = test::registered_variant("swing", "latency");
  for (uint64_t p = 2; p <= 130; ++p) {
    const InstanceCheck composed = check(v, p, true), enumerated = check(v, p, false);
    ASSERT_TRUE(composed.stats.count("method")) << p;
    const std::string& method = composed.stats.at("method");
    const bool pow2 = (p & (p - 1)) == 0;
    EXPECT_EQ(method.rfind(pow2 ? "quotient: " : "composition: ", 0), 0u) << p << " " << method;
    EXPECT_NE(method.find("groups of blocks"), std::string::npos) << p << " " << method;
    test::expect_same_verdicts(composed, enumerated, "latency p=" + std::to_string(p));
  }
}

TEST(FoldComposition, TheFoldsIdleRanksAreIdle) {
  RankStep rs;
  int folds = 0, two_per_core = 0;
  for (const char* name : {"swing", "recursive-doubling", "trivance", "bruck-allreduce"})
    for (const VariantInfo& v : test::registered_algorithm(name).variants)
      for (uint64_t p = 3; p <= 130; ++p) {
        InstanceParams ip{p, 0};
        if (v.violates(ip) || v.takes("dims")) continue;
        auto s = v.make(ip);
        const auto* f = dynamic_cast<const FoldedSchedule*>(s.get());
        if (!f) continue;
        ++folds;
        const uint64_t pp = f->inner().p(), extra = p - pp;
        two_per_core += extra > pp;
        const int last = f->num_steps() - 1;
        const uint64_t nb = f->num_blocks();
        auto whole = [&](const Transfer& t, Rank peer, Combine c) {
          return t.peer == peer && t.combine == c && t.blocks == BlockSet::range(0, nb);
        };
        for (int st = 0; st <= last; ++st)
          for (Rank r = 0; r < p; ++r) {
            f->rank_step(r, st, rs);
            const bool fold_step = st == 0 || st == last;
            const bool may_act = fold_step ? (r < extra || r >= pp) : r < pp;
            const std::string what = std::string(name) + "/" + v.name + " p=" + std::to_string(p) + " rank " +
                                     std::to_string(r) + " step " + std::to_string(st);
            if (!may_act) {
              ASSERT_TRUE(rs.empty()) << what;
            } else if (fold_step) {
              // The wrapper's rule: core rank i and each extra rank x with
              // x mod p' = i exchange the whole vector (step 0: the extra
              // rank sends, reduce; last: the core rank sends, copy).
              const Combine c = st == 0 ? Combine::reduce : Combine::copy;
              const bool core = r < pp;
              std::vector<Rank> partners;
              if (core)
                for (uint64_t x = r + pp; x < p; x += pp) partners.push_back(static_cast<Rank>(x));
              else
                partners.push_back(static_cast<Rank>(r % pp));
              const bool sends = (st == 0) != core;
              const auto& mine = sends ? rs.sends : rs.recvs;
              ASSERT_EQ(mine.size(), partners.size()) << what;
              for (size_t k = 0; k < partners.size(); ++k) ASSERT_TRUE(whole(mine[k], partners[k], c)) << what;
              ASSERT_TRUE((sends ? rs.recvs : rs.sends).empty()) << what;
            }
          }
      }
  EXPECT_GT(folds, 500);
  EXPECT_GT(two_per_core, 50);  // Trivance's and Bruck's folds onto 3^t
}

TEST(FoldComposition, DecidesTheFoldsOnto3tWithEnumerationsVerdicts) {
  for (const char* name : {"bruck-allreduce", "trivance"}) {
    const VariantInfo& v = test::registered_variant(name, "latency");
    int composed_two = 0;
    for (uint64_t p = 2; p <= 130; ++p) {
      const InstanceCheck composed = check(v, p, true), enumerated = check(v, p, false);
      const std::string what = std::string(name) + " p=" + std::to_string(p);
      ASSERT_TRUE(composed.stats.count("method")) << what << ": " << test::declined(composed);
      const std::string& method = composed.stats.at("method");
      uint64_t m = 1;
      while (m * 3 <= p) m *= 3;
      if (m == p) {
        EXPECT_EQ(method.rfind("quotient: translations", 0), 0u) << what << " " << method;
      } else {
        EXPECT_EQ(method.rfind("composition: fold of ", 0), 0u) << what << " " << method;
        composed_two += p - m > m;
      }
      test::expect_same_verdicts(composed, enumerated, what);
      for (const Verdict& x : composed.verdicts) EXPECT_EQ(x.status, Status::holds) << what << " " << x.property;
    }
    EXPECT_GT(composed_two, 30) << name;  // two extra ranks on a core rank
  }
}

// A fold onto 3 ranks with two extra ranks on rank 0, whose second extra
// rank (6) never sends its vector in (rank 0 does not expect it): its
// contribution is lost, though rank 6 still gets a result back.
class SilentSecondExtra final : public Schedule {
 public:
  SilentSecondExtra() : fold_(7, make_ring_of_3(), 2) {}
  const CollectiveSpec& spec() const override { return fold_.spec(); }
  int num_steps() const override { return fold_.num_steps(); }
  int ports() const override { return fold_.ports(); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    fold_.rank_step(r, s, out);
    if (s != 0) return;
    if (r == 6) out.sends.clear();
    if (r == 0) out.recvs.pop_back();  // no longer from 6
  }
  const FoldedSchedule& fold() const { return fold_; }

 private:
  static std::unique_ptr<Schedule> make_ring_of_3() {
    return test::registered_variant("bruck-allreduce", "latency").make(InstanceParams{3, 0});
  }
  FoldedSchedule fold_;
};

TEST(FoldComposition, ASilentSecondExtraRankIsDeclinedAndRefuted) {
  SilentSecondExtra w;
  const auto* core = dynamic_cast<const EquivariantSchedule*>(&w.fold().inner());
  ASSERT_NE(core, nullptr);
  std::string why;
  auto by_quotient = [&](const StepHook& h, std::string* y) -> std::optional<flow::FoldCore> {
    auto q = flow::run_quotient(*core, h, y, flow::QuotientCells::bits, 0, true);
    if (!q) return std::nullopt;
    const bool superset = q->every_copy_superset;
    return flow::FoldCore{std::move(*q), 0, superset, "the certified quotient"};
  };
  EXPECT_FALSE(flow::run_fold_composition(w, w.fold().inner(), by_quotient, StepHook{}, &why));
  EXPECT_NE(why.find("rank 0 at fold step 0"), std::string::npos) << why;
  // The real fold composes.
  EXPECT_TRUE(flow::run_fold_composition(w.fold(), w.fold().inner(), by_quotient, StepHook{}, &why)) << why;
  EXPECT_EQ(combined_status(test::check_exact(w, nullptr, StepHook{}, true).verdicts), Status::violated);
}

// The default's fold with one rank-step changed.
class BrokenWrapper final : public Schedule {
 public:
  enum class Defect { skips_a_block, sends_twice };
  BrokenWrapper(uint64_t p, Defect d)
      : fold_(p, swing_equivariant(make_swing_bandwidth(p - 1), BlockAction::as_ranks)), defect_(d) {}
  const CollectiveSpec& spec() const override { return fold_.spec(); }
  int num_steps() const override { return fold_.num_steps(); }
  int ports() const override { return fold_.ports(); }
  void rank_step(Rank r, int s, RankStep& out) const override {
    fold_.rank_step(r, s, out);
    const Rank extra = static_cast<Rank>(p() - 1);
    if (s != 0) return;
    if (defect_ == Defect::skips_a_block) {  // the extra rank leaves out its last block; rank 0 expects it
      if (r == extra) out.sends[0].blocks = BlockSet::range(0, num_blocks() - 1);
      return;
    }
    // ... or sends its vector to rank 1 as well, which receives it.
    if (r == extra) out.add_send(1, Combine::reduce).blocks = BlockSet::range(0, num_blocks());
    if (r == 1) out.add_recv(extra, Combine::reduce).blocks = BlockSet::range(0, num_blocks());
  }
  const FoldedSchedule& fold() const { return fold_; }

 private:
  FoldedSchedule fold_;
  Defect defect_;
};

TEST(FoldComposition, ABrokenWrapperIsDeclinedAndRefutedAtItsMinimalP) {
  for (auto d : {BrokenWrapper::Defect::skips_a_block, BrokenWrapper::Defect::sends_twice}) {
    const uint64_t p = 3;  // the smallest fold with a core (p = 1 has none)
    BrokenWrapper w(p, d);
    const auto ms = swing::swing_mask_schedule(w.fold().inner());
    ASSERT_TRUE(ms);
    std::string why;
    EXPECT_FALSE(flow::run_fold_composition(w, w.fold().inner(), *ms, StepHook{}, &why));
    EXPECT_NE(why.find("extra rank 2 at fold step 0"), std::string::npos) << why;
    // check_schedule composes only a FoldedSchedule: the mutant is enumerated and refuted.
    EXPECT_EQ(combined_status(test::check_exact(w, nullptr, StepHook{}, true).verdicts), Status::violated);
  }
}

TEST(FoldComposition, ACoreThatDoesNotHoldIsNeverComposed) {
  // paper-later's ring at p' = 10 counts a contribution twice.
  SwingSendRule later{SwingStepSet::peer, SwingKeep::later, false};
  FoldedSchedule f(11, swing_equivariant(make_swing_bandwidth(10, later), BlockAction::as_ranks));
  const auto ms = swing::swing_mask_schedule(f.inner());
  ASSERT_TRUE(ms);
  std::string why;
  EXPECT_FALSE(flow::run_fold_composition(f, f.inner(), *ms, StepHook{}, &why));
  EXPECT_NE(why.find("the core of 10 ranks does not satisfy exactly-once"), std::string::npos) << why;
  // And the same fold with the default ring composes.
  FoldedSchedule good(11, swing_equivariant(make_swing_bandwidth(10), BlockAction::as_ranks));
  const auto gms = swing::swing_mask_schedule(good.inner());
  EXPECT_TRUE(flow::run_fold_composition(good, good.inner(), *gms, StepHook{}, &why)) << why;
}

}  // namespace
}  // namespace collcheck
