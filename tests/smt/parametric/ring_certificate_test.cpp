// The ring allreduce's parametric certificate (smt/ring/ring_certificate.hpp,
// smt/parametric/single_transfer_certificate.hpp): it is proved for every p
// in [2, 2^30]; where it decides, it says what the certified quotient says
// (every property, every count, the cost) at every p of four intervals; it
// fails on rules that break the schedule (each mutant is also refuted by the
// per-p checker) and on a wrong invariant for the right rule; and it decides
// only the registered generator.
#include <gtest/gtest.h>

#include <type_traits>

#include "properties/instance_checker.hpp"
#include "schedules/parametric/rule_arith.hpp"
#include "schedules/ring/ring_allreduce.hpp"
#include "schedules/ring/ring_rule.hpp"
#include "smt/parametric/parametric_certificates.hpp"
#include "smt/ring/ring_certificate.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

using smt::parametric::CertificateOutcome;
using smt::parametric::prove_single_transfer_allreduce;
using smt::parametric::SingleTransferAllreduce;
using smt::parametric::SymbolicStep;
using smt::parametric::Z3Arith;

constexpr uint64_t kMaxP = smt::kRingCertificateMaxP;
constexpr unsigned kTimeoutMs = 60000;

InstanceCheck checked(const Schedule& s, bool parametric) {
  CheckOptions o;
  if (parametric) o.parametric = &smt::parametric_certificates();
  Claim claim = test::registered_variant("ring", "bandwidth").claim(InstanceParams{s.p()});
  return check_schedule(s, &claim, {}, o);
}

TEST(RingCertificate, ProvedForEveryPOfTheInterval) {
  const CertificateOutcome out =
      prove_single_transfer_allreduce(smt::parametric::ring_allreduce_rule(), 2, kMaxP, kTimeoutMs);
  EXPECT_TRUE(out.proved) << out.failed;
  const std::vector<std::string> all = {"matching-send", "matching-recv", "translation", "reduce-phase",
                                        "run-well-formed", "initial", "reduce-step", "copy-step", "frame", "final"};
  EXPECT_EQ(out.obligations, all);
}

// The certificate's verdicts against the certified quotient's (which the
// quotient tests compare with enumeration), at every p of four intervals.
TEST(RingCertificate, SameVerdictsAsTheQuotientOnFourIntervals) {
  std::vector<uint64_t> ps;
  for (uint64_t p = 2; p <= 300; ++p) ps.push_back(p);
  for (uint64_t p = 1000; p <= 1040; ++p) ps.push_back(p);
  for (uint64_t p = 4090; p <= 4110; ++p) ps.push_back(p);
  for (uint64_t p = 65530; p <= 65540; ++p) ps.push_back(p);
  for (uint64_t p : ps) {
    auto s = make_ring_allreduce_certified(p);
    const InstanceCheck cert = checked(*s, true), quotient = checked(*s, false);
    const std::string what = "p = " + std::to_string(p);
    ASSERT_EQ(cert.stats.at("method").rfind("parametric certificate: ", 0), 0u) << what;
    ASSERT_EQ(quotient.stats.at("method").rfind("quotient: ", 0), 0u) << what;
    test::expect_same_verdicts(cert, quotient, what);
    EXPECT_EQ(cert.stats.at("steps"), quotient.stats.at("steps")) << what;
    EXPECT_EQ(cert.stats.at("max_volume_blocks"), quotient.stats.at("max_volume_blocks")) << what;
    EXPECT_EQ(cert.stats.at("steps"), std::to_string(2 * (p - 1))) << what;
    for (const Verdict& v : cert.verdicts) EXPECT_EQ(v.status, Status::holds) << what << " " << v.property;
  }
}

TEST(RingCertificate, DecidesOnlyTheRegisteredGeneratorInsideItsInterval) {
  const ParametricDecider& d = smt::parametric_certificates();
  std::string why;
  EXPECT_TRUE(d.decide(*make_ring_allreduce(7), &why));
  EXPECT_TRUE(d.decide(*make_ring_allreduce_certified(7), &why));
  // p = 1 is outside [2, 2^30]: declined with the reason, then the quotient decides it.
  EXPECT_FALSE(d.decide(*make_ring_allreduce_certified(1), &why));
  EXPECT_NE(why.find("covers p in [2, 2^30] only"), std::string::npos) << why;
  const InstanceCheck one = checked(*make_ring_allreduce_certified(1), true);
  EXPECT_EQ(one.stats.at("method").rfind("quotient: ", 0), 0u);
  EXPECT_NE(one.stats.at("parametric_declined").find("[2, 2^30]"), std::string::npos);
  // Another generator (the four Hamiltonian rings on a torus) is not the rule's.
  why.clear();
  InstanceParams shape;
  shape.p = 16;
  shape.dims = {4, 4};
  auto torus = test::registered_variant("ring", "torus-hamiltonian").make(shape);
  EXPECT_FALSE(d.decide(*torus, &why));
  EXPECT_TRUE(why.empty()) << why;
}

// A schedule from any rule written like ring_rule::step (for the per-p
// checker's view of a mutant).
template <class Rule, class Steps>
class RuleSchedule final : public Schedule {
 public:
  RuleSchedule(uint64_t p, Rule rule, Steps steps)
      : spec_{Collective::allreduce, p, static_cast<uint32_t>(p), 0}, rule_(rule), steps_(steps) {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override {
    rule::Concrete a;
    return static_cast<int>(steps_(a, static_cast<int64_t>(spec_.p)));
  }
  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    if (s < 0 || s >= num_steps()) return;
    rule::Concrete a;
    const auto st = rule_(a, static_cast<int64_t>(spec_.p), int64_t{r}, int64_t{s});
    const Combine c = st.reduce ? Combine::reduce : Combine::copy;
    out.add_send(static_cast<Rank>(st.right), c).blocks.insert(static_cast<Block>(st.give));
    out.add_recv(static_cast<Rank>(st.left), c).blocks.insert(static_cast<Block>(st.take));
  }

 private:
  CollectiveSpec spec_;
  Rule rule_;
  Steps steps_;
};

template <class Rule, class Steps>
SingleTransferAllreduce symbolic(Rule rule, Steps steps) {
  SingleTransferAllreduce out = smt::parametric::ring_allreduce_rule();
  out.step = [rule](Z3Arith& a, const z3::expr& p, const z3::expr& r, const z3::expr& s) {
    const auto st = rule(a, p, r, s);
    return SymbolicStep{st.right, st.left, st.give, st.take, st.reduce};
  };
  out.num_steps = [steps](Z3Arith& a, const z3::expr& p) { return steps(a, p); };
  return out;
}

const auto kRingSteps = [](auto& a, const auto& p) { return ring_rule::num_steps(a, p); };

// A mutant of the rule: the certificate must not be proved, and the
// per-p checker must refute the mutant at some p <= 12.
template <class Rule, class Steps>
void expect_mutant_caught(const std::string& name, Rule rule, Steps steps, const std::string& obligation) {
  SCOPED_TRACE(name);
  const CertificateOutcome out = prove_single_transfer_allreduce(symbolic(rule, steps), 2, kMaxP, kTimeoutMs);
  EXPECT_FALSE(out.proved);
  EXPECT_EQ(out.failed.rfind(obligation, 0), 0u) << out.failed;
  bool refuted = false;
  for (uint64_t p = 2; p <= 12 && !refuted; ++p) {
    RuleSchedule<Rule, Steps> s(p, rule, steps);
    const InstanceCheck ic = checked(s, true);
    EXPECT_FALSE(ic.stats.count("method") && ic.stats.at("method").rfind(kParametricMethod, 0) == 0)
        << "a mutant decided by the certificate at p = " << p;
    for (const Verdict& v : ic.verdicts) refuted |= v.status == Status::violated;
  }
  EXPECT_TRUE(refuted) << "the per-p checker accepts the mutant at every p <= 12";
}

TEST(RingCertificate, MutantsOfTheRuleAreNotCertified) {
  // The allgather sends the block it receives instead of the one it completed.
  expect_mutant_caught(
      "allgather give = r - t",
      [](auto& a, const auto& p, const auto& r, const auto& s) {
        auto st = ring_rule::step(a, p, r, s);
        st.give = a.pick(st.reduce, st.give, a.mod(r - (s - (p - 1)), p));
        return st;
      },
      kRingSteps, "matching-send");
  // Both ends agree on the wrong allgather blocks: matched, but a rank
  // forwards a block before it is complete.
  expect_mutant_caught(
      "allgather one block behind, both ends",
      [](auto& a, const auto& p, const auto& r, const auto& s) {
        auto st = ring_rule::step(a, p, r, s);
        const auto t = s - (p - 1);
        st.give = a.pick(st.reduce, st.give, a.mod(r - t, p));
        st.take = a.pick(st.reduce, st.take, a.mod(r - t - 1, p));
        return st;
      },
      kRingSteps, "copy-step");
  // The reduce-scatter copies instead of reducing.
  expect_mutant_caught(
      "reduce-scatter copies",
      [](auto& a, const auto& p, const auto& r, const auto& s) {
        auto st = ring_rule::step(a, p, r, s);
        st.reduce = st.reduce && !st.reduce;
        return st;
      },
      kRingSteps, "reduce-phase");
  // One rank deviates: rank 0 sends the wrong block at step 0.
  expect_mutant_caught(
      "rank 0 sends block 1 at step 0",
      [](auto& a, const auto& p, const auto& r, const auto& s) {
        auto st = ring_rule::step(a, p, r, s);
        st.give = a.pick(r == 0 && s == 0, a.mod(r + 1, p), st.give);
        return st;
      },
      kRingSteps, "matching-send");
  // The allgather stops one step short.
  expect_mutant_caught(
      "one step short", [](auto& a, const auto& p, const auto& r, const auto& s) { return ring_rule::step(a, p, r, s); },
      [](auto& a, const auto& p) { return a.pick(p > 1, 2 * (p - 1) - 1, p - p); }, "final");
}

TEST(RingCertificate, AWrongInvariantIsNotProved) {
  SingleTransferAllreduce wrong = smt::parametric::ring_allreduce_rule();
  auto right = wrong.invariant;
  // The reduce-scatter's run one rank too long.
  wrong.invariant = [right](Z3Arith& a, const z3::expr& p, const z3::expr& r, const z3::expr& b, const z3::expr& s) {
    auto run = right(a, p, r, b, s);
    return smt::parametric::Run{run.first, z3::ite(s < p - 1 && run.second < p, run.second + 1, run.second)};
  };
  const CertificateOutcome out = prove_single_transfer_allreduce(wrong, 2, kMaxP, kTimeoutMs);
  EXPECT_FALSE(out.proved);
  EXPECT_FALSE(out.failed.empty());
}

}  // namespace
}  // namespace collcheck
