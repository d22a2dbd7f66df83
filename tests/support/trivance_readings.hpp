#pragma once
// Shared by tests/unit/schedules/trivance/trivance_readings_test.cpp and
// tests/slow/schedules/trivance/trivance_readings_sweep_test.cpp: the registered readings of
// Trivance's block routing (TrivanceRouting, schedules/trivance/trivance_bandwidth.hpp;
// the variants in schedules/trivance/trivance_family.cpp) and the two sides of the finding
// "a reading that forwards before it keeps fails exactly where its routing
// differs from the stay-first reading with the same order of the two moves".
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"

namespace collcheck::test {

struct TrivanceReading {
  std::string variant;  // the registered trivance variant
  TrivanceRouting how;  // the routing it is built from
};

inline TrivanceRouting trivance_routing(TrivanceRouting::Move a, TrivanceRouting::Move b, TrivanceRouting::Move c,
                                        bool own_block_stays) {
  TrivanceRouting how;
  how.preference = {a, b, c};
  how.own_block_stays = own_block_stays;
  return how;
}

// The eight de-duplications that put a move before "stay", each with the own
// block sent (when a peer reaches r later) and with it kept.
inline std::vector<TrivanceReading> forwarding_first_readings() {
  using M = TrivanceRouting::Move;
  const struct {
    const char* name;
    M a, b, c;
  } orders[] = {{"right-stay-left", M::right, M::stay, M::left},
                {"right-left-stay", M::right, M::left, M::stay},
                {"left-stay-right", M::left, M::stay, M::right},
                {"left-right-stay", M::left, M::right, M::stay}};
  std::vector<TrivanceReading> out;
  for (const auto& o : orders)
    for (bool own : {false, true})
      out.push_back({std::string("dedup-") + o.name + (own ? "-own-stays" : ""), trivance_routing(o.a, o.b, o.c, own)});
  return out;
}

// The same order of the two moves with "stay" first (`bandwidth` or
// `dedup-stay-left-right`; the own-block rule is vacuous there).
inline TrivanceRouting stay_first_counterpart(const TrivanceRouting& how) {
  TrivanceRouting out;
  size_t i = 1;
  for (TrivanceRouting::Move m : how.preference)
    if (m != TrivanceRouting::Move::stay) out.preference[i++] = m;
  return out;
}

// Some rank forwards a block that could have stayed: the routing differs from
// its stay-first counterpart.
inline bool differs_from_stay_first(uint64_t n, const TrivanceRouting& how) {
  return trivance_moves(n, how) != trivance_moves(n, stay_first_counterpart(how));
}

// Some property (cost with the variant's claim included) fails at n, exact mode.
inline bool fails(const VariantInfo& v, uint64_t n) {
  const InstanceParams ip{n, 0};
  const Claim claim = v.claim(ip);
  CheckOptions o;
  o.exactness = Exactness::exact;
  const InstanceCheck ic = check_schedule(*v.make(ip), &claim, {}, o);
  for (const Verdict& x : ic.verdicts)
    if (x.status == Status::violated) return true;
  return false;
}

// For n = 1..max_n: each forwarding-first reading fails exactly where its
// routing differs from its stay-first counterpart's, and the own-block rule never changes
// where a reading fails. Returns how many n failed per reading (the same for
// all, asserted).
inline uint64_t expect_forwarding_first_fail_exactly_where_they_differ(uint64_t max_n) {
  const AlgorithmInfo* a = find_algorithm("trivance");
  std::vector<std::vector<bool>> failing;
  for (const TrivanceReading& r : forwarding_first_readings()) {
    SCOPED_TRACE(r.variant);
    const VariantInfo* v = a->find_variant(r.variant);
    if (!v) {
      ADD_FAILURE() << "not registered";
      return 0;
    }
    EXPECT_FALSE(v->expected_to_hold);
    std::vector<bool> f(max_n + 1, false);
    for (uint64_t n = 1; n <= max_n; ++n) {
      f[n] = fails(*v, n);
      EXPECT_EQ(f[n], differs_from_stay_first(n, r.how)) << "n = " << n;
    }
    failing.push_back(std::move(f));
  }
  for (const auto& f : failing) EXPECT_EQ(f, failing.front()) << "the readings fail at different n";
  uint64_t count = 0;
  for (bool x : failing.front()) count += x;
  return count;
}

}  // namespace collcheck::test
