// The faithfulness half of the translation certificates
// (schedules/translation_equivariant.hpp): every registered variant declared
// equivariant under the translations builds a TranslationEquivariant whose
// every rank and step is the direct generator's (the ring for every
// p <= 200; Träff's Algorithm 7 and its reversals for n = 1, 3, 8 and every
// p <= 64, and a few larger p; of a fold, its core), and a wrong shift or a generator that is not
// circulant is told apart by the same comparison.
#include <gtest/gtest.h>

#include <set>

#include "schedules/fold.hpp"
#include "schedules/input_error.hpp"
#include "schedules/ring/ring_allreduce.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/tra/tra2.hpp"
#include "schedules/traff/traff_allgather.hpp"
#include "schedules/traff/traff_allreduce.hpp"
#include "schedules/translation_equivariant.hpp"
#include "tests/support/same_schedule.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

std::vector<std::pair<const AlgorithmInfo*, const VariantInfo*>> declared() {
  std::vector<std::pair<const AlgorithmInfo*, const VariantInfo*>> out;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants)
      if (v.symmetry == SymmetryGroup::translations) out.push_back({&a, &v});
  return out;
}

TEST(TranslationEquivariant, RegistryDeclaresTheCirculantCollectives) {
  std::set<std::string> names;
  for (auto [a, v] : declared()) names.insert(a->name + "/" + v->name);
  std::set<std::string> want{"ring/bandwidth", "traff-allgather/allgather", "traff-reduce-scatter/reduce-scatter",
                             "traff-allreduce/allreduce", "bruck-allreduce/bandwidth", "tra/tra", "tra/bruck",
                             "tra/spread-out", "bruck-allreduce/latency", "trivance/latency",
                             "trivance/paper-last-step"};
  // Every Trivance ring reading built on OffsetRoutingRing (offset_routing_certified).
  for (const char* v : {"bandwidth", "paper-bandwidth", "paper-bandwidth-own-stays", "paper-distance",
                        "paper-keep-last", "paper-keep-last-own-stays"})
    want.insert(std::string("trivance/") + v);
  for (const char* order : {"stay-left-right", "right-stay-left", "right-left-stay", "left-stay-right",
                            "left-right-stay"}) {
    want.insert(std::string("trivance/dedup-") + order);
    if (std::string(order).substr(0, 4) != "stay") want.insert(std::string("trivance/dedup-") + order + "-own-stays");
  }
  EXPECT_EQ(names, want);
}

TEST(TranslationEquivariant, EveryRankIsTheDirectGeneratorsForEveryDeclaredVariant) {
  int compared = 0;
  for (auto [a, v] : declared()) {
    const bool traff = v->takes("n");
    const std::vector<uint32_t> ns = traff ? std::vector<uint32_t>{1, 3, 8} : std::vector<uint32_t>{0};
    std::vector<uint64_t> ps;
    for (uint64_t p = 1; p <= (traff ? 64u : 200u); ++p) ps.push_back(p);
    for (uint64_t p : {100u, 128u, 255u, 256u}) ps.push_back(p);
    for (uint32_t n : ns)
      for (uint64_t p : ps) {
        InstanceParams ip;
        ip.p = p;
        ip.blocks = n;
        if (v->violates && v->violates(ip)) continue;
        auto s = v->make(ip);
        // A fold (Trivance's and Bruck's latency schedules off 3^t): its core.
        const auto* f = dynamic_cast<const FoldedSchedule*>(s.get());
        const auto* eq = dynamic_cast<const TranslationEquivariant*>(f ? &f->inner() : s.get());
        const std::string what = a->name + "/" + v->name + " p=" + std::to_string(p) + " n=" + std::to_string(n);
        ASSERT_NE(eq, nullptr) << what << ": the translations act on every p of these collectives";
        EXPECT_EQ(eq->action().group(), SymmetryGroup::translations) << what;
        test::expect_equal_everywhere(eq->direct(), *eq, what);
        ++compared;
      }
  }
  EXPECT_GT(compared, 600);
}

TEST(TranslationEquivariant, AWrongShiftIsToldApart) {
  for (uint64_t p : {3u, 5u, 8u, 13u}) {
    TranslationEquivariant wrong(make_ring_allreduce(p), 2, "wrong on purpose");
    EXPECT_TRUE(test::differ_somewhere(*make_ring_allreduce(p), wrong)) << p;
  }
  for (uint64_t p : {3u, 6u, 17u}) {  // Träff's allreduce with blocks shifted by n - 1 per rank, not n
    TranslationEquivariant wrong(std::make_unique<TraffAllreduce>(p, 8), 7, "wrong on purpose");
    EXPECT_TRUE(test::differ_somewhere(TraffAllreduce(p, 8), wrong)) << p;
  }
}

TEST(TranslationEquivariant, ANonCirculantGeneratorIsToldApart) {
  // Swing's peers depend on the parity of the rank: no translation by an odd
  // amount maps rank 0's step to rank 1's.
  for (uint64_t p : {4u, 8u, 16u}) {
    TranslationEquivariant wrong(make_swing_bandwidth(p), 1, "not circulant");
    EXPECT_TRUE(test::differ_somewhere(*make_swing_bandwidth(p), wrong)) << p;
  }
}

// The all-to-all's (source, destination) pairs: moving one end only, or a
// schedule that is not circulant (TRA2 translates whole nodes only), is told
// apart by the same comparison.
TEST(TranslationEquivariant, AllToAllPairsMoveBothEnds) {
  for (uint64_t p : {3u, 5u, 8u, 12u}) {
    TranslationEquivariant pairs(std::make_unique<Tra>(p, 2), BlockAction::pairs, "x");
    EXPECT_FALSE(test::differ_somewhere(Tra(p, 2), pairs)) << p;  // the right action: equal
    // Blocks shifted by 1 per rank would move the destination only: the
    // all-to-all's specification is not invariant under it.
    auto shifted = std::make_unique<Tra>(p, 2);
    EXPECT_THROW(TranslationEquivariant(std::move(shifted), 1, "one end only"), InputError) << p;
  }
  for (uint64_t p : {4u, 8u, 12u}) {  // Q = 2 ranks per node
    TranslationEquivariant wrong(std::make_unique<Tra2>(p, 2, 2, 2), BlockAction::pairs, "not circulant");
    EXPECT_TRUE(test::differ_somewhere(Tra2(p, 2, 2, 2), wrong)) << p;
  }
  // Pairs index an all-to-all only.
  EXPECT_THROW(TranslationEquivariant(make_ring_allreduce(4), BlockAction::pairs, "x"), InputError);
  EXPECT_EQ(dynamic_cast<const EquivariantSchedule*>(alltoall_translation_equivariant(make_ring_allreduce(4), "x").get()),
            nullptr);
}

TEST(TranslationEquivariant, TheGroupMustActOnTheCollective) {
  // An allgather's owners move only with a shift of n blocks per rank.
  EXPECT_THROW(TranslationEquivariant(std::make_unique<TraffAllgather>(6, 8), 7, "x"), InputError);
  auto kept = traff_circulant_certified(std::make_unique<TraffAllgather>(6, 8), 7);
  EXPECT_EQ(dynamic_cast<const EquivariantSchedule*>(kept.get()), nullptr);
}

}  // namespace
}  // namespace collcheck
