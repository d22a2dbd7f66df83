// The grouped quotient's innermost loops (properties/flow/wide_kernels.hpp),
// on both paths: the wide one (AVX-512 + GFNI, where the processor has it)
// and the portable one, each against the definition written out bit by bit
// and byte by byte:
//   * count_bits on every length to 40 words, or_bytes_equal at the edges;
//   * reflect_bits at sizes whose runs are long enough for the wide path
//     (eight words and more), every centre;
//   * one reduce step of group ids under a reflection: the final ids and the
//     blocks counted per (receiving, incoming) pair and the block where each
//     pair is first told to the sink, on random ids and
//     random receiving sets, and a sink that stops;
//   * the grouped quotient's verdicts on both paths, equal to the cell
//     quotient's.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/wide_kernels.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

// Runs f once on the portable path and once on the wide path (when the
// processor has it), restoring the default afterwards.
template <class F>
void on_both_paths(F&& f) {
  flow::wide::set_enabled(false);
  f("portable");
  flow::wide::set_enabled(true);
  if (flow::wide::available()) f("wide");
}

uint64_t next(uint64_t& seed) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return seed >> 11;
}

TEST(WideKernels, ThePathInUseIsNamed) {
  flow::wide::set_enabled(false);
  EXPECT_FALSE(flow::wide::enabled());
  flow::wide::set_enabled(true);
  EXPECT_EQ(flow::wide::enabled(), flow::wide::available());
}

TEST(WideKernels, ReflectBitsIsItsDefinitionOnLongRuns) {
  for (uint64_t p : {511u, 512u, 513u, 575u, 640u, 1000u, 1023u, 1024u, 1089u, 2049u}) {
    const size_t W = (p + 63) / 64;
    std::vector<uint64_t> src(W, 0), want(W);
    uint64_t seed = p;
    for (uint64_t x = 0; x < p; ++x)
      if (next(seed) & 1) src[x / 64] |= uint64_t{1} << (x % 64);
    on_both_paths([&](const char* path) {
      std::vector<uint64_t> dst(W);
      for (uint64_t c = 0; c < p; ++c) {
        std::fill(want.begin(), want.end(), 0);
        for (uint64_t y = 0; y < p; ++y) {
          const uint64_t x = (c + p - y) % p;
          if ((src[x / 64] >> (x % 64)) & 1) want[y / 64] |= uint64_t{1} << (y % 64);
        }
        flow::reflect_bits(dst.data(), src.data(), p, c);
        ASSERT_EQ(dst, want) << path << " p=" << p << " c=" << c;
      }
    });
  }
}

TEST(WideKernels, CountBitsIsItsDefinition) {
  uint64_t seed = 7;
  for (size_t W = 0; W <= 40; ++W) {
    std::vector<uint64_t> m(W);
    uint64_t want = 0;
    for (uint64_t& x : m) {
      x = next(seed) * 0x9E3779B97F4A7C15ULL;
      for (int b = 0; b < 64; ++b) want += (x >> b) & 1;
    }
    on_both_paths([&](const char* path) { EXPECT_EQ(flow::wide::count_bits(m.data(), W), want) << path << " W=" << W; });
  }
}

TEST(WideKernels, OrBytesEqualIsItsDefinition) {
  uint64_t seed = 11;
  for (size_t n : {0u, 1u, 63u, 64u, 65u, 127u, 128u, 200u, 1000u}) {
    std::vector<uint8_t> bytes(n);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(next(seed) % 3);
    const size_t W = (n + 63) / 64;
    std::vector<uint64_t> start(W);
    for (uint64_t& x : start) x = next(seed) * 0x9E3779B97F4A7C15ULL;
    for (uint8_t value : {0, 1, 2, 7}) {
      std::vector<uint64_t> want = start;
      for (size_t i = 0; i < n; ++i)
        if (bytes[i] == value) want[i / 64] |= uint64_t{1} << (i % 64);
      on_both_paths([&](const char* path) {
        std::vector<uint64_t> out = start;
        flow::wide::or_bytes_equal(bytes.data(), n, value, out.data());
        EXPECT_EQ(out, want) << path << " n=" << n << " value=" << int{value};
      });
    }
  }
}

// A sink whose pair (d, s) makes id (3d + 5s + 1) mod 251 and that adds up
// the blocks per pair; stops at `stop_at` (d, s) if set.
struct CountingSink final : flow::wide::PairSink {
  std::map<std::pair<int, int>, uint64_t> blocks;
  std::pair<int, int> current{-1, -1};
  std::pair<int, int> stop_at{-1, -1};
  std::map<std::pair<int, int>, uint64_t> first_block;
  int next_pair(uint8_t d, uint8_t s, uint64_t block, uint64_t previous_run) override {
    if (current.first >= 0) blocks[current] += previous_run;
    else EXPECT_EQ(previous_run, 0u);
    current = {d, s};
    first_block.emplace(current, block);  // kept at the pair's first run
    if (current == stop_at) return -1;
    return made(d, s);
  }
  static int made(int d, int s) { return (3 * d + 5 * s + 1) % 251; }
};

// Random ids over `kinds` values, and a random receiving set D: with no
// block's source (q - b) mod p in D (the pass then reads ids in place), or
// with `meet` any D (it then reads a copy taken before the step).
struct StepCase {
  uint64_t p, q;
  std::vector<uint8_t> ids;
  std::vector<uint64_t> D;
  bool meet = false;
};

StepCase random_case(uint64_t p, uint64_t q, int kinds, uint64_t seed, int density_shift, bool meet = false) {
  StepCase c{p, q, std::vector<uint8_t>(p), std::vector<uint64_t>((p + 63) / 64, 0), meet};
  for (uint64_t b = 0; b < p; ++b) c.ids[b] = static_cast<uint8_t>(next(seed) % static_cast<uint64_t>(kinds));
  for (uint64_t b = 0; b < p; ++b) {
    const uint64_t x = (q + p - b) % p;
    if (!meet && (x == b || ((c.D[x / 64] >> (x % 64)) & 1))) continue;
    if (next(seed) % (uint64_t{1} << density_shift) == 0) c.D[b / 64] |= uint64_t{1} << (b % 64);
  }
  return c;
}

void expect_step_is_definition(const StepCase& c, const std::string& what) {
  std::vector<uint8_t> want = c.ids;
  std::map<std::pair<int, int>, uint64_t> want_blocks, want_first;
  for (uint64_t b = 0; b < c.p; ++b)
    if ((c.D[b / 64] >> (b % 64)) & 1) {
      const int d = c.ids[b], s = c.ids[(c.q + c.p - b) % c.p];
      want[b] = static_cast<uint8_t>(CountingSink::made(d, s));
      ++want_blocks[{d, s}];
      want_first.emplace(std::make_pair(d, s), b);
    }
  on_both_paths([&](const char* path) {
    std::vector<uint8_t> ids = c.ids;
    const std::vector<uint8_t> before = c.ids;
    CountingSink sink;
    uint64_t last = 0;
    ASSERT_TRUE(flow::wide::reflect_group_ids(c.D.data(), c.D.size(), c.q, c.p, ids.data(),
                                              c.meet ? before.data() : ids.data(), sink, last));
    if (sink.current.first >= 0) sink.blocks[sink.current] += last;
    EXPECT_EQ(ids, want) << path << " " << what;
    EXPECT_EQ(sink.blocks, want_blocks) << path << " " << what;
    EXPECT_EQ(sink.first_block, want_first) << path << " " << what;  // each pair's counterexample block
  });
}

TEST(WideKernels, AReflectedStepIsItsDefinition) {
  uint64_t n = 0;
  for (uint64_t p : {2u, 63u, 64u, 130u, 640u, 1000u, 4096u, 5001u})
    for (uint64_t q : {uint64_t{1}, uint64_t{63}, p / 2 + 1, p - 1, p > 100 ? uint64_t{100} : uint64_t{0}})
      for (int kinds : {1, 2, 7})
        for (int density : {0, 1, 4})
          for (bool meet : {false, true}) {
            const uint64_t qq = q % p;
            expect_step_is_definition(random_case(p, qq, kinds, ++n, density, meet),
                                      "p=" + std::to_string(p) + " q=" + std::to_string(qq) + " kinds=" +
                                          std::to_string(kinds) + " density=1/2^" + std::to_string(density) +
                                          (meet ? " meeting" : ""));
          }
}

RC_GTEST_PROP(WideKernels, AReflectedStepIsItsDefinitionAtRandom, ()) {
  const uint64_t p = *rc::gen::inRange<uint64_t>(2, 3000);
  const uint64_t q = *rc::gen::inRange<uint64_t>(0, p);
  const int kinds = *rc::gen::inRange(1, 9);
  const int density = *rc::gen::inRange(0, 6);
  const bool meet = *rc::gen::arbitrary<bool>();
  expect_step_is_definition(random_case(p, q, kinds, *rc::gen::arbitrary<uint64_t>(), density, meet),
                            "p=" + std::to_string(p) + " q=" + std::to_string(q) + (meet ? " meeting" : ""));
}

TEST(WideKernels, ASinkThatStopsStopsTheStep) {
  const StepCase c = random_case(2000, 777, 3, 42, 0);
  on_both_paths([&](const char* path) {
    std::vector<uint8_t> ids = c.ids;
    CountingSink sink;
    sink.stop_at = {2, 1};
    uint64_t last = 0;
    EXPECT_FALSE(flow::wide::reflect_group_ids(c.D.data(), c.D.size(), c.q, c.p, ids.data(), ids.data(), sink, last))
        << path;
    EXPECT_EQ(sink.current, sink.stop_at) << path;
  });
}

// The grouped quotient on either path decides exactly what the cell quotient
// decides (certificates are not reused between the two runs).
TEST(WideKernels, TheGroupedQuotientIsTheSameOnBothPaths) {
  const VariantInfo& v = test::registered_variant("swing", "bandwidth");
  for (uint64_t p : {2u, 6u, 514u, 1030u, 2048u, 6002u}) {
    CheckOptions o;
    o.reuse_certificates = false;
    o.grouped_quotient = false;
    const InstanceCheck cells = test::check_variant(v, p, o);
    o.grouped_quotient = true;
    on_both_paths([&](const char* path) {
      const InstanceCheck grouped = test::check_variant(v, p, o);
      ASSERT_TRUE(grouped.stats.count("method")) << path;
      EXPECT_NE(grouped.stats.at("method").find("groups of blocks"), std::string::npos) << path << " p=" << p;
      test::expect_same_verdicts(grouped, cells, std::string(path) + " p=" + std::to_string(p));
    });
  }
}

}  // namespace
}  // namespace collcheck
