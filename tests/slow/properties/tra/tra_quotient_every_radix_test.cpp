// The all-to-all quotient (rank 0's held cells under the translations,
// blocks as (source, destination) pairs) against enumeration at every radix:
// for every P in 2..kMaxP and every radix r in 2..P, each declared TRA
// variant (tra, bruck, spread-out; bruck and spread-out take no radix and
// run once per P) with its registry claim and step hook is checked twice,
// once through the quotient and once enumerated (every rank, exact p-bit
// sets), and both give the same verdicts with the same minimal
// counterexamples. The quotient must also have decided it: an instance it
// declines would compare enumeration with itself.
//
// Enumeration keeps only the cells each rank holds (properties/flow/
// held_enumeration.hpp, compared with the dense cells in
// tests/unit/properties/flow/held_enumeration_test.cpp). The radices number
// P - 1 and each instance moves about P^2 blocks per digit, so the whole
// grows about as P^4: P <= 128 (the default) takes under a minute on two
// cores (label "slow", excluded from scripts/test), P = 512 alone 40 s, the
// whole range to 512 about 1.5 hours (TRA2's every Q and radix pair about
// 35 hours before its enumeration ran on the direct generator, once for both
// of its variants: P = 65..128 alone took 501 s then). COLLCHECK_TRA_MIN_P and
// COLLCHECK_TRA_MAX_P choose the range of P (so a long run can be split);
// COLLCHECK_TRA2_MIN_P and COLLCHECK_TRA2_MAX_P the same for TRA2. The
// defects in rank 0's program and a one-rank deviation are
// tests/unit/properties/flow/flow_quotient_test.cpp's (every build).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "properties/cost.hpp"
#include "properties/flow/flow_common.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra2.hpp"
#include "schedules/translation_equivariant.hpp"
#include "tests/support/alltoall.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck::test {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* env = std::getenv(name);
  return env && *env ? std::strtoull(env, nullptr, 10) : fallback;
}
uint64_t max_p() { return env_or("COLLCHECK_TRA_MAX_P", 128); }
// The first P compared (a long run split into ranges; default 2).
uint64_t min_p() { return std::max<uint64_t>(2, env_or("COLLCHECK_TRA_MIN_P", 2)); }

InstanceCheck check_with(const VariantInfo& v, const InstanceParams& ip, bool symmetry) {
  const auto s = v.make(ip);
  const Claim claim = v.claim(ip);
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.use_symmetry = symmetry;
  return check_schedule(*s, &claim, family_step_hook(v, ip), o);
}

TEST(TraQuotient, SameVerdictsAsEnumerationAtEveryRadix) {
  const AlgorithmInfo* tra = find_algorithm("tra");
  ASSERT_NE(tra, nullptr);
  const uint64_t kMaxP = max_p(), kMinP = min_p();
  ASSERT_GE(kMaxP, kMinP);
  uint64_t compared = 0;
  for (const VariantInfo& v : tra->variants) {
    const bool radix = v.name == tra->default_variant().name;  // the others take no --radix
    for (uint64_t p = kMinP; p <= kMaxP; ++p)
      for (uint64_t r = 2; r <= (radix ? p : 2); ++r) {
        InstanceParams ip;
        ip.p = p;
        if (radix) ip.radix = static_cast<uint32_t>(r);
        if (v.violates(ip)) continue;
        const std::string what = "tra/" + v.name + " p=" + std::to_string(p) + (radix ? " r=" + std::to_string(r) : "");
        const InstanceCheck q = check_with(v, ip, true), e = check_with(v, ip, false);
        ASSERT_TRUE(by_quotient(q)) << what << ": " << declined(q);
        ASSERT_FALSE(by_quotient(e)) << what;
        expect_same_verdicts(q, e, what);
        ++compared;
      }
  }
  // Every P, every radix of the default variant, the other two once per P.
  EXPECT_EQ(compared, (kMaxP - 1) * kMaxP / 2 - (kMinP - 2) * (kMinP - 1) / 2 + 2 * (kMaxP - kMinP + 1));
}

// TRA2 on the torus N x Q (schedules/tra/tra2.hpp, the intended reading;
// paper-formulas is the same schedule with the printed claim, violated in
// cost): every P in 2..COLLCHECK_TRA2_MAX_P (default 64), every Q dividing
// P and every radix pair (r1, r2), quotient against enumeration. The printed
// reading (paper-literal) is not circulant and is enumerated either way
// (tra2_equivariant_test.cpp).
//
// Enumeration runs on the direct generator behind the equivariant schedule
// (translation_direct): every rank's transfers as TRA2's rules give them,
// not as rank 0's moved by the group. That is the stronger comparison (it
// also checks the quotient's construction at every rank of every shape) and
// the cheaper one (mapping every rank's transfers through the torus group
// was about 40% of the enumeration). Both variants' make() is the same code
// (tra_family.cpp: tra2_variant, the reading `intended`), so paper-formulas
// is enumerated once with tra2: its enumerated verdicts are tra2's with the
// cost verdict judged against its own claim, from the direct generator's
// measured steps and volume (which must give tra2's enumerated cost verdict
// back, and rank 0's transfers of both variants must be the same).
uint64_t max_p_tra2() { return env_or("COLLCHECK_TRA2_MAX_P", 64); }
uint64_t min_p_tra2() { return std::max<uint64_t>(2, env_or("COLLCHECK_TRA2_MIN_P", 2)); }
// COLLCHECK_TRA2_Q=default compares only the Q verify takes without --ppn
// (the largest divisor of P <= sqrt P), still with every radix pair: about
// d(P) times less work, for the long range past every-Q's reach. Unset or
// "all": every Q dividing P. Anything else is a mistake in the command.
bool every_q_tra2() {
  const char* env = std::getenv("COLLCHECK_TRA2_Q");
  const std::string v = env ? env : "";
  if (v.empty() || v == "all") return true;
  if (v == "default") return false;
  ADD_FAILURE() << "COLLCHECK_TRA2_Q must be all or default, not " << v;
  return true;
}
// The Q the registry's tra2 takes at P without --ppn.
uint64_t default_q_tra2(const VariantInfo& v, uint64_t p) {
  InstanceParams ip;
  ip.p = p;
  const auto s = v.make(ip);
  const auto* t = dynamic_cast<const Tra2*>(&translation_direct(*s));
  return t ? t->q() : 0;
}

// Steps (last with a transfer, plus one) and send volumes of every rank,
// summarised by the checker's own flow::measured_cost.
CostMeasurement measured(const Schedule& s) {
  std::vector<uint64_t> volume(s.p());
  int last_active = -1;
  RankStep rs;
  for (int st = 0; st < s.num_steps(); ++st)
    for (Rank r = 0; r < s.p(); ++r) {
      s.rank_step(r, st, rs);
      if (!rs.sends.empty() || !rs.recvs.empty()) last_active = st;
      for (const Transfer& t : rs.sends) volume[r] += t.blocks.size();
    }
  return flow::measured_cost(volume, last_active);
}

TEST(Tra2Quotient, SameVerdictsAsEnumerationAtEveryShapeAndRadixPair) {
  const AlgorithmInfo* tra2 = find_algorithm("tra2");
  ASSERT_NE(tra2, nullptr);
  const VariantInfo* intended = tra2->find_variant("tra2");
  const VariantInfo* printed = tra2->find_variant("paper-formulas");
  ASSERT_NE(intended, nullptr);
  ASSERT_NE(printed, nullptr);
  const uint64_t kMaxP = max_p_tra2();
  const bool every_q = every_q_tra2();
  std::pair<uint64_t, uint64_t> q_of_p{0, 0};  // (P, its default Q)
  uint64_t compared = 0;
  for_each_tra2_shape(min_p_tra2(), kMaxP, [&](uint64_t p, uint64_t q, uint64_t r1, uint64_t r2) {
    if (::testing::Test::HasFatalFailure()) return;  // stop at the first failure, as before
    if (!every_q) {
      if (p != q_of_p.first) q_of_p = {p, default_q_tra2(*intended, p)};
      if (q != q_of_p.second) return;
    }
    InstanceParams ip;
    ip.p = p;
    ip.ppn = static_cast<uint32_t>(q);
    ip.radix = static_cast<uint32_t>(r1);
    ip.radix2 = static_cast<uint32_t>(r2);
    ASSERT_FALSE(intended->violates(ip));
    ASSERT_FALSE(printed->violates(ip));
    const std::string shape =
        " P=" + std::to_string(p) + " Q=" + std::to_string(q) + " r1=" + std::to_string(r1) + " r2=" + std::to_string(r2);
    const auto s = intended->make(ip);
    const Schedule& direct = translation_direct(*s);
    ASSERT_NE(&direct, s.get()) << "tra2" << shape << ": not the equivariant wrapper";
    const Claim claim = intended->claim(ip), printed_claim = printed->claim(ip);
    const StepHook hook = family_step_hook(*intended, ip);
    const InstanceCheck e = check_exact(direct, &claim, hook, false);
    ASSERT_FALSE(by_quotient(e)) << "tra2" << shape;
    // tra2: its quotient against the enumeration.
    const InstanceCheck qc = check_exact(*s, &claim, hook, true);
    ASSERT_TRUE(by_quotient(qc)) << "tra2" << shape << ": " << declined(qc);
    expect_same_verdicts(qc, e, "tra2" + shape);
    // paper-formulas: the same schedule (rank 0's transfers compared), the
    // enumerated verdicts with its own claim's cost verdict.
    const auto sp = printed->make(ip);
    RankStep a, b;
    for (int st = 0; st < s->num_steps(); ++st) {
      s->rank_step(0, st, a);
      sp->rank_step(0, st, b);
      ASSERT_EQ(a, b) << "paper-formulas" << shape << " step " << st;
    }
    const CostMeasurement cost = measured(direct);
    InstanceCheck ep = e;
    for (Verdict& v : ep.verdicts)
      if (v.property == "cost") {
        expect_same_verdict(judge_cost(p, cost, &claim), v, "tra2" + shape + ": measured cost");
        v = judge_cost(p, cost, &printed_claim);
      }
    const InstanceCheck qp = check_exact(*sp, &printed_claim, family_step_hook(*printed, ip), true);
    ASSERT_TRUE(by_quotient(qp)) << "paper-formulas" << shape << ": " << declined(qp);
    expect_same_verdicts(qp, ep, "paper-formulas" + shape);
    compared += 2;
  });
  // At least one shape per P (P prime: Q = 1, r2 = 2..P), both variants.
  EXPECT_GT(compared, 2 * (kMaxP - min_p_tra2()));
}

}  // namespace
}  // namespace collcheck::test
