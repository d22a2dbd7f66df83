#pragma once

// The innermost loops of the grouped quotient, with a wide path for
// processors that have AVX-512 (BW, VBMI, VPOPCNTDQ) and GFNI and a portable one for
// every other. Both compute the same words and bytes (tested against each
// other and against the definitions); which one runs is chosen once per
// process from the processor's flags and can be forced to the portable one.

#include <cstddef>
#include <cstdint>

namespace collcheck::flow::wide {

// True when the wide path runs: the processor has it and it is not turned off.
bool enabled();
// Whether the processor has it at all.
bool available();
// Tests: false forces the portable path in this process, true restores the
// default (the wide path where available).
void set_enabled(bool on);

inline uint64_t bitrev64(uint64_t x) {
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(x);
}

// The number of set bits of the W-word mask m.
uint64_t count_bits(const uint64_t* m, size_t W);

// Sets bit i of the mask out (ceil(n/64) words) for every i < n with
// bytes[i] == value; other bits are left as they are.
void or_bytes_equal(const uint8_t* bytes, size_t n, uint8_t value, uint64_t* out);

// One run of reflect_bits (flow_rotation.cpp): for i < n,
//   dst[i] = bitrev64((src[k - i] >> o) | (src[k - i + 1] << (64 - o)))
// where src[words] reads as zero and o = 0 takes src[k - i] alone.
// Requires n <= k + 1, k < words, o < 64.
void reverse_words(uint64_t* dst, const uint64_t* src, size_t k, unsigned o, size_t n, size_t words);

// One reduce or copy step of the grouped quotient (group_quotient.cpp)
// under a reflection g_q(y) = (q - y) mod p with blocks acting as ranks: for
// every block b in the p-bit mask D, ids[b] becomes the group made of the
// pair (ids[b], sources[(q - b) mod p]). `sources` holds the ids from before
// the step: the caller passes ids itself when no source of a block of D is
// in D (nothing read is written), a copy taken before the step otherwise.
//
// Blocks are taken in increasing order, a word of 64 at a time: the run of
// a pair is its blocks in one word, or across words while it lasts. At
// every change of pair the sink is told the new pair, the block where its
// run starts (a pair's first run starts at its lowest block) and how many
// blocks the previous run moved; it returns the id the new pair makes, or a
// negative number to stop.
class PairSink {
 public:
  virtual int next_pair(uint8_t dst, uint8_t src, uint64_t block, uint64_t previous_run) = 0;

 protected:
  ~PairSink() = default;
};
// false: the sink stopped. `last_run` is the length of the final run (its
// pair is the last one the sink was told).
bool reflect_group_ids(const uint64_t* D, size_t W, uint64_t q, uint64_t p, uint8_t* ids, const uint8_t* sources,
                       PairSink& sink, uint64_t& last_run);

}  // namespace collcheck::flow::wide
