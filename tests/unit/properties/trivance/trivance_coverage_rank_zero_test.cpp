// trivance-coverage on rank 0 alone (properties/trivance/trivance_coverage.cpp)
// for schedules equivariant under the translations: the same verdict as the
// rank-by-rank simulation of the direct generator (status, checks,
// violations, the minimal counterexample with its texts, every stat), on
// every Trivance ring reading wrapped as circulant and Bruck's bandwidth
// allreduce, and on two broken circulant schedules where the rank-by-rank
// check fails (Lemma 4.2's neighbourhood, a port left idle): a rank-0 path
// that could not fail would differ there.
#include <gtest/gtest.h>

#include <string>

#include "properties/trivance/trivance_coverage.hpp"
#include "schedules/bruck/bruck_allreduce.hpp"
#include "schedules/fold.hpp"
#include "schedules/registry.hpp"
#include "schedules/translation_equivariant.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"

namespace collcheck {
namespace {

std::string describe(const std::optional<Counterexample>& c) {
  if (!c) return "none";
  auto o = [](const auto& x) { return x ? std::to_string(*x) : std::string("-"); };
  return "p=" + std::to_string(c->p) + " rank=" + o(c->rank) + " step=" + o(c->step) + " block=" + o(c->block) +
         " peer=" + o(c->peer) + " | " + c->expected + " | " + c->actual + " | " + c->message;
}

// The rank-0 verdict of the circulant `s` against the rank-by-rank verdict
// of its direct generator; returns the rank-0 verdict.
Verdict expect_same(const Schedule& s, const std::string& what) {
  const Schedule& direct = translation_direct(s);
  EXPECT_NE(&direct, &s) << what << ": not wrapped as circulant, nothing compared";
  const Verdict zero = trivance_coverage(s), all = trivance_coverage(direct);
  EXPECT_NE(zero.mode, all.mode) << what << ": the rank-0 path did not run";
  EXPECT_EQ(zero.status, all.status) << what;
  EXPECT_EQ(zero.checks, all.checks) << what;
  EXPECT_EQ(zero.violations, all.violations) << what;
  const std::optional<Counterexample> cz = zero.counterexample ? std::optional(*zero.counterexample) : std::nullopt;
  const std::optional<Counterexample> ca = all.counterexample ? std::optional(*all.counterexample) : std::nullopt;
  EXPECT_EQ(describe(cz), describe(ca)) << what;
  EXPECT_EQ(zero.stats, all.stats) << what;
  return zero;
}

TEST(TrivanceCoverageRankZero, EqualsTheRankByRankCheckOnEveryCirculantRingReading) {
  int compared = 0;
  for (const AlgorithmInfo& a : registry()) {
    if (a.name != "trivance" && a.name != "bruck-allreduce") continue;
    for (const VariantInfo& v : a.variants) {
      if (v.symmetry != SymmetryGroup::translations) continue;
      std::vector<uint64_t> ns;
      for (uint64_t n = 1; n <= 100; ++n) ns.push_back(n);
      for (uint64_t n : {243u, 244u, 364u, 729u}) ns.push_back(n);
      for (uint64_t n : ns) {
        InstanceParams ip;
        ip.p = n;
        if (v.violates && v.violates(ip)) continue;
        auto s = v.make(ip);
        // A latency fold off 3^t: not circulant (its coverage runs rank by rank).
        if (dynamic_cast<const FoldedSchedule*>(s.get())) continue;
        expect_same(*s, a.name + "/" + v.name + " n=" + std::to_string(n));
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1500);
}

TEST(TrivanceCoverageRankZero, ALemmaViolationIsReportedAsRankByRank) {
  // Bruck's peers r + 3^k and r + 2*3^k cover {r, .., r + 3^(k+1) - 1}, not
  // the ball around r of Lemma 4.2: judged at n = 3^s, it fails.
  for (uint64_t n : {9u, 27u, 81u}) {
    auto s = offset_routing_certified(make_bruck_allreduce_bandwidth(n));
    const Verdict v = expect_same(*s, "bruck n=" + std::to_string(n));
    EXPECT_EQ(v.status, Status::violated) << n;
    EXPECT_EQ(v.violations % n, 0u) << n;  // every rank fails alike
    ASSERT_TRUE(v.counterexample) << n;
    EXPECT_EQ(v.counterexample->rank, 0u) << n;
  }
}

TEST(TrivanceCoverageRankZero, AnIdlePortIsReportedAsRankByRank) {
  // Trivance's moves at n = 27 with every left move dropped: one send peer
  // and one receive peer per step.
  for (uint64_t n : {9u, 27u}) {
    auto steps = trivance_moves(n);
    for (auto& st : steps)
      std::erase_if(st, [&](const OffsetRoutingRing::Move& m) { return m.shift > n / 2; });
    auto s = offset_routing_certified(std::make_unique<OffsetRoutingRing>(n, steps, true, 2));
    const Verdict v = expect_same(*s, "one port n=" + std::to_string(n));
    EXPECT_EQ(v.status, Status::violated) << n;
    EXPECT_GE(v.violations, n) << n;  // every rank, at least at step 0
    EXPECT_NE(v.stats.at("one_port_rank_steps"), "0") << n;
  }
}

}  // namespace
}  // namespace collcheck
