#include "properties/flow/wide_kernels.hpp"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own
// _mm512_undefined_* placeholders.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#define COLLCHECK_WIDE_KERNELS 1
#define COLLCHECK_WIDE __attribute__((target("avx512f,avx512bw,avx512vbmi,gfni,popcnt")))
#endif

namespace collcheck::flow::wide {

namespace {

std::atomic<bool> g_allowed{true};

bool cpu_has_wide() {
#ifdef COLLCHECK_WIDE_KERNELS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni") && __builtin_cpu_supports("popcnt") &&
         __builtin_cpu_supports("avx512vpopcntdq");
#else
  return false;
#endif
}

// Population count without relying on the POPCNT instruction (the build
// targets the baseline x86-64).
inline uint64_t pop(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return (x * 0x0101010101010101ULL) >> 56;
}

uint64_t count_bits_portable(const uint64_t* m, size_t W) {
  uint64_t n = 0;
  for (size_t w = 0; w < W; ++w) n += pop(m[w]);
  return n;
}

void or_bytes_equal_portable(const uint8_t* bytes, size_t n, uint8_t value, uint64_t* out) {
  for (size_t base = 0; base < n; base += 64) {  // 64 bytes at a time, in a register
    uint64_t bits = 0;
    const size_t m = std::min<size_t>(64, n - base);
    for (size_t j = 0; j < m; ++j) bits |= uint64_t{bytes[base + j] == value} << j;
    out[base / 64] |= bits;
  }
}

void reverse_words_portable(uint64_t* dst, const uint64_t* src, size_t k, unsigned o, size_t n, size_t words) {
  if (o == 0) {
    for (size_t i = 0; i < n; ++i) dst[i] = bitrev64(src[k - i]);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hi = k - i + 1 < words ? src[k - i + 1] : 0;
    dst[i] = bitrev64((src[k - i] >> o) | (hi << (64 - o)));
  }
}

// Blocks of D's word w, one at a time (the portable path, and the wide
// path's words whose sources wrap around p).
bool reflect_word_portable(uint64_t bits, size_t w, uint64_t q, uint64_t p, uint8_t* ids, const uint8_t* sources,
                           PairSink& sink,
                           uint8_t& cd, uint8_t& cs, uint8_t& cm, bool& have, uint64_t& run) {
  for (; bits; bits &= bits - 1) {
    const uint64_t b = uint64_t{w} * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
    const uint64_t x = b <= q ? q - b : q + p - b;
    const uint8_t d = ids[b], s = sources[x];
    if (!have || d != cd || s != cs) {
      const int made = sink.next_pair(d, s, b, run);
      if (made < 0) return false;
      cd = d;
      cs = s;
      cm = static_cast<uint8_t>(made);
      have = true;
      run = 0;
    }
    ids[b] = cm;
    ++run;
  }
  return true;
}

bool reflect_group_ids_portable(const uint64_t* D, size_t W, uint64_t q, uint64_t p, uint8_t* ids,
                                const uint8_t* sources, PairSink& sink, uint64_t& last_run) {
  uint8_t cd = 0, cs = 0, cm = 0;
  bool have = false;
  uint64_t run = 0;
  for (size_t w = 0; w < W; ++w)
    if (D[w] && !reflect_word_portable(D[w], w, q, p, ids, sources, sink, cd, cs, cm, have, run)) return false;
  last_run = run;
  return true;
}

#ifdef COLLCHECK_WIDE_KERNELS

COLLCHECK_WIDE inline __m512i reverse_bytes512(__m512i v) {
  const __m512i idx = _mm512_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                      22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,
                                      42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
                                      62, 63);
  return _mm512_permutexvar_epi8(idx, v);
}

COLLCHECK_WIDE inline __m512i reverse_bits512(__m512i v) {
  // Bits within each byte (a GF(2) affine map), then the 64 bytes.
  return reverse_bytes512(_mm512_gf2p8affine_epi64_epi8(v, _mm512_set1_epi64(0x8040201008040201LL), 0));
}

__attribute__((target("avx512f,avx512vpopcntdq"))) uint64_t count_bits_wide(const uint64_t* m, size_t W) {
  __m512i sum = _mm512_setzero_si512();
  size_t w = 0;
  for (; w + 8 <= W; w += 8) sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_loadu_si512(m + w)));
  if (w < W)
    sum = _mm512_add_epi64(
        sum, _mm512_popcnt_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << (W - w)) - 1), m + w)));
  return static_cast<uint64_t>(_mm512_reduce_add_epi64(sum));
}

COLLCHECK_WIDE void or_bytes_equal_wide(const uint8_t* bytes, size_t n, uint8_t value, uint64_t* out) {
  const __m512i v = _mm512_set1_epi8(static_cast<char>(value));
  for (size_t base = 0; base < n; base += 64) {
    const size_t m = std::min<size_t>(64, n - base);
    const __mmask64 in_range = m == 64 ? ~__mmask64{0} : (__mmask64{1} << m) - 1;
    out[base / 64] |= _mm512_mask_cmpeq_epi8_mask(in_range, _mm512_maskz_loadu_epi8(in_range, bytes + base), v);
  }
}

COLLCHECK_WIDE void reverse_words_wide(uint64_t* dst, const uint64_t* src, size_t k, unsigned o, size_t n,
                                       size_t words) {
  // Eight outputs i..i+7 at once: lane j of the input vector holds the word
  // of output i + 7 - j, so reversing all 512 bits puts them in order.
  const __m128i right = _mm_cvtsi64_si128(static_cast<long long>(o));
  const __m128i left = _mm_cvtsi64_si128(static_cast<long long>(64 - o));  // 64: shifts to zero
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const size_t base = k - i - 7;  // lanes: src[base .. base + 7] and src[base + 1 .. base + 8]
    const __m512i lo = _mm512_loadu_si512(src + base);
    // src[words] reads as zero (and is not touched: it may be past the end).
    const __mmask8 in_range = base + 8 < words ? 0xFF : 0x7F;
    const __m512i hi = _mm512_maskz_loadu_epi64(in_range, src + base + 1);
    const __m512i v = _mm512_or_si512(_mm512_srl_epi64(lo, right), _mm512_sll_epi64(hi, left));
    _mm512_storeu_si512(dst + i, reverse_bits512(v));
  }
  reverse_words_portable(dst + i, src, k - i, o, n - i, words);
}

COLLCHECK_WIDE bool reflect_group_ids_wide(const uint64_t* D, size_t W, uint64_t q, uint64_t p, uint8_t* ids,
                                           const uint8_t* sources, PairSink& sink, uint64_t& last_run) {
  uint8_t cd = 0, cs = 0, cm = 0;
  bool have = false;
  uint64_t run = 0;
  alignas(64) uint8_t dst_bytes[64], src_bytes[64];
  for (size_t w = 0; w < W; ++w) {
    uint64_t lanes = D[w];
    if (!lanes) continue;
    const uint64_t b0 = uint64_t{w} * 64;
    // The source of lane j is (q - b0 - j) mod p: one descending run of 64
    // bytes ending at `top` unless it wraps (then block by block).
    const uint64_t top = b0 <= q ? q - b0 : q + p - b0;
    if (top < 63 || (b0 <= q && b0 + 63 > q)) {
      if (!reflect_word_portable(lanes, w, q, p, ids, sources, sink, cd, cs, cm, have, run)) return false;
      continue;
    }
    const __m512i d = _mm512_maskz_loadu_epi8(lanes, ids + b0);  // lanes beyond p are not read
    const __m512i s = reverse_bytes512(_mm512_loadu_si512(sources + top - 63));
    bool spilled = false;
    while (lanes) {
      if (have) {
        const uint64_t same = _mm512_mask_cmpeq_epi8_mask(lanes, d, _mm512_set1_epi8(static_cast<char>(cd))) &
                              _mm512_cmpeq_epi8_mask(s, _mm512_set1_epi8(static_cast<char>(cs)));
        if (same) {
          _mm512_mask_storeu_epi8(ids + b0, same, _mm512_set1_epi8(static_cast<char>(cm)));
          run += static_cast<uint64_t>(__builtin_popcountll(same));
          lanes &= ~same;
          if (!lanes) break;
        }
      }
      // A new pair: the first lane left (the runs are in block order, as the
      // portable path's, within this word; counts per pair are the same).
      if (!spilled) {
        _mm512_store_si512(dst_bytes, d);
        _mm512_store_si512(src_bytes, s);
        spilled = true;
      }
      const unsigned j = static_cast<unsigned>(__builtin_ctzll(lanes));
      const int made = sink.next_pair(dst_bytes[j], src_bytes[j], b0 + j, run);
      if (made < 0) return false;
      cd = dst_bytes[j];
      cs = src_bytes[j];
      cm = static_cast<uint8_t>(made);
      have = true;
      run = 0;
    }
  }
  last_run = run;
  return true;
}

#endif

}  // namespace

bool available() {
  static const bool has = cpu_has_wide();
  return has;
}

bool enabled() { return g_allowed.load(std::memory_order_relaxed) && available(); }

void set_enabled(bool on) { g_allowed.store(on, std::memory_order_relaxed); }

uint64_t count_bits(const uint64_t* m, size_t W) {
#ifdef COLLCHECK_WIDE_KERNELS
  if (enabled()) return count_bits_wide(m, W);
#endif
  return count_bits_portable(m, W);
}

void or_bytes_equal(const uint8_t* bytes, size_t n, uint8_t value, uint64_t* out) {
#ifdef COLLCHECK_WIDE_KERNELS
  if (enabled()) return or_bytes_equal_wide(bytes, n, value, out);
#endif
  or_bytes_equal_portable(bytes, n, value, out);
}

void reverse_words(uint64_t* dst, const uint64_t* src, size_t k, unsigned o, size_t n, size_t words) {
#ifdef COLLCHECK_WIDE_KERNELS
  if (enabled()) return reverse_words_wide(dst, src, k, o, n, words);
#endif
  reverse_words_portable(dst, src, k, o, n, words);
}

bool reflect_group_ids(const uint64_t* D, size_t W, uint64_t q, uint64_t p, uint8_t* ids, const uint8_t* sources,
                       PairSink& sink, uint64_t& last_run) {
#ifdef COLLCHECK_WIDE_KERNELS
  if (enabled()) return reflect_group_ids_wide(D, W, q, p, ids, sources, sink, last_run);
#endif
  return reflect_group_ids_portable(D, W, q, p, ids, sources, sink, last_run);
}

}  // namespace collcheck::flow::wide
