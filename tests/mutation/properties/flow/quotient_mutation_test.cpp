// Mutation against the certified quotient: a schedule in which ONE
// rank deviates at one step is never decided by the quotient. Each of the
// mutation operators of tests/support/mutations.hpp is applied to one rank
// (not rank 0, and rank 0 in a second round) of the materialized default Swing
// schedule; the result is a MaterializedView, which declares no symmetry, so
// it must be enumerated, and refuted exactly as with the quotient switched
// off. The same mutants with use_symmetry on and off must agree. The
// variant's claim is judged too: an extra block nobody forwards is dead data
// to the flow properties, but not to the claimed volume.
#include <gtest/gtest.h>

#include <functional>

#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

using namespace collcheck::mutation;
using collcheck::test::expect_same_verdicts;

struct Mutant {
  std::string name;
  std::function<void(MaterializedSchedule&, Rank r)> apply;
};

std::vector<Mutant> one_rank_mutants() {
  return {
      {"drop the rank's step-1 transfer (both ends)",
       [](MaterializedSchedule& m, Rank r) { drop_transfer(m, 1, r, send_peer(m, 1, r)); }},
      {"drop only the receiver's side",
       [](MaterializedSchedule& m, Rank r) { drop_recv(m, 1, r, send_peer(m, 1, r)); }},
      {"reduce turned into a copy (both ends)",
       [](MaterializedSchedule& m, Rank r) {
         const Rank q = send_peer(m, 1, r);
         send_of(m, 1, r, q).combine = Combine::copy;
         recv_of(m, 1, r, q).combine = Combine::copy;
       }},
      {"one extra block sent and received",
       [](MaterializedSchedule& m, Rank r) {
         const Rank q = send_peer(m, 0, r);
         send_of(m, 0, r, q).blocks.insert(r);
         recv_of(m, 0, r, q).blocks.insert(r);
       }},
      {"an extra transfer appended",
       [](MaterializedSchedule& m, Rank r) {
         add_transfer(m, m.num_steps(), r, static_cast<Rank>((r + 1) % m.spec.p), BlockSet::single(0), Combine::reduce);
       }},
  };
}

TEST(QuotientMutation, OneRankDeviationIsNeverCertified) {
  const VariantInfo& v = *find_algorithm("swing")->find_variant("bandwidth");
  for (uint64_t p : {8u, 12u}) {
    InstanceParams ip;
    ip.p = p;
    auto s = v.make(ip);
    ASSERT_NE(dynamic_cast<const EquivariantSchedule*>(s.get()), nullptr);
    const StepHook hook = family_step_hook(v, ip);
    // With the paper's claim: a harmless extra block (one the receiver never
    // forwards) still exceeds the claimed volume.
    const Claim claim = v.claim(ip);
    for (const Mutant& mu : one_rank_mutants())
      for (Rank r : {Rank{0}, Rank{3}, static_cast<Rank>(p - 1)}) {
        MaterializedSchedule m = materialize(*s);
        mu.apply(m, r);
        MaterializedView mv(std::move(m));
        CheckOptions o;
        o.exactness = Exactness::exact;
        InstanceCheck with = check_schedule(mv, &claim, hook, o);
        o.use_symmetry = false;
        InstanceCheck without = check_schedule(mv, &claim, hook, o);
        const std::string what = mu.name + " at rank " + std::to_string(r) + " p=" + std::to_string(p);
        const std::string method = with.stats.count("method") ? with.stats.at("method") : "";
        EXPECT_EQ(method.rfind(kQuotientMethod, 0), std::string::npos) << what;
        EXPECT_EQ(combined_status(with.verdicts), Status::violated) << what;
        expect_same_verdicts(with, without, what);
      }
  }
}

}  // namespace
}  // namespace collcheck
