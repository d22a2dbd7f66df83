// alltoall-delivery and tra-formulas (properties/alltoall_delivery,
// properties/tra_formulas):
//
//  * TRA delivers for every (P, r), 2 <= r <= P <= 64, and the formulas hold;
//    TRA2 (intended reading) for every P <= 36, every Q dividing P and every
//    r1, r2; the printed TRA2 rules fail exactly when Q >= 3 or N >= 3;
//  * K and D against hand-computed values: Fig. 2 (P = 9, r = 3: K = 4,
//    D = 12), Fig. 3 (P = 11, r = 3: K = 5, D = 15, rounds 4 3 3 3 2 and an
//    empty (2, 2)), Sec. III-B (P = 16384, r = 128: K = 254, D = 32512);
//  * the position-major simulation equals a naive rank-major one written
//    straight from the paper's text, for every rule hook, cell by cell;
//  * mutations: a wrong rotation, a wrong send direction, a mirrored
//    direction, an off-by-one rotation and a missing final rotation each fail
//    with the counterexample the naive simulation predicts (and two of them
//    keep every source rank right, two every block index: a check of only
//    one of the two would pass them);
//  * tra-formulas fails on counts that disagree, and reports the printed TRA2
//    K1/K2 disagreement as a stat while holding;
//  * the registry defaults the properties assume equal the generators', and
//    the counts per round equal the generators' schedules, for every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"
#include "properties/family_property.hpp"
#include "properties/tra/alltoall_delivery.hpp"
#include "properties/tra/tra_formulas.hpp"
#include "schedules/registry.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/tra/tra2.hpp"
#include "schedules/translation_equivariant.hpp"

namespace collcheck {
namespace {

using a2a::Instance;
using a2a::Rules;

uint64_t md(int64_t a, uint64_t m) {
  const int64_t v = a % static_cast<int64_t>(m);
  return static_cast<uint64_t>(v < 0 ? v + static_cast<int64_t>(m) : v);
}

Instance tra(uint64_t p, uint64_t r) {
  Instance in;
  in.p = p;
  in.r = r;
  return in;
}

Instance tra2(uint64_t p, uint64_t q, uint64_t r1, uint64_t r2, bool literal = false) {
  Instance in;
  in.two_layer = true;
  in.paper_literal = literal;
  in.p = p;
  in.q = q;
  in.n = p / q;
  in.r1 = q >= 2 ? r1 : 0;
  in.r2 = p / q >= 2 ? r2 : 0;
  return in;
}

// ---- a naive reference: the paper's text, rank-major, one copy per round ----
struct Naive {
  bool unmatched = false;
  std::vector<uint32_t> final;  // final[q*P + i]
};

Naive naive_tra(uint64_t P, uint64_t r, const Rules& rules) {
  std::vector<std::vector<uint32_t>> R(P, std::vector<uint32_t>(P));
  for (uint64_t p = 0; p < P; ++p)
    for (uint64_t i = 0; i < P; ++i)
      R[p][i] = static_cast<uint32_t>(
          p * P + md(static_cast<int64_t>(p) + rules.rotation_sign * static_cast<int64_t>(i) + rules.rotation_offset, P));
  const int w = a2a::digits(P, r);
  uint64_t rx = 1;
  Naive out;
  for (int x = 0; x < w; ++x, rx *= r)
    for (uint64_t z = 1; z < r; ++z) {
      std::vector<uint64_t> pos;
      for (uint64_t i = 0; i < P; ++i)
        if ((i / rx) % r == z) pos.push_back(i);
      if (pos.empty()) continue;
      const auto old = R;
      for (uint64_t q = 0; q < P; ++q) {
        const uint64_t src = md(static_cast<int64_t>(q) + rules.recv_sign * static_cast<int64_t>(z * rx), P);
        if (md(static_cast<int64_t>(src) + rules.send_sign * static_cast<int64_t>(z * rx), P) != q) {
          out.unmatched = true;
          return out;
        }
        for (uint64_t i : pos) R[q][i] = old[src][i];
      }
    }
  out.final.resize(P * P);
  for (uint64_t q = 0; q < P; ++q)
    for (uint64_t i = 0; i < P; ++i) {
      const uint64_t k = rules.skip_final_rotation
                             ? i
                             : md(static_cast<int64_t>(q) + rules.final_sign * static_cast<int64_t>(i), P);
      out.final[q * P + i] = R[q][k];
    }
  return out;
}

Naive naive_tra2(const Instance& in) {
  const uint64_t P = in.p, Q = in.q, N = in.n;
  const int sgn = in.paper_literal ? -1 : +1;
  std::vector<std::vector<uint32_t>> R(P, std::vector<uint32_t>(P));
  for (uint64_t p = 0; p < P; ++p)
    for (uint64_t i = 0; i < N; ++i)
      for (uint64_t j = 0; j < Q; ++j) R[p][i * Q + j] = static_cast<uint32_t>(p * P + i * Q + (p % Q + j) % Q);
  auto phase = [&](uint64_t m, uint64_t r, bool intra) {
    const int w = a2a::digits(m, r);
    uint64_t rx = 1;
    for (int x = 0; x < w; ++x, rx *= r)
      for (uint64_t z = 1; z < r; ++z) {
        std::vector<uint64_t> pos;
        for (uint64_t i = 0; i < P; ++i) {
          const uint64_t digit_of = intra ? i % Q : i / Q;
          if ((digit_of / rx) % r == z) pos.push_back(i);
        }
        if (pos.empty()) continue;
        const auto old = R;
        for (uint64_t q = 0; q < P; ++q) {
          const uint64_t ni = q / Q, gp = q % Q;
          const uint64_t src = intra ? ni * Q + md(static_cast<int64_t>(gp) - sgn * static_cast<int64_t>(z * rx), Q)
                                     : md(static_cast<int64_t>(ni) - sgn * static_cast<int64_t>(z * rx), N) * Q + gp;
          for (uint64_t i : pos) R[q][i] = old[src][i];
        }
      }
  };
  phase(Q, in.r1, true);
  for (uint64_t p = 0; p < P; ++p) {
    const uint64_t ni = p / Q, gp = p % Q;
    std::vector<uint32_t> S(P), R2(P);
    for (uint64_t i = 0; i < N; ++i)
      for (uint64_t j = 0; j < Q; ++j) S[i * Q + j] = R[p][i * Q + (gp + Q - j) % Q];
    for (uint64_t k = 0; k < N; ++k) {
      const uint64_t G = in.paper_literal ? md(static_cast<int64_t>(k) - static_cast<int64_t>(ni), N) : (ni + k) % N;
      for (uint64_t j = 0; j < Q; ++j) R2[k * Q + j] = S[G * Q + j];
    }
    R[p] = R2;
  }
  phase(N, in.r2, false);
  Naive out;
  out.final.resize(P * P);
  for (uint64_t p = 0; p < P; ++p)
    for (uint64_t k = 0; k < N; ++k)
      for (uint64_t j = 0; j < Q; ++j)
        out.final[p * P + k * Q + j] = R[p][md(static_cast<int64_t>(p / Q) - static_cast<int64_t>(k), N) * Q + j];
  return out;
}

// The smallest (rank, index) whose final token is wrong.
struct Wrong {
  uint64_t rank, index;
  uint32_t actual;
};
std::optional<Wrong> first_wrong(const std::vector<uint32_t>& final, uint64_t P) {
  for (uint64_t q = 0; q < P; ++q)
    for (uint64_t i = 0; i < P; ++i)
      if (final[q * P + i] != i * P + q) return Wrong{q, i, final[q * P + i]};
  return std::nullopt;
}

void expect_final_counterexample(const Verdict& v, uint64_t P, const Wrong& w, int final_step) {
  ASSERT_EQ(v.status, Status::violated);
  ASSERT_TRUE(v.counterexample);
  const Counterexample& c = *v.counterexample;
  EXPECT_EQ(c.p, P);
  EXPECT_EQ(c.rank, static_cast<Rank>(w.rank));
  EXPECT_EQ(c.block, static_cast<Block>(w.index));
  EXPECT_EQ(c.step, final_step);
  EXPECT_EQ(c.expected, a2a::token_name(static_cast<uint32_t>(w.index * P + w.rank), P));
  EXPECT_EQ(c.actual, a2a::token_name(w.actual, P));
}

// ---- delivery and the formulas hold ----

TEST(AlltoallDelivery, TraHoldsForEveryPAndRadixUpTo64) {
  for (uint64_t P = 2; P <= 64; ++P)
    for (uint64_t r = 2; r <= P; ++r) {
      const a2a::Simulation s = a2a::simulate(tra(P, r));
      ASSERT_EQ(s.delivery.status, Status::holds) << "P=" << P << " r=" << r;
      ASSERT_EQ(s.delivery.checks, P * P + s.K()) << "P=" << P << " r=" << r;
      const Verdict f = tra_formulas(s);
      ASSERT_EQ(f.status, Status::holds) << "P=" << P << " r=" << r << " " << f.counterexample->message;
      // the counting path without data gives the same counts
      const a2a::PhaseCounts c = a2a::count_phase(P, r);
      ASSERT_EQ(c.per_round, s.phases[0].per_round);
      ASSERT_EQ(c.K, a2a::count_totals(P, r).K);
      ASSERT_EQ(c.D, a2a::count_totals(P, r).D);
    }
}

TEST(AlltoallDelivery, OneProcessIsTrivial) {
  const a2a::Simulation s = a2a::simulate(tra(1, 2));
  EXPECT_EQ(s.delivery.status, Status::holds);
  EXPECT_EQ(s.K(), 0u);
  EXPECT_EQ(tra_formulas(s).status, Status::skipped);
}

TEST(AlltoallDelivery, Tra2IntendedHoldsForEveryShapeAndRadices) {
  for (uint64_t P = 1; P <= 36; ++P)
    for (uint64_t Q = 1; Q <= P; ++Q) {
      if (P % Q) continue;
      const uint64_t N = P / Q;
      for (uint64_t r1 = 2; r1 <= std::max<uint64_t>(Q, 2); ++r1)
        for (uint64_t r2 = 2; r2 <= std::max<uint64_t>(N, 2); ++r2) {
          const Instance in = tra2(P, Q, r1, r2);
          const a2a::Simulation s = a2a::simulate(in);
          ASSERT_EQ(s.delivery.status, Status::holds) << in.describe();
          ASSERT_EQ(tra_formulas(s).status, P < 2 ? Status::skipped : Status::holds) << in.describe();
          const a2a::Simulation lit = a2a::simulate(tra2(P, Q, r1, r2, true), true, {}, true);
          // Printed rules: the intra-node direction is only harmless for Q <= 2,
          // the inter-node shift and direction for N <= 2.
          ASSERT_EQ(lit.delivery.status, Q <= 2 && N <= 2 ? Status::holds : Status::violated) << in.describe();
          // the same K and D as the intended reading (the same block sets move)
          ASSERT_EQ(lit.K(), s.K());
          ASSERT_EQ(lit.D(), s.D());
          if (P <= 16) {
            const Naive n = naive_tra2(tra2(P, Q, r1, r2, true));
            ASSERT_EQ(n.final, lit.final_buffer) << in.describe();
          }
        }
    }
}

TEST(AlltoallDelivery, PositionMajorEqualsNaiveRankMajor) {
  for (uint64_t P = 2; P <= 12; ++P)
    for (uint64_t r = 2; r <= P; ++r) {
      const a2a::Simulation s = a2a::simulate(tra(P, r), true, {}, true);
      const Naive n = naive_tra(P, r, {});
      ASSERT_FALSE(n.unmatched);
      ASSERT_EQ(n.final, s.final_buffer) << "P=" << P << " r=" << r;
      for (uint64_t Q = 1; Q <= P; ++Q)
        if (P % Q == 0 && r <= std::max<uint64_t>(Q, 2) && r <= std::max<uint64_t>(P / Q, 2)) {
          const Instance in = tra2(P, Q, r, r);
          ASSERT_EQ(naive_tra2(in).final, a2a::simulate(in, true, {}, true).final_buffer) << in.describe();
        }
    }
}

// ---- hand-computed K and D ----

TEST(AlltoallDelivery, Figure2NineProcessesRadixThree) {
  const a2a::Simulation s = a2a::simulate(tra(9, 3));
  EXPECT_EQ(s.delivery.status, Status::holds);
  EXPECT_EQ(s.K(), 4u);
  EXPECT_EQ(s.D(), 12u);
  EXPECT_EQ(s.phases[0].per_round, (std::vector<uint64_t>{3, 3, 3, 3}));
  EXPECT_EQ(s.delivery.stats.at("D_per_round"), "x0: 3*2 | x1: 3*2");
  const Verdict f = tra_formulas(s);
  EXPECT_EQ(f.status, Status::holds);
  EXPECT_EQ(f.stats.at("K_source"), "Prop. 1");
  EXPECT_EQ(f.stats.at("propositions_histogram"), "1:1 2:1 3:0 4:0");
}

TEST(AlltoallDelivery, Figure3ElevenProcessesRadixThree) {
  // Fig. 3: w = 3; rounds (0,1) (0,2) (1,1) (1,2) (2,1) send {1,4,7,10},
  // {2,5,8}, {3,4,5}, {6,7,8}, {9,10}; (2,2) would need 18 < 11: empty.
  const a2a::Simulation s = a2a::simulate(tra(11, 3));
  EXPECT_EQ(s.delivery.status, Status::holds);
  EXPECT_EQ(s.K(), 5u);
  EXPECT_EQ(s.D(), 15u);
  EXPECT_EQ(s.phases[0].per_round, (std::vector<uint64_t>{4, 3, 3, 3, 2, 0}));
  const Verdict f = tra_formulas(s);
  EXPECT_EQ(f.status, Status::holds);
  EXPECT_EQ(f.stats.at("K_source"), "Prop. 3");
  EXPECT_EQ(f.stats.at("claimed_K"), "5");  // 3*2 - floor((27 - 11)/9)
  EXPECT_EQ(f.stats.at("claimed_D"), "15");
  EXPECT_EQ(f.stats.at("propositions_histogram"), "1:0 2:0 3:1 4:1");
}

TEST(AlltoallDelivery, SectionIIIBSixteenThousandProcesses) {
  // Counted without data here (1 GiB of tokens: tests/slow moves them).
  const a2a::PhaseCounts c = a2a::count_phase(16384, 128);
  EXPECT_EQ(c.K, 254u);
  EXPECT_EQ(c.D, 32512u);
  EXPECT_EQ(a2a::count_phase(16384, 2).D, 114688u);
  EXPECT_EQ(a2a::count_phase(16384, 16384).K, 16383u);  // Sec. III-B says 16,384
  const a2a::Simulation s = a2a::simulate(tra(16384, 128), false);
  EXPECT_EQ(s.delivery.status, Status::skipped);
  EXPECT_EQ(tra_formulas(s).status, Status::holds);
}

// ---- mutations: the checker fails, at the right place ----

struct Mutation {
  const char* name;
  Rules rules;
};

std::vector<Mutation> mutations() {
  std::vector<Mutation> m;
  Rules r;
  r.rotation_sign = -1;
  m.push_back({"rotation R[i] = S[(p - i) % P]", r});
  r = {};
  r.rotation_offset = 1;
  m.push_back({"rotation off by one", r});
  r = {};
  r.send_sign = -1;
  m.push_back({"send to p - z r^x (receive rule unchanged)", r});
  r = {};
  r.send_sign = -1;
  r.recv_sign = +1;
  m.push_back({"mirrored direction", r});
  r = {};
  r.skip_final_rotation = true;
  m.push_back({"no final rotation", r});
  r = {};
  r.final_sign = +1;
  m.push_back({"final R[i] = R[(p + i) % P]", r});
  return m;
}

TEST(AlltoallDeliveryMutation, EveryBrokenRuleFailsWhereTheNaiveSimulationSays) {
  for (const Mutation& mu : mutations()) {
    uint64_t instances = 0, failed = 0;
    for (uint64_t P = 3; P <= 12; ++P)
      for (uint64_t r = 2; r <= P; ++r) {
        ++instances;
        const a2a::Simulation s = a2a::simulate(tra(P, r), true, mu.rules, true);
        const Naive n = naive_tra(P, r, mu.rules);
        failed += s.delivery.status == Status::violated;
        if (n.unmatched) {
          ASSERT_EQ(s.delivery.status, Status::violated) << mu.name << " P=" << P << " r=" << r;
          ASSERT_NE(s.delivery.counterexample->message.find("do not pair up"), std::string::npos);
          continue;
        }
        ASSERT_EQ(n.final, s.final_buffer) << mu.name << " P=" << P << " r=" << r;
        const auto w = first_wrong(n.final, P);
        if (!w) {
          ASSERT_EQ(s.delivery.status, Status::holds) << mu.name << " P=" << P << " r=" << r;
          continue;
        }
        expect_final_counterexample(s.delivery, P, *w, static_cast<int>(s.phases[0].per_round.size()));
      }
    // every mutation is caught on every instance (P >= 3)
    EXPECT_EQ(failed, instances) << mu.name;
  }
}

// Rank 0's P tokens (every rank's by translation) against the P x P
// simulation: the same verdict, counts, counterexample and stats, for every
// P <= 40 and radix, on the correct rules and on every broken rule the
// rank-0 path takes (the others run the P x P simulation: checked too).
TEST(AlltoallDeliveryRankZero, EqualsEveryRankForEveryRuleRadixAndP) {
  std::vector<Mutation> all = mutations();
  all.insert(all.begin(), Mutation{"the text's rules", Rules{}});
  // Rotations that are not permutations: tokens duplicated and lost.
  for (int sign : {0, 2}) {
    Rules r;
    r.rotation_sign = sign;
    all.push_back({sign ? "rotation R[i] = S[(p + 2i) % P]" : "rotation R[i] = S[p]", r});
  }
  uint64_t compared = 0, violated = 0;
  for (const Mutation& mu : all)
    for (uint64_t P = 1; P <= 40; ++P)
      for (uint64_t r = 2; r <= std::max<uint64_t>(P, 2); ++r) {
        Rules every = mu.rules;
        every.every_rank = true;
        const a2a::Simulation z = a2a::simulate(tra(P, r), true, mu.rules), e = a2a::simulate(tra(P, r), true, every);
        const std::string what = std::string(mu.name) + " P=" + std::to_string(P) + " r=" + std::to_string(r);
        const bool rank_zero = mu.rules.final_sign < 0 && !mu.rules.skip_final_rotation;
        EXPECT_EQ(z.delivery.mode != e.delivery.mode, rank_zero) << what;
        test::expect_same_verdict(z.delivery, e.delivery, what);
        EXPECT_EQ(z.delivery.stats, e.delivery.stats) << what;
        ++compared;
        violated += z.delivery.status == Status::violated;
      }
  EXPECT_GT(compared, 7000u);
  EXPECT_GT(violated, 3000u);
}

// Beyond the P x P budget (2^28 tokens, P > 16384) rank 0 still decides.
TEST(AlltoallDeliveryRankZero, DecidesBeyondThePByPBudget) {
  const a2a::Simulation s = a2a::simulate(tra(20000, 142), true);
  EXPECT_EQ(s.delivery.status, Status::holds);
  EXPECT_EQ(s.delivery.checks, 20000u * 20000u + s.phases[0].K);
  Rules broken;
  broken.rotation_offset = 1;
  const a2a::Simulation b = a2a::simulate(tra(20000, 142), true, broken);
  EXPECT_EQ(b.delivery.status, Status::violated);
  EXPECT_EQ(b.delivery.violations % 20000, 0u);
}

TEST(AlltoallDeliveryMutation, WrongRotationKeepsSourcesButMisroutesBlocks) {
  // R[i] = S[(p - i) % P], P = 3, r = 2: position i travels i ranks, so rank
  // q ends with S_i[2i - q] at R[i]: the right source rank for every i (a
  // check of source ranks alone passes), the wrong block for i != q.
  Rules rules;
  rules.rotation_sign = -1;
  const a2a::Simulation s = a2a::simulate(tra(3, 2), true, rules, true);
  for (uint64_t q = 0; q < 3; ++q)
    for (uint64_t i = 0; i < 3; ++i) EXPECT_EQ(s.final_buffer[q * 3 + i] / 3, i);
  expect_final_counterexample(s.delivery, 3, Wrong{0, 1, 1 * 3 + 2}, 2);  // rank 0 holds S_1[2], wants S_1[0]
  EXPECT_EQ(s.delivery.violations, 6u);
  EXPECT_EQ(s.delivery.stats.at("lost_tokens"), "0");  // every token is somewhere, in the wrong place
  EXPECT_EQ(s.delivery.stats.at("duplicated_tokens"), "0");
  // the same for every P: sources right, delivery refuted
  for (uint64_t P = 3; P <= 40; ++P) {
    const a2a::Simulation t = a2a::simulate(tra(P, 3 <= P ? 3 : 2), true, rules, true);
    for (uint64_t c = 0; c < P * P; ++c) ASSERT_EQ(t.final_buffer[c] / P, c % P);
    ASSERT_EQ(t.delivery.status, Status::violated);
  }
}

TEST(AlltoallDeliveryMutation, MissingFinalRotationKeepsBlockIndicesButNotSources) {
  // Without step 3, R[i] of rank q holds S_(q-i)[q]: every block index is q
  // (a check of block indices alone passes), the source is wrong for i != 0.
  Rules rules;
  rules.skip_final_rotation = true;
  const a2a::Simulation s = a2a::simulate(tra(3, 2), true, rules, true);
  for (uint64_t q = 0; q < 3; ++q)
    for (uint64_t i = 0; i < 3; ++i) EXPECT_EQ(s.final_buffer[q * 3 + i] % 3, q);
  expect_final_counterexample(s.delivery, 3, Wrong{0, 1, 2 * 3 + 0}, 2);  // S_2[0] instead of S_1[0]
}

TEST(AlltoallDeliveryMutation, WrongSendDirectionIsAnUnmatchedRound) {
  // send to p - z r^x while receiving from p - z r^x: P = 3, r = 2, round
  // (0, 1) = step 0: rank 0 receives from rank 2, which sends to rank 1.
  Rules rules;
  rules.send_sign = -1;
  const a2a::Simulation s = a2a::simulate(tra(3, 2), true, rules);
  ASSERT_EQ(s.delivery.status, Status::violated);
  const Counterexample& c = *s.delivery.counterexample;
  EXPECT_EQ(c.p, 3u);
  EXPECT_EQ(c.rank, Rank{0});
  EXPECT_EQ(c.step, 0);
  EXPECT_EQ(c.block, Block{1});
  EXPECT_EQ(c.peer, Rank{2});
  EXPECT_EQ(c.actual, "rank 2 sends to rank 1");
  EXPECT_EQ(s.K(), 2u);  // counting goes on
  // P = 2: p - 1 = p + 1, the mutation is harmless and not reported
  EXPECT_EQ(a2a::simulate(tra(2, 2), true, rules).delivery.status, Status::holds);
}

TEST(AlltoallDeliveryMutation, PaperLiteralTra2FailsAtTheSmallestInstance) {
  // P = 3 with the registry default Q = 1 (N = 3, r2 = 2).
  const auto in = a2a::resolve(test::registered_variant("tra2", "paper-literal"), InstanceParams{3});
  ASSERT_TRUE(in);
  EXPECT_EQ(in->q, 1u);
  const a2a::Simulation s = a2a::simulate(*in, true, {}, true);
  const auto w = first_wrong(naive_tra2(*in).final, 3);
  ASSERT_TRUE(w);
  expect_final_counterexample(s.delivery, 3, *w, 2);
  // the intra-node direction alone: Q = 3, N = 1
  const a2a::Simulation q3 = a2a::simulate(tra2(3, 3, 2, 2, true));
  EXPECT_EQ(q3.delivery.status, Status::violated);
}

TEST(TraFormulas, DisagreeingCountsFail) {
  a2a::Simulation s = a2a::simulate(tra(11, 3));
  s.phases[0].per_round[1] += 1;  // round (0, 2)
  s.phases[0].D += 1;
  const Verdict f = tra_formulas(s);
  ASSERT_EQ(f.status, Status::violated);
  EXPECT_EQ(f.violations, 2u);  // h(0, 2) and the sum
  // the minimal one has no step (the total), then the round
  EXPECT_FALSE(f.counterexample->step);
  EXPECT_EQ(f.counterexample->expected, "Prop. 4 D = sum h = 15");
  EXPECT_EQ(f.counterexample->actual, "16 measured");
  EXPECT_NE(f.counterexample->message.find("P=11 r=3"), std::string::npos);

  a2a::Simulation k = a2a::simulate(tra(9, 3));
  k.phases[0].K = 3;
  const Verdict g = tra_formulas(k);
  ASSERT_EQ(g.status, Status::violated);
  EXPECT_EQ(g.counterexample->expected, "Prop. 1 K = w(r-1) = 4");
}

TEST(TraFormulas, PrintedFormulasAsPrinted) {
  EXPECT_EQ(a2a::prop1_K(16384, 128), 254u);
  EXPECT_EQ(a2a::prop2_D(16384, 128), 32512u);
  EXPECT_EQ(a2a::prop2_D(16384, 2), 114688u);
  EXPECT_FALSE(a2a::prop1_K(16, 16));  // stated for r < P
  EXPECT_EQ(a2a::prop2_D(16, 16), 15u);
  EXPECT_FALSE(a2a::prop3_K(16, 16));
  EXPECT_EQ(a2a::prop3_K(11, 3), 5u);
  // Proof 4's worked values for P = 11, r = 3
  EXPECT_EQ(a2a::prop4_h(11, 3, 0, 1), 4u);  // lgc = 2, t = 1 > 0, floor(t / 1) = 1: lc + 1
  EXPECT_EQ(a2a::prop4_h(11, 3, 1, 1), 3u);  // t = 0: lc = 3
  EXPECT_EQ(a2a::prop4_h(11, 3, 2, 1), 2u);  // lgc = 11, t = 2, t % 9 = 2
  for (uint64_t p = 2; p <= 300; ++p)
    for (uint64_t r = 2; r <= p; ++r) ASSERT_EQ(a2a::prop4_D(p, r), a2a::prop4_D_fast(p, r)) << p << " " << r;
  // Sec. IV, K1 with P as printed vs with Q: P = 4, Q = 2, r1 = 2
  EXPECT_EQ(a2a::tra2_rounds_formula(2, 2, 4), 3);
  EXPECT_EQ(a2a::tra2_rounds_formula(2, 2, 2), 1);
}

TEST(TraFormulas, Tra2JudgesTheQAndNReadingAndReportsThePrintedOne) {
  const auto in = a2a::resolve(test::registered_variant("tra2", "tra2"), InstanceParams{4});
  ASSERT_TRUE(in);
  EXPECT_EQ(in->q, 2u);
  const Verdict f = tra_formulas(a2a::simulate(*in));
  EXPECT_EQ(f.status, Status::holds);
  EXPECT_EQ(f.stats.at("claimed_K1"), "1");
  EXPECT_EQ(f.stats.at("printed_K1"), "3");
  EXPECT_EQ(f.stats.at("printed_K2"), "3");
  EXPECT_EQ(f.stats.at("printed_formula_disagrees_at"),
            "P=4 Q=2 N=2 r1=2 r2=2: K1 printed (with P) 3 vs measured 1; K2 printed (with P) 3 vs measured 1");
  EXPECT_EQ(f.stats.at("max_printed_formula_disagreements"), "2");
  EXPECT_EQ(f.stats.at("same_rounds_as_tra"), "K1 + K2 = 2, TRA(P, r=2) K = 2");
  // N = P (Q = 1): the printed formula is right
  const Verdict g = tra_formulas(a2a::simulate(tra2(3, 1, 0, 2)));
  EXPECT_EQ(g.stats.at("printed_formula_disagrees_at"), "none");
  // the smallest instance of the default sweep where the print disagrees is P = 4
  for (uint64_t p = 1; p < 4; ++p) {
    const Verdict h = tra_formulas(a2a::simulate(*a2a::resolve(test::registered_variant("tra2", "tra2"), InstanceParams{p}), false));
    if (h.status != Status::skipped) {
      EXPECT_EQ(h.stats.at("printed_formula_disagrees_at"), "none") << p;
    }
  }
}

// ---- agreement with the registry and the generators ----

TEST(AlltoallDelivery, DefaultsAndCountsEqualTheGenerators) {
  const AlgorithmInfo* tra_algo = find_algorithm("tra");
  const AlgorithmInfo* tra2_algo = find_algorithm("tra2");
  ASSERT_TRUE(tra_algo && tra2_algo);
  RankStep rs;
  auto expect_counts = [&](const Schedule& sched, const std::vector<a2a::PhaseCounts>& phases, const std::string& what) {
    std::vector<uint64_t> mine;
    for (const auto& ph : phases)
      for (uint64_t b : ph.per_round)
        if (b) mine.push_back(b);
    ASSERT_EQ(static_cast<size_t>(sched.num_steps()), mine.size()) << what;
    for (int st = 0; st < sched.num_steps(); ++st)
      for (Rank q = 0; q < sched.p(); ++q) {  // every rank sends the same number
        sched.rank_step(q, st, rs);
        uint64_t sent = 0;
        for (const Transfer& t : rs.sends) sent += t.blocks.size();
        ASSERT_EQ(sent, mine[static_cast<size_t>(st)]) << what << " step " << st << " rank " << q;
      }
  };
  for (uint64_t p = 1; p <= 40; ++p) {
    for (const VariantInfo& v : tra_algo->variants) {
      for (uint32_t r : {0u, 2u, 3u, 5u}) {
        InstanceParams ip{p};
        if (v.takes("radix")) ip.radix = r;
        else if (r) continue;
        if (v.violates(ip)) continue;
        const auto in = a2a::resolve(test::registered_variant("tra", v.name), ip);
        ASSERT_TRUE(in) << v.name << " p=" << p;
        auto sched = v.make(ip);
        const auto* t = dynamic_cast<const Tra*>(&translation_direct(*sched));
        ASSERT_TRUE(t);
        if (p >= 2) {
          EXPECT_EQ(t->radix(), in->r) << v.name << " p=" << p << " r=" << r;
        }
        expect_counts(*sched, a2a::simulate(*in, false).phases, v.name + " " + in->describe());
      }
    }
    for (const VariantInfo& v : tra2_algo->variants)
      for (uint32_t q : {0u, 1u, 2u, 4u}) {
        InstanceParams ip{p};
        ip.ppn = q;
        if (v.violates(ip)) continue;
        const auto in = a2a::resolve(test::registered_variant("tra2", v.name), ip);
        ASSERT_TRUE(in) << v.name << " p=" << p;
        EXPECT_EQ(in->paper_literal, v.name == "paper-literal");
        auto sched = v.make(ip);
        const auto* t = dynamic_cast<const Tra2*>(&translation_direct(*sched));  // tra2: wrapped on N x Q
        ASSERT_TRUE(t);
        EXPECT_EQ(t->q(), in->q) << p;
        EXPECT_EQ(t->n(), in->n) << p;
        if (in->q >= 2) {
          EXPECT_EQ(t->r1(), in->r1) << p;
        }
        if (in->n >= 2) {
          EXPECT_EQ(t->r2(), in->r2) << p;
        }
        expect_counts(*sched, a2a::simulate(*in, false).phases, v.name + " " + in->describe());
      }
  }
}

TEST(AlltoallDelivery, DispatchSharesOneSimulationAndNeedsTheVariant) {
  InstanceParams ip{11};
  const auto v = check_family_properties({"alltoall-delivery", "tra-formulas"}, test::registered_variant("tra", "bruck"), ip);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].property, "alltoall-delivery");
  EXPECT_EQ(v[0].status, Status::holds);
  EXPECT_EQ(v[0].stats.at("instance"), "P=11 r=2");
  EXPECT_EQ(v[1].property, "tra-formulas");
  EXPECT_EQ(v[1].status, Status::holds);
  const auto s = check_family_properties({"tra-formulas"}, test::registered_variant("tra", "spread-out"), ip);
  EXPECT_EQ(s[0].stats.at("measured_K"), "10");
  EXPECT_EQ(s[0].stats.at("K_source").rfind("none", 0), 0u);
  const auto lit = check_family_properties({"alltoall-delivery"}, test::registered_variant("tra2", "paper-literal"), InstanceParams{9, 0, 0, 0, 0, 3});
  EXPECT_EQ(lit[0].status, Status::violated);
  EXPECT_THROW(check_family_properties({"tra-formulas"}, test::registered_variant("swing", "bandwidth"), ip), std::invalid_argument);
}

}  // namespace
}  // namespace collcheck
