// The black-box payloads (runtime/blackbox/payloads.hpp) without MPI: each
// collective is simulated here from every rank's send values by its MPI
// definition (sums, the rank-order product, the data movement), and
//   * the correct result is accepted for every collective, payload, p in
//     1..9 and count in {0, 1, 5, 7} (not multiples of most p);
//   * a contribution dropped, one counted twice, the operands reversed, a
//     block delivered from the wrong source, an untouched element: each is
//     refuted with the message that names it.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/blackbox/payloads.hpp"
#include "runtime/blackbox/power_sums.hpp"

namespace collcheck::runtime::blackbox {
namespace {

// What MPI defines rank `me` to receive, computed from the send values.
std::vector<double> simulate(const RunSpec& r, int me) {
  const Layout l = layout(r.coll, r.payload, r.p, r.count, me);
  std::vector<std::vector<double>> send(r.p);
  for (uint64_t q = 0; q < r.p; ++q) send[q] = send_values(r, static_cast<int>(q));
  std::vector<double> out(l.recv * l.width, kSentinel);
  auto offset = [&]() -> uint64_t {
    if (r.coll == Coll::reduce_scatter_block) return static_cast<uint64_t>(me) * r.count;
    if (r.coll == Coll::reduce_scatter) {
      uint64_t at = 0;
      for (int i = 0; i < me; ++i) at += static_cast<uint64_t>(l.recvcounts[static_cast<size_t>(i)]);
      return at;
    }
    return 0;
  };
  if (reduces(r.coll)) {
    if (r.coll == Coll::reduce && me != r.root) return out;
    const uint64_t off = offset();
    for (uint64_t i = 0; i < l.recv; ++i) {
      const uint64_t j = off + i;
      if (r.payload == Payload::noncommutative) {
        int64_t acc[4];
        for (int k = 0; k < 4; ++k) acc[k] = static_cast<int64_t>(send[0][j * 4 + static_cast<uint64_t>(k)]);
        for (uint64_t q = 1; q < r.p; ++q) {  // acc = acc M_q, in rank order
          int64_t m[4];
          for (int k = 0; k < 4; ++k) m[k] = static_cast<int64_t>(send[q][j * 4 + static_cast<uint64_t>(k)]);
          matrix_product(acc, m, 1);
          std::copy(m, m + 4, acc);
        }
        for (int k = 0; k < 4; ++k) out[i * 4 + static_cast<uint64_t>(k)] = static_cast<double>(acc[k]);
      } else if (r.payload == Payload::ordered) {  // acc = x_0 ++ x_1 ++ .. in rank order
        std::vector<int64_t> acc(l.width), mine(l.width);
        for (uint64_t k = 0; k < l.width; ++k) acc[k] = static_cast<int64_t>(send[0][j * l.width + k]);
        for (uint64_t q = 1; q < r.p; ++q) {
          for (uint64_t k = 0; k < l.width; ++k) mine[k] = static_cast<int64_t>(send[q][j * l.width + k]);
          concatenate(acc.data(), mine.data(), 1, l.width);  // mine = acc ++ mine
          acc = mine;
        }
        for (uint64_t k = 0; k < l.width; ++k) out[i * l.width + k] = static_cast<double>(acc[k]);
      } else if (r.payload == Payload::power_sums) {  // the sum mod Q
        std::vector<int64_t> acc(l.width, 0), mine(l.width);
        for (uint64_t q = 0; q < r.p; ++q) {
          for (uint64_t k = 0; k < l.width; ++k) mine[k] = static_cast<int64_t>(send[q][j * l.width + k]);
          power_sums::add_mod(mine.data(), acc.data(), l.width);
        }
        for (uint64_t k = 0; k < l.width; ++k) out[i * l.width + k] = static_cast<double>(acc[k]);
      } else {
        for (uint64_t k = 0; k < l.width; ++k) {
          double s = 0;
          for (uint64_t q = 0; q < r.p; ++q) s += send[q][j * l.width + k];
          out[i * l.width + k] = s;
        }
      }
    }
    return out;
  }
  if (r.coll == Coll::allgatherv || r.coll == Coll::alltoallv) {  // runs packed in rank order
    uint64_t at = 0;
    for (uint64_t s = 0; s < r.p; ++s) {
      uint64_t from = 0, n = allgatherv_count(r.count, s);
      if (r.coll == Coll::alltoallv) {
        for (uint64_t d = 0; d < static_cast<uint64_t>(me); ++d) from += alltoallv_count(r.count, s, d);
        n = alltoallv_count(r.count, s, static_cast<uint64_t>(me));
      }
      for (uint64_t k = 0; k < n; ++k) out[at++] = send[s][from + k];
    }
    return out;
  }
  for (uint64_t i = 0; i < l.recv; ++i) {
    if (r.coll == Coll::bcast) out[i] = send[static_cast<uint64_t>(r.root)][i];
    if (r.coll == Coll::allgather) out[i] = send[i / r.count][i % r.count];
    if (r.coll == Coll::alltoall) out[i] = send[i / r.count][static_cast<uint64_t>(me) * r.count + i % r.count];
  }
  return out;
}

TEST(Payloads, CorrectResultsAreAcceptedEverywhere) {
  int judged = 0;
  for (Coll c : all_colls())
    for (Payload pl : payloads_for(c))
      for (uint64_t p = 1; p <= 9; ++p)
        for (uint64_t count : {0u, 1u, 5u, 7u})
          for (int run = 0; run < runs(pl, p); ++run) {
            RunSpec r{c, pl, p, count, static_cast<int>(p / 2), run, 42, DType::int64};
            for (int me = 0; me < static_cast<int>(p); ++me) {
              const auto d = judge(r, me, simulate(r, me));
              EXPECT_FALSE(d) << to_string(c) << " " << to_string(pl) << " p=" << p << " count=" << count << ": " << *d;
              ++judged;
            }
          }
  EXPECT_GT(judged, 3000);
}

TEST(Payloads, OneHotNamesTheLostAndTheDoubledContribution) {
  RunSpec r{Coll::allreduce, Payload::one_hot, 6, 7, 0, 3, 1, DType::int64};
  std::vector<double> got = simulate(r, 2);
  got[5] = 0;
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 5: rank 3's contribution lost (one-hot run 3)");
  got[5] = 2;
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 5: rank 3's contribution counted 2 times (one-hot run 3)");
  got[5] = kSentinel;
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 5: holds the sentinel (untouched), expected 1 (one-hot run 3)");
  r.dtype = DType::float32;
  got[5] = std::nan("");
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 5: holds NaN, expected 1 (one-hot run 3)");
}

TEST(Payloads, CountersNameTheRank) {
  RunSpec r{Coll::reduce_scatter, Payload::counters, 4, 7, 0, 0, 1, DType::int64};
  std::vector<double> got = simulate(r, 1);
  ASSERT_EQ(got.size(), 2u * 4u);  // 7 over 4 ranks: rank 1 gets 2 elements of 4 counters
  got[1 * 4 + 2] = 2;
  EXPECT_EQ(judge(r, 1, got), "rank 1, element 1: rank 2's contribution counted 2 times (counters)");
  got[1 * 4 + 2] = 0;
  EXPECT_EQ(judge(r, 1, got), "rank 1, element 1: rank 2's contribution lost (counters)");
}

TEST(Payloads, CountersOpKeepsTheCountAndNamesTheRank) {
  RunSpec r{Coll::allreduce, Payload::counters_op, 3, 5, 0, 0, 1, DType::int64};
  EXPECT_EQ(layout(r.coll, r.payload, 3, 5, 0).send, 5u);  // the caller's count, p counters each
  std::vector<double> got = simulate(r, 0);
  got[4 * 3 + 1] = 2;
  EXPECT_EQ(judge(r, 0, got), "rank 0, element 4: rank 1's contribution counted 2 times (counters-op)");
}

// The payload that scales: one call, 8 values per element, at p = 4096 (a
// result built from the contributions with one of them lost, or doubled).
TEST(Payloads, PowerSumsNameALostAndADoubledContributionAtP4096) {
  RunSpec r{Coll::allreduce, Payload::power_sums, 4096, 3, 0, 0, 9, DType::int64};
  constexpr size_t W = power_sums::kValues;
  EXPECT_EQ(layout(r.coll, r.payload, r.p, r.count, 0).width, W);
  const std::vector<double> right = simulate(r, 17);
  EXPECT_FALSE(judge(r, 17, right));
  auto with = [&](uint64_t rank, int times) {  // element 2 with rank's contribution `times` times
    std::vector<double> got = right;
    std::vector<int64_t> acc(W), mine(W);
    for (size_t k = 0; k < W; ++k) acc[k] = static_cast<int64_t>(got[2 * W + k]);
    const std::vector<double> theirs = send_values(r, static_cast<int>(rank));
    for (int t = 1; t != times; t += times > 1 ? 1 : -1) {
      for (size_t k = 0; k < W; ++k) {
        const int64_t v = static_cast<int64_t>(theirs[2 * W + k]);
        mine[k] = times > 1 ? v : static_cast<int64_t>(power_sums::kQ) - v;
      }
      power_sums::add_mod(mine.data(), acc.data(), W);
    }
    for (size_t k = 0; k < W; ++k) got[2 * W + k] = static_cast<double>(acc[k]);
    return got;
  };
  EXPECT_EQ(judge(r, 17, with(4000, 0)), "rank 17, element 2: rank 4000's contribution lost (power-sums)");
  EXPECT_EQ(judge(r, 17, with(5, 2)), "rank 17, element 2: rank 5's contribution counted 2 times (power-sums)");
  std::vector<double> untouched = right;
  std::fill(untouched.begin(), untouched.begin() + W, kSentinel);
  EXPECT_EQ(judge(r, 17, untouched), "rank 17, element 0: holds the sentinel (untouched) (power-sums)");
}

TEST(Payloads, TaggedCountersNameTheElementAReducedValueBelongsTo) {
  RunSpec r{Coll::reduce_scatter_block, Payload::tagged_counters, 3, 2, 0, 0, 1, DType::int64};
  EXPECT_EQ(layout(r.coll, r.payload, 3, 2, 0).width, 4u);  // p counters + the tag
  const std::vector<double> in = send_values(r, 1);
  EXPECT_EQ(in[5 * 4 + 1], 1.0);  // element 5: rank 1's counter
  EXPECT_EQ(in[5 * 4 + 3], 6.0);  // and its index + 1
  std::vector<double> got = simulate(r, 2);  // rank 2 gets elements 4 and 5
  EXPECT_EQ(got[0 * 4 + 3], 15.0);           // (4 + 1) x 3 contributions
  EXPECT_FALSE(judge(r, 2, got));
  std::swap(got[3], got[7]);  // element 5's sum stored where element 4's belongs
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 0: holds the sum of element 5's contributions, expected element 4's "
                              "(tagged-counters)");
  got = simulate(r, 2);
  got[1 * 4 + 0] = 2;
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 1: rank 0's contribution counted 2 times (tagged-counters)");
}

TEST(Payloads, NonCommutativeNamesTheReversedOrder) {
  RunSpec r{Coll::allreduce, Payload::noncommutative, 5, 3, 0, 0, 9, DType::int64};
  std::vector<double> got = simulate(r, 0);
  // the product in reverse rank order
  std::vector<std::vector<double>> send(5);
  for (int q = 0; q < 5; ++q) send[static_cast<size_t>(q)] = send_values(r, q);
  int64_t acc[4] = {1, 0, 0, 1};
  for (int q = 0; q < 5; ++q) {  // acc = M_q acc: M_4 .. M_0
    int64_t m[4];
    for (int k = 0; k < 4; ++k) m[k] = static_cast<int64_t>(send[static_cast<size_t>(q)][static_cast<size_t>(4 + k)]);
    matrix_product(m, acc, 1);
  }
  for (int k = 0; k < 4; ++k) got[static_cast<size_t>(4 + k)] = static_cast<double>(acc[k]);
  EXPECT_EQ(judge(r, 0, got), "rank 0, element 1: operands combined in reverse rank order (the result is M_4 .. M_0, "
                              "MPI requires M_0 .. M_4) (noncommutative)");
  got[4] += 1;
  EXPECT_NE(judge(r, 0, got)->find("not the rank-order product M_0 .. M_4: got [["), std::string::npos);
}

// The ordered payload names the exact combining order: reversed, a rank
// twice, a rank missing; the operator itself concatenates in (in, inout)
// order and saturates rather than overflow.
TEST(Payloads, OrderedNamesTheExactCombiningOrder) {
  RunSpec r{Coll::allreduce, Payload::ordered, 3, 2, 0, 0, 1, DType::int64};
  const std::vector<double> right = simulate(r, 1);
  ASSERT_EQ(right.size(), 2u * 7u);
  EXPECT_EQ(std::vector<double>(right.begin(), right.begin() + 4), (std::vector<double>{3, 0, 1, 2}));
  EXPECT_FALSE(judge(r, 1, right));
  auto with = [&](std::vector<double> list) {
    std::vector<double> got = right;
    std::fill(got.begin() + 7, got.end(), 0.0);
    got[7] = static_cast<double>(list.size());
    for (size_t k = 0; k < list.size(); ++k) got[8 + k] = list[k];
    return judge(r, 1, got);
  };
  EXPECT_EQ(with({1, 0, 2}), "rank 1, element 1: operands combined as 1 0 2, expected 0 .. 2 in rank order (ordered)");
  EXPECT_EQ(with({0, 1, 1, 2}),
            "rank 1, element 1: operands combined as 0 1 1 2, expected 0 .. 2 in rank order (rank 1 2 times) (ordered)");
  EXPECT_EQ(with({0, 2}), "rank 1, element 1: operands combined as 0 2, expected 0 .. 2 in rank order (rank 1 missing) (ordered)");
  // The operator: in ++ inout, and saturation past 2p ranks.
  std::vector<int64_t> a{2, 0, 1, 0, 0, 0, 0}, b{1, 2, 0, 0, 0, 0, 0};
  concatenate(a.data(), b.data(), 1, 7);
  EXPECT_EQ(b, (std::vector<int64_t>{3, 0, 1, 2, 0, 0, 0}));
  std::vector<int64_t> full{6, 0, 0, 1, 1, 2, 2}, one{1, 0, 0, 0, 0, 0, 0};
  concatenate(one.data(), full.data(), 1, 7);
  EXPECT_EQ(full[0], 7);
  std::vector<double> over = right;
  over[7] = 7;
  EXPECT_EQ(judge(r, 1, over), "rank 1, element 1: more than 6 operands combined (ordered)");
}

TEST(Payloads, SourceTaggedNamesWhoseElementLanded) {
  RunSpec r{Coll::allgather, Payload::source_tagged, 4, 3, 0, 0, 1, DType::int64};
  std::vector<double> got = simulate(r, 2);
  std::swap(got[3], got[6]);  // rank 1's and rank 2's first elements exchanged
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 3: holds rank 2's element 0, expected rank 1's element 0 (source-tagged)");
  r = {Coll::bcast, Payload::source_tagged, 3, 2, 1, 0, 1, DType::int64};
  got = simulate(r, 0);
  got[1] = kSentinel;
  EXPECT_EQ(judge(r, 0, got), "rank 0, element 1: holds the sentinel (untouched), expected rank 1's element 1 (source-tagged)");
}

TEST(Payloads, VCollectivesHaveZeroUnevenAndAsymmetricCountsAndNameMisplacedRuns) {
  EXPECT_EQ(allgatherv_count(5, 1), 0u);
  EXPECT_EQ(allgatherv_count(5, 2), 7u);
  EXPECT_EQ(alltoallv_count(5, 0, 0), 0u);
  EXPECT_NE(alltoallv_count(5, 0, 1), alltoallv_count(5, 1, 0));  // 6 vs 7
  RunSpec r{Coll::alltoallv, Payload::source_tagged, 4, 2, 0, 0, 1, DType::int64};
  const Layout l = layout(r.coll, r.payload, 4, 2, 2);
  EXPECT_EQ(l.recvcounts, (std::vector<int>{4, 3, 0, 4}));  // c(s, 2) for s = 0..3
  EXPECT_EQ(l.displs, (std::vector<int>{0, 4, 7, 7}));
  std::vector<double> got = simulate(r, 2);
  // rank 0 sends 0, 3, 4, 0 elements and rank 3 sends 0, 3, 4, 0: both runs for rank 2 start at element 3
  std::swap(got[0], got[7]);
  EXPECT_EQ(judge(r, 2, got), "rank 2, element 0: holds rank 3's element 3, expected rank 0's element 3 (source-tagged)");
  r = {Coll::allgatherv, Payload::source_tagged, 3, 2, 0, 0, 1, DType::int64};
  got = simulate(r, 1);
  ASSERT_EQ(got.size(), 2u + 0u + 4u);
  got[2] = kSentinel;
  EXPECT_EQ(judge(r, 1, got), "rank 1, element 2: holds the sentinel (untouched), expected rank 2's element 0 (source-tagged)");
}

TEST(Payloads, FloatTagsAreRefusedWhereNotExact) {
  RunSpec r{Coll::alltoall, Payload::source_tagged, 16, 1 << 17, 0, 0, 1, DType::float32};  // 2^25 tags
  ASSERT_TRUE(representable(r));
  EXPECT_NE(representable(r)->find("float holds integers exactly only up to 16777216"), std::string::npos);
  r.dtype = DType::float64;
  EXPECT_FALSE(representable(r));
  r.dtype = DType::int32;  // 2^25 tags fit; 2^31 do not
  EXPECT_FALSE(representable(r));
  r.count = uint64_t{1} << 27;
  ASSERT_TRUE(representable(r));
  EXPECT_NE(representable(r)->find("int32 holds them only up to 2147483647"), std::string::npos);
}

TEST(Payloads, NamesRoundTrip) {
  for (Coll c : all_colls()) EXPECT_EQ(coll_from_string(to_string(c)), c);
  for (Payload p : {Payload::one_hot, Payload::counters, Payload::counters_op, Payload::tagged_counters,
                    Payload::noncommutative, Payload::ordered, Payload::source_tagged})
    EXPECT_EQ(payload_from_string(to_string(p)), p);
  EXPECT_FALSE(coll_from_string("allsum"));
}

}  // namespace
}  // namespace collcheck::runtime::blackbox
