// Swing known answers (shared/reference/known-answers.md, Swing section;
// swing-nsdi24.txt Eq. 2, Sec. 3.1, Appendix A):
//
//  * rho(s) = 1, -1, 3, -5, 11, -21, 43 and the closed form (1 - (-2)^(s+1))/3;
//  * delta(s) = 1, 1, 3, 5, 11, 21, 43, 85 and (2^(s+1) - (-1)^(s+1))/3 for s <= 40,
//    delta(s) <= 2^s, rho and delta odd (Lemma A.1);
//  * the pi peer table for p = 16 (every row given), pi an involution with
//    parity flip for even p (Lemma A.2);
//  * the blocks rank 0 sends in each reduce-scatter step of the registry's
//    swing/bandwidth schedule for p = 8 and p = 16, read through rank_step;
//  * swing/bandwidth for p = 16 sends 2(p-1) blocks per rank, allgather peers
//    in reverse order; swing/latency peers equal pi for powers of two.
// The 2D-torus answers of the same section have no generator yet (no torus
// schedule in the registry), so they are not tested here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "schedules/registry.hpp"
#include "schedules/swing/swing_math.hpp"

namespace collcheck {
namespace {

using swing::delta;
using swing::pi;
using swing::rho;

std::unique_ptr<Schedule> make(const char* algo, const char* variant, uint64_t p) {
  const AlgorithmInfo* a = find_algorithm(algo);
  if (!a) throw std::logic_error("no algorithm");
  const VariantInfo* v = a->find_variant(variant);
  if (!v) throw std::logic_error("no variant");
  return v->make(InstanceParams{p, 0});
}

TEST(SwingRho, FirstValues) {
  const std::vector<int64_t> want = {1, -1, 3, -5, 11, -21, 43};
  for (size_t s = 0; s < want.size(); ++s) EXPECT_EQ(rho(static_cast<int>(s)), want[s]) << "s = " << s;
}

TEST(SwingRho, SumAndClosedFormUpTo40) {
  int64_t sum = 0, pw = 1;  // pw = (-2)^s
  for (int s = 0; s <= 40; ++s) {
    sum += pw;
    EXPECT_EQ(rho(s), sum) << "s = " << s;
    // (1 - (-2)^(s+1)) / 3, with (-2)^(s+1) = -2 * pw
    EXPECT_EQ(rho(s), (1 - (-2 * pw)) / 3) << "s = " << s;
    EXPECT_NE(rho(s) % 2, 0) << "Lemma A.1: rho(s) is odd, s = " << s;
    pw *= -2;
  }
}

TEST(SwingDelta, FirstValues) {
  const std::vector<uint64_t> want = {1, 1, 3, 5, 11, 21, 43, 85};
  for (size_t s = 0; s < want.size(); ++s) EXPECT_EQ(delta(static_cast<int>(s)), want[s]) << "s = " << s;
}

TEST(SwingDelta, ClosedFormAndBoundUpTo40) {
  for (int s = 0; s <= 40; ++s) {
    const int64_t two = int64_t{1} << (s + 1);
    const int64_t sign = (s + 1) % 2 == 0 ? 1 : -1;  // (-1)^(s+1)
    EXPECT_EQ(static_cast<int64_t>(delta(s)), (two - sign) / 3) << "s = " << s;
    EXPECT_EQ((two - sign) % 3, 0) << "closed form must be an integer, s = " << s;
    EXPECT_EQ(static_cast<int64_t>(delta(s)), rho(s) < 0 ? -rho(s) : rho(s));
    EXPECT_LE(delta(s), uint64_t{1} << s) << "delta(s) <= 2^s (Sec. 3.1.1), s = " << s;
    if (s > 1) {
      EXPECT_LT(delta(s), uint64_t{1} << s) << "strictly smaller for s > 1";
    }
    EXPECT_EQ(delta(s) % 2, 1u) << "Lemma A.1: delta(s) is odd";
  }
}

TEST(SwingPi, PeerTableForP16) {
  // known-answers.md: rank -> peers at steps 0..3.
  const std::map<Rank, std::vector<Rank>> table = {
      {0, {1, 15, 3, 11}}, {1, {0, 2, 14, 6}},  {2, {3, 1, 5, 13}},
      {3, {2, 4, 0, 8}},   {5, {4, 6, 2, 10}}, {15, {14, 0, 12, 4}},
  };
  for (const auto& [r, peers] : table)
    for (int s = 0; s < 4; ++s) EXPECT_EQ(pi(r, s, 16), peers[static_cast<size_t>(s)]) << "r = " << r << ", s = " << s;
}

TEST(SwingPi, InvolutionAndParityFlipForEvenP) {
  for (uint64_t p = 2; p <= 64; p += 2)
    for (int s = 0; s < swing::ceil_log2(p); ++s)
      for (Rank r = 0; r < p; ++r) {
        Rank q = pi(r, s, p);
        ASSERT_LT(q, p);
        ASSERT_EQ(pi(q, s, p), r) << "pi must pair ranks: p = " << p << ", s = " << s << ", r = " << r;
        ASSERT_NE(q % 2, r % 2) << "Lemma A.2: even ranks talk to odd ranks";
        ASSERT_EQ(swing::ring_distance(r, q, p), std::min(delta(s) % p, p - delta(s) % p));
      }
}

TEST(SwingPi, LargeStepsReduceModuloP) {
  // rho(40) is about 7e11; the modulo must still land in range.
  for (uint64_t p : {2ull, 6ull, 1000ull, 1ull << 21})
    for (Rank r : {Rank{0}, Rank{1}, static_cast<Rank>(p - 1)}) {
      Rank q = pi(r, 40, p);
      EXPECT_LT(q, p);
      int64_t want = (r % 2 == 0 ? int64_t{r} + rho(40) : int64_t{r} - rho(40)) % static_cast<int64_t>(p);
      if (want < 0) want += static_cast<int64_t>(p);
      EXPECT_EQ(q, static_cast<Rank>(want));
    }
}

// Blocks rank 0 sends at each reduce-scatter step of the registry's schedule.
std::vector<BlockSet> rank0_rs_sends(uint64_t p) {
  auto s = make("swing", "bandwidth", p);
  const int L = swing::ceil_log2(p);
  EXPECT_EQ(s->num_steps(), 2 * L);
  std::vector<BlockSet> out;
  RankStep rs;
  for (int step = 0; step < L; ++step) {
    s->rank_step(0, step, rs);
    EXPECT_EQ(rs.sends.size(), 1u);
    if (rs.sends.empty()) return out;
    EXPECT_EQ(rs.sends[0].peer, pi(0, step, p)) << "step " << step;
    EXPECT_EQ(rs.sends[0].combine, Combine::reduce);
    out.push_back(rs.sends[0].blocks);
  }
  return out;
}

TEST(SwingBandwidth, ReduceScatterBlocksOfRank0ForP8) {
  auto got = rank0_rs_sends(8);
  std::vector<BlockSet> want = {BlockSet::from_blocks({1, 2, 5, 6}), BlockSet::from_blocks({4, 7}),
                                BlockSet::from_blocks({3})};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i], want[i]) << "step " << i << ": got " << got[i].to_string() << ", want " << want[i].to_string();
}

TEST(SwingBandwidth, ReduceScatterBlocksOfRank0ForP16) {
  auto got = rank0_rs_sends(16);
  std::vector<BlockSet> want = {BlockSet::from_blocks({1, 2, 5, 6, 9, 10, 13, 14}), BlockSet::from_blocks({4, 7, 12, 15}),
                                BlockSet::from_blocks({3, 8}), BlockSet::from_blocks({11})};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i], want[i]) << "step " << i << ": got " << got[i].to_string() << ", want " << want[i].to_string();
}

TEST(SwingBandwidth, P16SendsTwoTimesPMinusOneBlocksPerRankWithReversedAllgather) {
  const uint64_t p = 16;
  const int L = 4;
  auto s = make("swing", "bandwidth", p);
  ASSERT_EQ(s->num_steps(), 2 * L);
  RankStep rs;
  for (Rank r = 0; r < p; ++r) {
    uint64_t sent = 0, received = 0, rs_sent = 0;
    for (int step = 0; step < 2 * L; ++step) {
      s->rank_step(r, step, rs);
      ASSERT_EQ(rs.sends.size(), 1u);
      ASSERT_EQ(rs.recvs.size(), 1u);
      // Reduce-scatter steps use pi(r, s); allgather step L+j uses pi(r, L-1-j).
      const int t = step < L ? step : 2 * L - 1 - step;
      EXPECT_EQ(rs.sends[0].peer, pi(r, t, p)) << "r = " << r << ", step " << step;
      EXPECT_EQ(rs.recvs[0].peer, pi(r, t, p));
      EXPECT_EQ(rs.sends[0].combine, step < L ? Combine::reduce : Combine::copy);
      // Sent halves each reduce-scatter step: p/2, p/4, ...; the allgather mirrors it.
      EXPECT_EQ(rs.sends[0].blocks.size(), p >> (t + 1)) << "r = " << r << ", step " << step;
      sent += rs.sends[0].blocks.size();
      received += rs.recvs[0].blocks.size();
      if (step < L) rs_sent += rs.sends[0].blocks.size();
    }
    EXPECT_EQ(sent, 2 * (p - 1)) << "rank " << r;
    EXPECT_EQ(received, 2 * (p - 1)) << "rank " << r;
    EXPECT_EQ(rs_sent, p - 1) << "rank " << r;
  }
}

TEST(SwingLatency, PeersEqualPiForPowersOfTwo) {
  for (uint64_t p : {2ull, 4ull, 8ull, 16ull, 64ull, 1024ull}) {
    auto s = make("swing", "latency", p);
    const int L = swing::ceil_log2(p);
    ASSERT_EQ(s->num_steps(), L) << "p = " << p << " is a power of two: no fold steps";
    RankStep rs;
    for (Rank r = 0; r < p; ++r)
      for (int step = 0; step < L; ++step) {
        s->rank_step(r, step, rs);
        ASSERT_EQ(rs.sends.size(), 1u);
        ASSERT_EQ(rs.recvs.size(), 1u);
        ASSERT_EQ(rs.sends[0].peer, pi(r, step, p)) << "p = " << p << ", r = " << r << ", step " << step;
        ASSERT_EQ(rs.recvs[0].peer, pi(r, step, p));
        ASSERT_EQ(rs.sends[0].blocks, BlockSet::single(0)) << "whole vector = block 0";
        ASSERT_EQ(rs.sends[0].combine, Combine::reduce);
      }
  }
}

TEST(SwingLatency, P16PeersMatchTheKnownAnswerTable) {
  auto s = make("swing", "latency", 16);
  const std::map<Rank, std::vector<Rank>> table = {
      {0, {1, 15, 3, 11}}, {1, {0, 2, 14, 6}},  {2, {3, 1, 5, 13}},
      {3, {2, 4, 0, 8}},   {5, {4, 6, 2, 10}}, {15, {14, 0, 12, 4}},
  };
  RankStep rs;
  for (const auto& [r, peers] : table)
    for (int step = 0; step < 4; ++step) {
      s->rank_step(r, step, rs);
      ASSERT_EQ(rs.sends.size(), 1u);
      EXPECT_EQ(rs.sends[0].peer, peers[static_cast<size_t>(step)]) << "r = " << r << ", step " << step;
    }
}

}  // namespace
}  // namespace collcheck
