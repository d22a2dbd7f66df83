#pragma once
// The power-sums payload: exact multiplicity in one call with O(count)
// memory, for p in the thousands (where one-hot's p calls and counters-op's
// p counters per element no longer fit one machine).
//
// Element i of rank r's send buffer is 9 values: the powers w^1 .. w^8 of
// its weight w = a_i * b_r mod Q (Q = 2^53 - 111, prime, so every value is
// exact in an int64 and in a double), and h(r, i), a hash of the seed, the
// rank and the element; all under a user-defined commutative sum mod Q. A
// result element is then sum_r m_r w_r^j (j = 1..8) and sum_r m_r h(r, i),
// over the multiplicities m_r with which each contribution was combined.
// The rank weights b_r = (r + 1 + c)^3 mod Q are distinct and non-zero
// (cubing is a bijection mod Q, as gcd(3, Q - 1) = 1), a_i != 0, and c and
// a_i come from the seed.
//
// What a result proves:
//   - If at most 8 of the element's own contributions have m_r != 1, the
//     power sums differ from the expected ones: the differences
//     sum_r (m_r - 1) w_r^j, j = 1..8, are a Vandermonde system in distinct
//     non-zero weights. Exact, whatever the seed.
//   - Any other defect (more than 8 wrong, another element's contribution
//     summed here) is seen by the hashed value unless the wrong
//     multiplicities happen to cancel there: with h taken as a random
//     function of the seed, probability 1 / Q (about 1e-16) per element. A
//     fingerprint, and reports say so. (The power sums alone would not do:
//     integer patterns with equal power sums up to any degree exist, the
//     Prouhet-Tarry-Escott solutions, and no seed moves them.)
// A wrong result is decoded exactly (Berlekamp-Massey over GF(Q), checked
// against all 9 values) when at most 4 contributions are wrong: "rank 7's
// contribution counted 2 times"; beyond that, the report says more than 4
// are wrong and names the exact payloads to rerun with.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collcheck::runtime::blackbox::power_sums {

inline constexpr uint64_t kQ = 9007199254740881ULL;  // 2^53 - 111
inline constexpr int kK = 8;                         // powers per element
inline constexpr int kValues = kK + 1;               // the powers, then the hashed value
inline constexpr int kDecodable = kK / 2;            // wrong contributions decoded exactly

uint64_t mulmod(uint64_t a, uint64_t b);
uint64_t powmod(uint64_t a, uint64_t e);
uint64_t inverse(uint64_t a);  // a != 0

// The weights of one run (seed) on p ranks.
class Weights {
 public:
  Weights(uint64_t seed, uint64_t p);
  uint64_t rank_weight(uint64_t r) const;     // b_r
  uint64_t element_weight(uint64_t i) const;  // a_i
  // h(r, i): the hashed value of rank r's element i.
  uint64_t hashed(uint64_t r, uint64_t i) const;
  // sum_r b_r^j, j = 1..K, and sum_r h(r, i): O(p K) and O(p), computed
  // once per process for every rank of the run.
  const std::vector<uint64_t>& rank_power_sums() const;
  uint64_t hashed_sum(uint64_t i) const;
  uint64_t p() const { return p_; }

 private:
  uint64_t seed_, p_, c_;
  mutable std::vector<uint64_t> sums_;
};

// Rank r's kValues values for element i (w^1 .. w^K, h(r, i)).
void contribution(const Weights& w, uint64_t r, uint64_t i, uint64_t* out);
// The kValues values element i must hold: every contribution exactly once
// (the hashed sum costs O(p)).
void expected(const Weights& w, uint64_t i, uint64_t* out);

// A wrong element decoded: each (rank, multiplicity) whose multiplicity is
// not 1, in rank order; or nullopt when more than kDecodable are wrong (or a
// value that is no rank's contribution to this element is in the sum).
struct WrongContribution {
  uint64_t rank;
  int64_t times;  // how many times it was combined (0: lost)
  bool operator==(const WrongContribution&) const = default;
};
std::optional<std::vector<WrongContribution>> decode(const Weights& w, uint64_t i, const uint64_t* got);

// The user-defined operator: inout[k] = (in[k] + inout[k]) mod Q over n * kValues values.
void add_mod(const int64_t* in, int64_t* inout, uint64_t n_values);

}  // namespace collcheck::runtime::blackbox::power_sums
