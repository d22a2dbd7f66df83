#include "runtime/blackbox/power_sums.hpp"
#include "runtime/blackbox/splitmix.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace collcheck::runtime::blackbox::power_sums {

namespace {

uint64_t add(uint64_t a, uint64_t b) { return a + b >= kQ ? a + b - kQ : a + b; }
uint64_t sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + kQ - b; }

// Connection polynomial of s (Berlekamp-Massey over GF(Q)): C[0] = 1,
// s[n] + C[1] s[n-1] + ... + C[L] s[n-L] = 0 for every n >= L.
std::vector<uint64_t> berlekamp_massey(const std::vector<uint64_t>& s) {
  std::vector<uint64_t> c{1}, b{1};
  size_t l = 0, m = 1;
  uint64_t bd = 1;
  for (size_t n = 0; n < s.size(); ++n) {
    uint64_t d = s[n];
    for (size_t k = 1; k <= l && k < c.size(); ++k) d = add(d, mulmod(c[k], s[n - k]));
    if (d == 0) {
      ++m;
      continue;
    }
    const std::vector<uint64_t> t = c;
    const uint64_t coef = mulmod(d, inverse(bd));
    if (c.size() < b.size() + m) c.resize(b.size() + m, 0);
    for (size_t k = 0; k < b.size(); ++k) c[k + m] = sub(c[k + m], mulmod(coef, b[k]));
    if (2 * l <= n) {
      l = n + 1 - l;
      b = t;
      bd = d;
      m = 1;
    } else {
      ++m;
    }
  }
  c.resize(l + 1, 0);
  return c;
}

// Solves sum_k e_k x_k^j = y_j, j = 1..n (x_k distinct, non-zero) by
// Gaussian elimination mod Q.
std::vector<uint64_t> solve_vandermonde(const std::vector<uint64_t>& x, const std::vector<uint64_t>& y) {
  const size_t n = x.size();
  std::vector<std::vector<uint64_t>> a(n, std::vector<uint64_t>(n + 1));
  for (size_t j = 0; j < n; ++j) {
    for (size_t k = 0; k < n; ++k) a[j][k] = powmod(x[k], j + 1);
    a[j][n] = y[j];
  }
  for (size_t col = 0; col < n; ++col) {
    size_t piv = col;
    while (piv < n && a[piv][col] == 0) ++piv;
    if (piv == n) return {};
    std::swap(a[piv], a[col]);
    const uint64_t inv = inverse(a[col][col]);
    for (uint64_t& v : a[col]) v = mulmod(v, inv);
    for (size_t row = 0; row < n; ++row)
      if (row != col && a[row][col] != 0) {
        const uint64_t f = a[row][col];
        for (size_t k = col; k <= n; ++k) a[row][k] = sub(a[row][k], mulmod(f, a[col][k]));
      }
  }
  std::vector<uint64_t> e(n);
  for (size_t k = 0; k < n; ++k) e[k] = a[k][n];
  return e;
}

}  // namespace

uint64_t mulmod(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % kQ);
}

uint64_t powmod(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  for (a %= kQ; e; e >>= 1, a = mulmod(a, a))
    if (e & 1) r = mulmod(r, a);
  return r;
}

uint64_t inverse(uint64_t a) { return powmod(a, kQ - 2); }

Weights::Weights(uint64_t seed, uint64_t p) : seed_(seed), p_(p) {
  if (p == 0 || p >= kQ / 2) throw std::invalid_argument("power sums: p out of range");
  c_ = mix(seed ^ 0x70f3a5c1d2e4b687ULL) % (kQ - p - 1);  // bases r + 1 + c in [1, Q)
}

uint64_t Weights::rank_weight(uint64_t r) const {
  const uint64_t x = r + 1 + c_;
  return mulmod(mulmod(x, x), x);
}

uint64_t Weights::element_weight(uint64_t i) const { return 1 + mix(seed_ ^ mix(i + 0x5bd1e995ULL)) % (kQ - 1); }

uint64_t Weights::hashed(uint64_t r, uint64_t i) const {
  return mix(mix(seed_ ^ 0x2545f4914f6cdd1dULL) ^ mix(r * 0x100000001b3ULL ^ mix(i))) % kQ;
}

namespace {

// The sums every rank of a run needs, the same on every rank: computed once
// per process, not once per rank. Made before an SMPI simulation starts, so
// its simulated ranks share it (runtime/smpi/smpi_job.hpp); actors run one
// at a time, the lock is for threads.
struct SharedSums {
  std::mutex mu;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> powers;    // (seed, p) -> sum_r b_r^j
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> hashed;      // (seed, p, i) -> sum_r h(r, i)
};
SharedSums* const g_sums = new SharedSums();

}  // namespace

const std::vector<uint64_t>& Weights::rank_power_sums() const {
  if (!sums_.empty()) return sums_;
  {
    std::lock_guard<std::mutex> lock(g_sums->mu);
    const auto it = g_sums->powers.find({seed_, p_});
    if (it != g_sums->powers.end()) return sums_ = it->second;
  }
  sums_.assign(kK, 0);
  for (uint64_t r = 0; r < p_; ++r) {
    const uint64_t b = rank_weight(r);
    uint64_t pw = 1;
    for (int j = 0; j < kK; ++j) sums_[j] = add(sums_[j], pw = mulmod(pw, b));
  }
  std::lock_guard<std::mutex> lock(g_sums->mu);
  g_sums->powers.emplace(std::make_pair(seed_, p_), sums_);
  return sums_;
}

uint64_t Weights::hashed_sum(uint64_t i) const {
  const auto key = std::make_tuple(seed_, p_, i);
  {
    std::lock_guard<std::mutex> lock(g_sums->mu);
    const auto it = g_sums->hashed.find(key);
    if (it != g_sums->hashed.end()) return it->second;
  }
  uint64_t sum = 0;
  for (uint64_t r = 0; r < p_; ++r) sum = add(sum, hashed(r, i));
  std::lock_guard<std::mutex> lock(g_sums->mu);
  g_sums->hashed.emplace(key, sum);
  return sum;
}

void contribution(const Weights& w, uint64_t r, uint64_t i, uint64_t* out) {
  const uint64_t x = mulmod(w.element_weight(i), w.rank_weight(r));
  uint64_t pw = 1;
  for (int j = 0; j < kK; ++j) out[j] = pw = mulmod(pw, x);
  out[kK] = w.hashed(r, i);
}

void expected(const Weights& w, uint64_t i, uint64_t* out) {
  const uint64_t a = w.element_weight(i);
  const std::vector<uint64_t>& sums = w.rank_power_sums();
  uint64_t pw = 1;
  for (int j = 0; j < kK; ++j) out[j] = mulmod(pw = mulmod(pw, a), sums[j]);
  out[kK] = w.hashed_sum(i);
}

std::optional<std::vector<WrongContribution>> decode(const Weights& w, uint64_t i, const uint64_t* got) {
  uint64_t want[kValues];
  expected(w, i, want);
  // E_j = (got_j - want_j) / a_i^j = sum_r (m_r - 1) b_r^j.
  const uint64_t inv_a = inverse(w.element_weight(i));
  std::vector<uint64_t> e(kK);
  uint64_t scale = 1;
  for (int j = 0; j < kK; ++j) e[j] = mulmod(sub(got[j] % kQ, want[j]), scale = mulmod(scale, inv_a));
  const std::vector<uint64_t> c = berlekamp_massey(e);
  const size_t l = c.size() - 1;
  const uint64_t hashed_error = sub(got[kK] % kQ, want[kK]);
  if (l == 0) {  // the power sums are right: so must the hashed one be
    if (hashed_error != 0) return std::nullopt;
    return std::vector<WrongContribution>{};
  }
  if (l > static_cast<size_t>(kDecodable)) return std::nullopt;
  // The locator's roots are the wrong ranks' 1 / b_r: b_r^L C(1 / b_r) = 0.
  std::vector<uint64_t> ranks, weights;
  for (uint64_t r = 0; r < w.p() && ranks.size() <= l; ++r) {
    const uint64_t b = w.rank_weight(r);
    uint64_t v = 0;
    for (size_t k = 0; k <= l; ++k) v = add(mulmod(v, b), c[k]);
    if (v == 0) ranks.push_back(r), weights.push_back(b);
  }
  if (ranks.size() != l) return std::nullopt;
  const std::vector<uint64_t> err = solve_vandermonde(weights, std::vector<uint64_t>(e.begin(), e.begin() + static_cast<long>(l)));
  if (err.size() != l) return std::nullopt;
  for (int j = 0; j < kK; ++j) {  // the decoding explains every power sum, not only the first L
    uint64_t s = 0;
    for (size_t k = 0; k < l; ++k) s = add(s, mulmod(err[k], powmod(weights[k], static_cast<uint64_t>(j) + 1)));
    if (s != e[static_cast<size_t>(j)]) return std::nullopt;
  }
  uint64_t h = 0;  // ... and the hashed value, which no pattern of the power sums can fool
  for (size_t k = 0; k < l; ++k) h = add(h, mulmod(err[k], w.hashed(ranks[k], i)));
  if (h != hashed_error) return std::nullopt;
  std::vector<WrongContribution> out;
  for (size_t k = 0; k < l; ++k) {
    const int64_t delta = err[k] > kQ / 2 ? -static_cast<int64_t>(kQ - err[k]) : static_cast<int64_t>(err[k]);
    out.push_back({ranks[k], 1 + delta});
  }
  return out;
}

void add_mod(const int64_t* in, int64_t* inout, uint64_t n_values) {
  for (uint64_t k = 0; k < n_values; ++k) {
    // Values outside [0, Q) are a defect's, kept as they are in the sum's
    // class: reduce them first so the sum cannot overflow.
    const uint64_t a = static_cast<uint64_t>(in[k]) % kQ, b = static_cast<uint64_t>(inout[k]) % kQ;
    inout[k] = static_cast<int64_t>(add(a, b));
  }
}

}  // namespace collcheck::runtime::blackbox::power_sums
