// Träff's Algorithm 1 (n-block broadcast over circulant graphs) through the
// generic checker: every property holds for many (p, n, root), the schedule
// takes exactly n-1+q rounds, and mutations of it are caught.
#include <gtest/gtest.h>

#include <set>

#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/traff/traff_broadcast.hpp"

namespace collcheck {
namespace {

std::set<std::string> violated(const InstanceCheck& ic) {
  std::set<std::string> out;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) out.insert(v.property);
  return out;
}

InstanceCheck check(const Schedule& s, uint32_t n, Exactness e = Exactness::exact) {
  const VariantInfo& v = find_algorithm("traff")->default_variant();
  Claim c = v.claim(InstanceParams{s.p(), s.spec().root, n});
  CheckOptions o;
  o.exactness = e;
  return check_schedule(s, &c, {}, o);
}

TEST(TraffBroadcast, EveryPropertyHoldsForManyInstances) {
  for (uint64_t p = 1; p <= 130; ++p)
    for (uint32_t n : {1u, 2u, 3u, 7u, 8u}) {
      std::set<Rank> roots{0, static_cast<Rank>(p - 1), static_cast<Rank>(p / 2)};
      for (Rank root : roots) {
        TraffBroadcast b(p, n, root);
        SCOPED_TRACE("p=" + std::to_string(p) + " n=" + std::to_string(n) + " root=" + std::to_string(root));
        InstanceCheck ic = check(b, n);
        EXPECT_TRUE(violated(ic).empty());
        int q = swing::ceil_log2(p);
        EXPECT_EQ(b.num_steps(), p == 1 ? 0 : static_cast<int>(n) - 1 + q);
      }
    }
}

TEST(TraffBroadcast, FingerprintModeAgrees) {
  for (uint64_t p : {17u, 18u, 1000u, 1025u}) {
    TraffBroadcast b(p, 5, 3);
    EXPECT_TRUE(violated(check(b, 5, Exactness::fingerprint)).empty()) << p;
  }
}

TEST(TraffBroadcast, DroppingATransferLosesABlock) {
  TraffBroadcast b(17, 4, 0);
  MaterializedSchedule m = materialize(b);
  // Rank 0 (the root) sends to 1 = 0 + skip[0] in the first round; drop both ends.
  auto& sends = m.steps[0][0].sends;
  ASSERT_FALSE(sends.empty());
  Transfer t = sends.front();
  sends.erase(sends.begin());
  auto& recvs = m.steps[0][t.peer].recvs;
  ASSERT_FALSE(recvs.empty());
  recvs.erase(recvs.begin());
  InstanceCheck ic = check(MaterializedView(m), 4);
  std::set<std::string> v = violated(ic);
  EXPECT_TRUE(v.count("postcondition")) << v.size();
  // The receiver then forwards a block it never got.
  EXPECT_TRUE(v.count("causality"));
}

TEST(TraffBroadcast, ReduceInsteadOfCopyIsCaught) {
  TraffBroadcast b(9, 2, 0);
  MaterializedSchedule m = materialize(b);
  Transfer& s = m.steps[0][0].sends.front();
  s.combine = Combine::reduce;
  for (Transfer& r : m.steps[0][s.peer].recvs)
    if (r.peer == 0) r.combine = Combine::reduce;
  InstanceCheck ic = check(MaterializedView(m), 2);
  EXPECT_TRUE(violated(ic).count("causality"));  // reduce into a block the receiver does not hold
}

}  // namespace
}  // namespace collcheck
