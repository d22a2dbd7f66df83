// Träff's Algorithm 7 (n-block all-broadcast / allgather over circulant
// graphs) through the generic checker: every property holds for p = 1..80 and
// several n, the schedule takes exactly n-1+q rounds and every rank sends
// exactly n(p-1) blocks (the registry's claim), a dropped transfer is caught,
// and the threaded executor agrees for p = 1..12.
#include <gtest/gtest.h>

#include <set>

#include "properties/instance_checker.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/registry.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/traff/traff_allgather.hpp"

namespace collcheck {
namespace {

std::set<std::string> violated(const InstanceCheck& ic) {
  std::set<std::string> out;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) out.insert(v.property);
  return out;
}

std::string describe(const InstanceCheck& ic) {
  std::string s;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) {
      s += v.property;
      if (v.counterexample) {
        s += ' ';
        s += v.counterexample->location();
        s += ": ";
        s += v.counterexample->message;
      }
      s += '\n';
    }
  return s;
}

std::string describe(const runtime::ExecResult& r) {
  std::string s = to_string(r.verdict.status);
  s += " [";
  s += r.verdict.mode;
  s += ']';
  if (r.verdict.counterexample) {
    s += ' ';
    s += r.verdict.counterexample->location();
    s += ": ";
    s += r.verdict.counterexample->message;
  }
  return s;
}

InstanceCheck check(const Schedule& s, uint32_t n, Exactness e = Exactness::exact) {
  const VariantInfo& v = find_algorithm("traff-allgather")->default_variant();
  Claim c = v.claim(InstanceParams{s.p(), 0, n});
  CheckOptions o;
  o.exactness = e;
  return check_schedule(s, &c, {}, o);
}

TEST(TraffAllgather, EveryPropertyHoldsForManyInstances) {
  for (uint64_t p = 1; p <= 80; ++p)
    for (uint32_t n : {1u, 2u, 3u, 5u}) {
      TraffAllgather a(p, n);
      SCOPED_TRACE("p=" + std::to_string(p) + " n=" + std::to_string(n));
      ASSERT_EQ(a.spec().kind, Collective::allgather);
      ASSERT_EQ(a.num_blocks(), n * p);
      InstanceCheck ic = check(a, n);
      EXPECT_TRUE(violated(ic).empty()) << describe(ic);
      int q = swing::ceil_log2(p);
      EXPECT_EQ(a.num_steps(), p == 1 ? 0 : static_cast<int>(n) - 1 + q);
    }
}

TEST(TraffAllgather, EveryRankSendsAndReceivesExactlyNTimesPMinus1Blocks) {
  for (uint64_t p : {2u, 7u, 9u, 16u, 17u, 33u})
    for (uint32_t n : {1u, 4u, 6u}) {
      TraffAllgather a(p, n);
      MaterializedSchedule m = materialize(a);
      for (Rank r = 0; r < p; ++r) {
        uint64_t sent = 0, got = 0;
        for (const auto& step : m.steps) {
          for (const Transfer& t : step[r].sends) sent += t.blocks.size();
          for (const Transfer& t : step[r].recvs) got += t.blocks.size();
        }
        EXPECT_EQ(sent, n * (p - 1)) << "p=" << p << " n=" << n << " r=" << r;
        EXPECT_EQ(got, n * (p - 1)) << "p=" << p << " n=" << n << " r=" << r;
      }
    }
}

TEST(TraffAllgather, FingerprintModeAgrees) {
  for (uint64_t p : {17u, 18u, 300u}) {
    TraffAllgather a(p, 3);
    EXPECT_TRUE(violated(check(a, 3, Exactness::fingerprint)).empty()) << p;
  }
}

TEST(TraffAllgather, DroppingATransferBreaksThePostcondition) {
  TraffAllgather a(17, 4);
  MaterializedSchedule m = materialize(a);
  // Drop the last step's message of rank 0 at both ends.
  const size_t last = m.steps.size() - 1;
  auto& sends = m.steps[last][0].sends;
  ASSERT_FALSE(sends.empty());
  Transfer t = sends.front();
  sends.erase(sends.begin());
  auto& recvs = m.steps[last][t.peer].recvs;
  ASSERT_EQ(recvs.size(), 1u);
  ASSERT_EQ(recvs.front().peer, 0u);
  recvs.erase(recvs.begin());
  InstanceCheck ic = check(MaterializedView(m), 4);
  std::set<std::string> v = violated(ic);
  EXPECT_TRUE(v.count("postcondition")) << describe(ic);
  EXPECT_FALSE(v.count("matching"));  // both ends were dropped
}

TEST(TraffAllgather, ThreadedExecutorHolds) {
  for (uint64_t p = 1; p <= 12; ++p)
    for (uint32_t n : {1u, 3u, 8u}) {
      TraffAllgather a(p, n);
      for (bool in_place : {true, false}) {
        runtime::ExecOptions o;
        o.in_place = in_place;
        o.seed = 77 + p;
        runtime::ExecResult r = runtime::execute_threads(a, o);
        EXPECT_EQ(r.verdict.status, Status::holds) << "p=" << p << " n=" << n << ": " << describe(r);
        EXPECT_FALSE(r.deadlock);
        EXPECT_EQ(r.verdict.checks, p * a.num_blocks());
      }
    }
}

TEST(TraffAllgather, RegistryEntry) {
  const AlgorithmInfo* a = find_algorithm("traff-allgather");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->collective, Collective::allgather);
  const VariantInfo& v = a->default_variant();
  EXPECT_EQ(v.name, "allgather");
  EXPECT_FALSE(v.violates(InstanceParams{5, 0, 0}).has_value());
  auto why = v.violates(InstanceParams{5, 1, 0});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("root does not apply"), std::string::npos);
  EXPECT_EQ(v.make(InstanceParams{5, 0, 0})->num_blocks(), 8u * 5u);  // default n = 8
  Claim c = v.claim(InstanceParams{9, 0, 5});
  EXPECT_EQ(c.steps, 5 - 1 + 4);
  EXPECT_EQ(c.volume_blocks, 5u * 8u);
}

}  // namespace
}  // namespace collcheck
