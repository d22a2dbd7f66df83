#include "properties/tra/alltoall_delivery.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "properties/catalog.hpp"
#include "schedules/int_math.hpp"
#include "schedules/tra/tra.hpp"

namespace collcheck::a2a {
namespace {

// a mod m for any sign of a, m >= 1.
uint64_t mod(int64_t a, uint64_t m) {
  const int64_t mm = static_cast<int64_t>(m);
  const int64_t v = a % mm;
  return static_cast<uint64_t>(v < 0 ? v + mm : v);
}

// Calls run(start, len) for every maximal run of positions i < m whose base-r
// digit x (rx = r^x) is z, in increasing order; returns how many positions.
// The runs are the "units" of Proof 2: r^x consecutive indices in every group
// of r^(x+1).
template <class F>
uint64_t for_each_run(uint64_t m, uint64_t r, uint64_t rx, uint64_t z, F&& run) {
  const uint64_t group = rx * r, first = z * rx;
  uint64_t total = 0;
  for (uint64_t g = 0; g + first < m; g += group) {
    const uint64_t start = g + first, len = std::min(rx, m - start);
    run(start, len);
    total += len;
  }
  return total;
}

// new[q] = old[(q - d) mod L] (every rank q receives the token of the rank d
// below it), with a temporary of min(d, L-d) tokens.
inline void rotate_right(uint32_t* row, uint64_t L, uint64_t d, uint32_t* tmp) {
  if (d == 0 || L < 2) return;
  if (d <= L - d) {
    std::memcpy(tmp, row + (L - d), d * sizeof(uint32_t));
    std::memmove(row + d, row, (L - d) * sizeof(uint32_t));
    std::memcpy(row, tmp, d * sizeof(uint32_t));
  } else {
    const uint64_t e = L - d;  // rotate left by e
    std::memcpy(tmp, row, e * sizeof(uint32_t));
    std::memmove(row, row + e, (L - e) * sizeof(uint32_t));
    std::memcpy(row + (L - e), tmp, e * sizeof(uint32_t));
  }
}

// row[q] = base + q*slope (uint32 arithmetic) for q in [lo, hi). Written as
// an induction variable (no multiply) so that it vectorizes with SSE2 alone.
inline void fill_linear(uint32_t* row, uint64_t lo, uint64_t hi, uint32_t base, uint32_t slope) {
  uint32_t v = base + static_cast<uint32_t>(lo) * slope;
  const uint32_t n = static_cast<uint32_t>(hi > lo ? hi - lo : 0);
  uint32_t* out = row + lo;
  for (uint32_t q = 0; q < n; ++q, v += slope) out[q] = v;
}
// True iff row[q] == base + q*slope for every q in [lo, hi).
inline bool equal_linear(const uint32_t* row, uint64_t lo, uint64_t hi, uint32_t base, uint32_t slope) {
  uint32_t v = base + static_cast<uint32_t>(lo) * slope, bad = 0;
  const uint32_t n = static_cast<uint32_t>(hi > lo ? hi - lo : 0);
  const uint32_t* in = row + lo;
  for (uint32_t q = 0; q < n; ++q, v += slope) bad |= in[q] ^ v;
  return bad == 0;
}

// Per-thread buffers, reused across instances (no allocation per round or
// per instance once warm); large ones are released after use.
struct Scratch {
  std::vector<uint32_t> a, b, tmp;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}
constexpr uint64_t kKeepTokens = uint64_t{1} << 22;  // keep up to 16 MiB per buffer between instances
void grow(std::vector<uint32_t>& v, uint64_t n) {
  if (v.size() < n) v.resize(n);
}
void release_if_large(std::vector<uint32_t>& v) {
  if (v.size() > kKeepTokens) std::vector<uint32_t>().swap(v);
}

// The smallest wrong final cell and the failure counts.
struct FinalCheck {
  uint64_t wrong = 0;
  bool any = false;
  uint64_t rank = 0, index = 0;
  uint32_t expected = 0, actual = 0;
  void note(uint64_t q, uint64_t i, uint32_t exp, uint32_t act) {
    ++wrong;
    if (!any || std::make_pair(q, i) < std::make_pair(rank, index)) {
      any = true;
      rank = q;
      index = i;
      expected = exp;
      actual = act;
    }
  }
};

// Rounds of one phase, shared by the counting and the data path: calls
// on_round(k, x, z, rx) before and after(k, x, z, positions) after the runs.
template <class Begin, class Run, class End>
void for_each_round(uint64_t m, uint64_t r, Begin&& begin, Run&& run, End&& end) {
  const int w = digits(m, r);
  uint64_t k = 0, rx = 1;
  for (int x = 0; x < w; ++x, rx *= r)
    for (uint64_t z = 1; z < r; ++z, ++k) {
      const bool go = begin(k, x, z, rx);
      const uint64_t n = go ? for_each_run(m, r, rx, z, run) : for_each_run(m, r, rx, z, [](uint64_t, uint64_t) {});
      end(k, x, z, n);
    }
}

PhaseCounts start_counts(uint64_t m, uint64_t r, uint64_t units) {
  PhaseCounts c;
  c.m = m;
  c.radix = r;
  c.units = units;
  c.w = digits(m, r);
  c.per_round.reserve(static_cast<size_t>(c.w) * (r > 1 ? r - 1 : 0));
  return c;
}
void add_round(PhaseCounts& c, uint64_t positions) {
  const uint64_t blocks = positions * c.units;
  c.per_round.push_back(blocks);
  c.D += blocks;
  c.K += blocks > 0;
}

std::string round_name(int x, uint64_t z) { return "(x=" + std::to_string(x) + ", z=" + std::to_string(z) + ")"; }

// The data path of one instance.
class Sim {
 public:
  Sim(const Instance& in, const Rules& rules, Simulation& out) : in_(in), rules_(rules), out_(out), P_(in.p) {}

  void run_tra();
  void run_tra_rank_zero();
  void run_tra2();

 private:
  // A round whose send and receive rules do not pair up (all ranks alike).
  void unmatched(uint64_t k, int x, uint64_t z, uint64_t first_pos, uint64_t from, uint64_t from_sends_to,
                 const std::string& phase) {
    Counterexample c = Counterexample::at(P_, Rank{0}, static_cast<int>(k), static_cast<Block>(first_pos),
                                          static_cast<Rank>(from));
    c.expected = "a message from rank " + std::to_string(from) + " (the receive rule)";
    c.actual = "rank " + std::to_string(from) + " sends to rank " + std::to_string(from_sends_to);
    c.message = phase + "round " + round_name(x, z) + ": the send and receive rules do not pair up, so rank 0 " +
                "receives nothing into the positions it sent";
    out_.delivery.fail(std::move(c));
    broken_ = true;
  }
  void finish(FinalCheck& fc, const uint32_t* buf, uint64_t final_step);

  const Instance& in_;
  const Rules& rules_;
  Simulation& out_;
  const uint64_t P_;
  bool broken_ = false;
};

void Sim::finish(FinalCheck& fc, const uint32_t* buf, uint64_t final_step) {
  Verdict& v = out_.delivery;
  v.checks += P_ * P_;
  if (broken_) return;  // the rounds already failed; the final state means nothing
  if (fc.wrong == 0) return;
  // Lost and duplicated tokens (only on failure).
  std::vector<uint8_t> seen(P_ * P_, 0);
  uint64_t invalid = 0, duplicated = 0, lost = 0;
  for (uint64_t c = 0; c < P_ * P_; ++c) {
    const uint32_t t = buf[c];
    if (t >= P_ * P_) ++invalid;
    else if (seen[t]++ > 0) ++duplicated;
  }
  for (uint64_t t = 0; t < P_ * P_; ++t) lost += seen[t] == 0;
  Counterexample c = Counterexample::at(P_, static_cast<Rank>(fc.rank), static_cast<int>(final_step),
                                        static_cast<Block>(fc.index));
  c.expected = token_name(fc.expected, P_);
  c.actual = fc.actual < P_ * P_ ? token_name(fc.actual, P_) : "no token (" + std::to_string(fc.actual) + ")";
  c.message = "after the final inverse rotation R[" + std::to_string(fc.index) + "] of rank " +
              std::to_string(fc.rank) + " must hold block " + std::to_string(fc.rank) + " of rank " +
              std::to_string(fc.index) + ", it holds block " + std::to_string(fc.actual % P_) + " of rank " +
              std::to_string(fc.actual / P_);
  v.fail(std::move(c));
  v.violations = fc.wrong;
  v.stats["misplaced_tokens"] = std::to_string(fc.wrong);
  v.stats["lost_tokens"] = std::to_string(lost);
  v.stats["duplicated_tokens"] = std::to_string(duplicated + invalid);
}

void Sim::run_tra() {
  const uint64_t P = P_, r = in_.r;
  Scratch& s = scratch();
  grow(s.a, P * P);
  grow(s.tmp, P);
  uint32_t* buf = s.a.data();
  uint32_t* tmp = s.tmp.data();
  const uint32_t Pu = static_cast<uint32_t>(P);

  // 1) R[i] = S[(p + sign*i + offset) % P]: row i, rank q holds token q*P + (q + c) % P.
  for (uint64_t i = 0; i < P; ++i) {
    const uint64_t c = mod(rules_.rotation_sign * static_cast<int64_t>(i) + rules_.rotation_offset, P);
    uint32_t* row = buf + i * P;
    fill_linear(row, 0, P - c, static_cast<uint32_t>(c), Pu + 1);
    fill_linear(row, P - c, P, static_cast<uint32_t>(c) - Pu, Pu + 1);
  }

  // 2) rounds (x, z).
  PhaseCounts counts = start_counts(P, r, 1);
  uint64_t ds = 0;
  for_each_round(
      P, r,
      [&](uint64_t k, int x, uint64_t z, uint64_t rx) {
        if (broken_ || z * rx >= P) return false;  // nothing to move (empty round, or the rounds already failed)
        ds = mod(rules_.send_sign * static_cast<int64_t>(z * rx), P);
        const uint64_t dr = mod(rules_.recv_sign * static_cast<int64_t>(z * rx), P);
        ++out_.delivery.checks;
        if ((ds + dr) % P != 0) {
          unmatched(k, x, z, z * rx, dr, (dr + ds) % P, "");
          return false;
        }
        return true;
      },
      [&](uint64_t start, uint64_t len) {
        for (uint64_t i = start; i < start + len; ++i) rotate_right(buf + i * P, P, ds, tmp);
      },
      [&](uint64_t, int, uint64_t, uint64_t n) { add_round(counts, n); });
  const uint64_t final_step = counts.per_round.size();
  out_.phases.push_back(std::move(counts));

  // 3) R[i] = R[(p + fs*i) % P] (paper: (p - i + P) % P), by index arithmetic:
  // R[k] of rank q becomes R[i] with k = (q + fs*i) mod P, and R[i] of rank q
  // must hold S_i[q] = token i*P + q.
  FinalCheck fc;
  const int fs = rules_.skip_final_rotation ? 0 : rules_.final_sign;
  auto index_of = [&](uint64_t k, uint64_t q) -> uint64_t {
    if (fs == 0) return k;
    return fs < 0 ? mod(static_cast<int64_t>(q) - static_cast<int64_t>(k), P)
                  : mod(static_cast<int64_t>(k) - static_cast<int64_t>(q), P);
  };
  auto slow = [&](const uint32_t* row, uint64_t k, uint64_t lo, uint64_t hi) {
    for (uint64_t q = lo; q < hi; ++q) {
      const uint64_t i = index_of(k, q);
      const uint32_t want = static_cast<uint32_t>(i * P + q);
      if (row[q] != want) fc.note(q, i, want, row[q]);
    }
  };
  if (!broken_)
    for (uint64_t k = 0; k < P; ++k) {
      const uint32_t* row = buf + k * P;
      const uint32_t kP = static_cast<uint32_t>(k * P), PP = static_cast<uint32_t>(P * P);
      if (fs < 0) {  // i = q - k (+P for q < k): token (q-k)P + q
        if (!equal_linear(row, 0, k, PP - kP, Pu + 1)) slow(row, k, 0, k);
        if (!equal_linear(row, k, P, 0u - kP, Pu + 1)) slow(row, k, k, P);
      } else if (fs > 0) {  // i = k - q (+P for q > k): token (k-q)P + q
        if (!equal_linear(row, 0, k + 1, kP, 1u - Pu)) slow(row, k, 0, k + 1);
        if (!equal_linear(row, k + 1, P, kP + PP, 1u - Pu)) slow(row, k, k + 1, P);
      } else {
        if (!equal_linear(row, 0, P, kP, 1u)) slow(row, k, 0, P);
      }
    }
  finish(fc, buf, final_step);
  if (out_.final_buffer.size() == P * P)  // keep_final: rank-major final R
    for (uint64_t k = 0; k < P; ++k)
      for (uint64_t q = 0; q < P; ++q) out_.final_buffer[q * P + index_of(k, q)] = buf[k * P + q];
  release_if_large(s.a);
}

// TRA on rank 0's P tokens alone. Every printed TRA rule reads the rank p
// only as p + (a constant): the shift R[i] = S[(p + sign*i + offset) % P],
// the peers p +- z r^x, the final R[i] = R[(p - i + P) % P]. So rank q's
// buffer is rank 0's with every token (s, b) translated to (s + q, b + q)
// (mod P), by induction over the rounds: rank 0 receives position i from
// rank -ds, whose R[i] is rank 0's translated by -ds. The final check of
// rank q at position k (i = (q - k) mod P, want token i*P + q) holds iff
// rank 0's token at k is ((-k) mod P, 0): the same k fail at every rank,
// so the wrong cells are P times rank 0's and the smallest (rank, index) is
// rank 0's. Position k of the P ranks holds every token of one diagonal
// (b - s = const) once, so a token's global count is the number of rank 0's
// positions on its diagonal: lost and duplicated tokens are P times the
// empty and the extra diagonals. The verdict, counts, counterexample and
// stats are the P x P simulation's (alltoall_delivery_test.cpp compares
// both on every TRA variant, radix and broken rule), in O(P + D) time and
// O(P) memory, for every P. Only with the final shift of the text (final
// sign -1): the other readings' check depends on q.
void Sim::run_tra_rank_zero() {
  const uint64_t P = P_, r = in_.r;
  std::vector<uint64_t> R(P);  // rank 0's tokens s*P + b (64 bits: P*P may exceed 2^32)
  for (uint64_t i = 0; i < P; ++i) R[i] = mod(rules_.rotation_sign * static_cast<int64_t>(i) + rules_.rotation_offset, P);
  PhaseCounts counts = start_counts(P, r, 1);
  uint64_t from = 0;  // the rank rank 0 receives from, mod P
  for_each_round(
      P, r,
      [&](uint64_t k, int x, uint64_t z, uint64_t rx) {
        if (broken_ || z * rx >= P) return false;
        const uint64_t ds = mod(rules_.send_sign * static_cast<int64_t>(z * rx), P);
        const uint64_t dr = mod(rules_.recv_sign * static_cast<int64_t>(z * rx), P);
        ++out_.delivery.checks;
        if ((ds + dr) % P != 0) {
          unmatched(k, x, z, z * rx, dr, (dr + ds) % P, "");
          return false;
        }
        from = (P - ds) % P;
        return true;
      },
      [&](uint64_t start, uint64_t len) {
        for (uint64_t i = start; i < start + len; ++i) {
          const uint64_t src = R[i] / P, b = R[i] % P;
          R[i] = ((src + from) % P) * P + (b + from) % P;
        }
      },
      [&](uint64_t, int, uint64_t, uint64_t n) { add_round(counts, n); });
  const uint64_t final_step = counts.per_round.size();
  out_.phases.push_back(std::move(counts));
  Verdict& v = out_.delivery;
  v.checks += P * P;
  if (broken_) return;
  uint64_t wrong0 = 0, best_i = 0, best_actual = 0;
  bool any = false;
  for (uint64_t k = 0; k < P; ++k) {
    const uint64_t i = (P - k) % P;  // rank 0's index for position k
    if (R[k] == i * P) continue;     // token (i, 0): block 0 of rank i
    ++wrong0;
    if (!any || i < best_i) any = true, best_i = i, best_actual = R[k];
  }
  if (!wrong0) return;
  std::vector<uint64_t> diagonal(P, 0);  // rank 0's positions per diagonal (b - s) mod P
  for (uint64_t t : R) ++diagonal[(t % P + P - t / P) % P];
  uint64_t lost = 0, duplicated = 0;
  for (uint64_t c : diagonal) {
    if (c == 0) lost += P;
    else duplicated += P * (c - 1);
  }
  Counterexample c = Counterexample::at(P_, Rank{0}, static_cast<int>(final_step), static_cast<Block>(best_i));
  c.expected = token_name(best_i * P, P);
  c.actual = token_name(best_actual, P);
  c.message = "after the final inverse rotation R[" + std::to_string(best_i) + "] of rank 0 must hold block 0 of rank " +
              std::to_string(best_i) + ", it holds block " + std::to_string(best_actual % P) + " of rank " +
              std::to_string(best_actual / P);
  v.fail(std::move(c));
  v.violations = P * wrong0;
  v.stats["misplaced_tokens"] = std::to_string(P * wrong0);
  v.stats["lost_tokens"] = std::to_string(lost);
  v.stats["duplicated_tokens"] = std::to_string(duplicated);
}

void Sim::run_tra2() {
  const uint64_t P = P_, Q = in_.q, N = in_.n;
  const bool literal = in_.paper_literal;
  Scratch& s = scratch();
  grow(s.a, P * P);
  grow(s.b, P * P);
  grow(s.tmp, P);
  uint32_t* buf = s.a.data();
  uint32_t* other = s.b.data();
  uint32_t* tmp = s.tmp.data();
  const uint32_t Pu = static_cast<uint32_t>(P);

  // intra 1) R[iQ + j] = S[iQ + (gp + j) % Q]: rank q = ni*Q + gp holds token
  // q*P + iQ + (gp + j) % Q.
  for (uint64_t i = 0; i < N; ++i)
    for (uint64_t j = 0; j < Q; ++j) {
      uint32_t* row = buf + (i * Q + j) * P;
      for (uint64_t ni = 0; ni < N; ++ni) {
        uint32_t* seg = row + ni * Q;
        const uint32_t base = static_cast<uint32_t>(ni * Q * P + i * Q + j);
        fill_linear(seg, 0, Q - j, base, Pu + 1);
        fill_linear(seg, Q - j, Q, base - static_cast<uint32_t>(Q), Pu + 1);
      }
    }

  // intra 2) rounds over the local index j (digits of i % Q), radix r1, all groups at once.
  const int send_sign = literal ? -1 : +1;
  PhaseCounts intra = start_counts(Q, in_.r1, N);
  uint64_t ds = 0;
  if (Q >= 2)
    for_each_round(
        Q, in_.r1,
        [&](uint64_t k, int x, uint64_t z, uint64_t rx) {
          if (broken_ || z * rx >= Q) return false;
          ds = mod(send_sign * static_cast<int64_t>(z * rx), Q);
          const uint64_t dr = mod(-send_sign * static_cast<int64_t>(z * rx), Q);
          ++out_.delivery.checks;
          if ((ds + dr) % Q != 0) {
            unmatched(k, x, z, z * rx, dr, (dr + ds) % Q, "intra-node ");
            return false;
          }
          return true;
        },
        [&](uint64_t start, uint64_t len) {
          for (uint64_t i = 0; i < N; ++i)
            for (uint64_t j = start; j < start + len; ++j) {
              uint32_t* row = buf + (i * Q + j) * P;
              for (uint64_t ni = 0; ni < N; ++ni) rotate_right(row + ni * Q, Q, ds, tmp);
            }
        },
        [&](uint64_t, int, uint64_t, uint64_t n) { add_round(intra, n); });
  const uint64_t intra_rounds = intra.per_round.size();
  out_.phases.push_back(std::move(intra));

  // intra 3) S[iQ + j] = R[iQ + (gp - j + Q) % Q], then inter 1) R[kQ + j] =
  // S[G(k)Q + j] with G(k) = (ni + k) % N (intended) or (k - ni) mod N
  // (printed memcpy): one permutation of positions per rank.
  if (!broken_) {
    for (uint64_t ni = 0; ni < N; ++ni)
      for (uint64_t k = 0; k < N; ++k) {
        const uint64_t G = literal ? mod(static_cast<int64_t>(k) - static_cast<int64_t>(ni), N) : (ni + k) % N;
        for (uint64_t j = 0; j < Q; ++j) {
          uint32_t* dst = other + (k * Q + j) * P + ni * Q;
          for (uint64_t gp = 0; gp < Q; ++gp) {
            const uint64_t src_row = G * Q + (gp + Q - j) % Q;
            dst[gp] = buf[src_row * P + ni * Q + gp];
          }
        }
      }
    std::swap(buf, other);
  }

  // inter 2) rounds over the super-block index k (digits of i / Q), radix r2;
  // a run of super-blocks is a run of rows.
  PhaseCounts inter = start_counts(N, in_.r2, Q);
  if (N >= 2)
    for_each_round(
        N, in_.r2,
        [&](uint64_t k, int x, uint64_t z, uint64_t rx) {
          if (broken_ || z * rx >= N) return false;
          ds = mod(send_sign * static_cast<int64_t>(z * rx), N);
          const uint64_t dr = mod(-send_sign * static_cast<int64_t>(z * rx), N);
          ++out_.delivery.checks;
          if ((ds + dr) % N != 0) {
            unmatched(intra_rounds + k, x, z, z * rx * Q, dr * Q, ((dr + ds) % N) * Q, "inter-node ");
            return false;
          }
          return true;
        },
        [&](uint64_t start, uint64_t len) {
          for (uint64_t row = start * Q; row < (start + len) * Q; ++row) rotate_right(buf + row * P, P, ds * Q, tmp);
        },
        [&](uint64_t, int, uint64_t, uint64_t n) { add_round(inter, n); });
  const uint64_t final_step = intra_rounds + inter.per_round.size();
  out_.phases.push_back(std::move(inter));

  // inter 3) R'[kQ + j] = R[((ni - k) mod N) Q + j]; R'[kQ + j] of rank q must
  // hold S_{kQ+j}[q]. Row m*Q + j of R is R'[kQ + j] with k = (ni - m) mod N.
  FinalCheck fc;
  if (!broken_)
    for (uint64_t m = 0; m < N; ++m)
      for (uint64_t j = 0; j < Q; ++j) {
        const uint32_t* row = buf + (m * Q + j) * P;
        for (uint64_t ni = 0; ni < N; ++ni) {
          const uint64_t k = mod(static_cast<int64_t>(ni) - static_cast<int64_t>(m), N);
          const uint32_t base = static_cast<uint32_t>((k * Q + j) * P + ni * Q);
          if (equal_linear(row + ni * Q, 0, Q, base, 1u)) continue;
          for (uint64_t gp = 0; gp < Q; ++gp)
            if (row[ni * Q + gp] != base + gp) fc.note(ni * Q + gp, k * Q + j, base + static_cast<uint32_t>(gp), row[ni * Q + gp]);
        }
      }
  finish(fc, buf, final_step);
  if (out_.final_buffer.size() == P * P)
    for (uint64_t m = 0; m < N; ++m)
      for (uint64_t j = 0; j < Q; ++j)
        for (uint64_t q = 0; q < P; ++q) {
          const uint64_t k = mod(static_cast<int64_t>(q / Q) - static_cast<int64_t>(m), N);
          out_.final_buffer[q * P + k * Q + j] = buf[(m * Q + j) * P + q];
        }
  release_if_large(s.a);
  release_if_large(s.b);
}

}  // namespace

int digits(uint64_t m, uint64_t r) {
  return m <= 1 || r < 2 ? 0 : ceil_log(m, r);
}

std::string Instance::describe() const {
  if (!two_layer) return "P=" + std::to_string(p) + " r=" + std::to_string(r);
  return "P=" + std::to_string(p) + " Q=" + std::to_string(q) + " N=" + std::to_string(n) +
         " r1=" + std::to_string(r1) + " r2=" + std::to_string(r2) + (paper_literal ? " (printed rules)" : "");
}

std::optional<Instance> resolve(const VariantInfo& variant, const InstanceParams& ip, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<Instance> {
    if (why) *why = w;
    return std::nullopt;
  };
  const std::optional<tra::Params> t = tra::resolve(variant, ip);
  if (!t) return fail("variant '" + variant.name + "' is not a tunable-radix all-to-all (tra, tra2)");
  Instance in;
  in.p = ip.p;
  if (ip.p < 1) return fail("P must be >= 1");
  if (ip.p > tra::kMaxRanks) return fail("P must be <= 3037000499 (P*P blocks below 2^63)");
  if (!t->two_layer) {
    in.r = t->radix;
    if (ip.p >= 2 && (in.r < 2 || in.r > ip.p))
      return fail("radix r = " + std::to_string(in.r) + " outside 2..P = " + std::to_string(ip.p));
    return in;
  }
  in.two_layer = true;
  in.paper_literal = t->paper_literal();
  in.q = t->ppn;
  if (ip.p % in.q != 0) return fail("Q = " + std::to_string(in.q) + " does not divide P = " + std::to_string(ip.p));
  in.n = t->nodes;
  in.r1 = in.q < 2 ? 0 : t->r1;  // no phase
  in.r2 = in.n < 2 ? 0 : t->r2;
  if (in.q >= 2 && (in.r1 < 2 || in.r1 > in.q))
    return fail("r1 = " + std::to_string(in.r1) + " outside 2..Q = " + std::to_string(in.q));
  if (in.n >= 2 && (in.r2 < 2 || in.r2 > in.n))
    return fail("r2 = " + std::to_string(in.r2) + " outside 2..N = " + std::to_string(in.n));
  return in;
}

PhaseCounts count_phase(uint64_t m, uint64_t r, uint64_t units) {
  PhaseCounts c = start_counts(m, r, units);
  if (m < 2 || r < 2) return c;
  for_each_round(
      m, r, [](uint64_t, int, uint64_t, uint64_t) { return false; }, [](uint64_t, uint64_t) {},
      [&](uint64_t, int, uint64_t, uint64_t n) { add_round(c, n); });
  return c;
}

Totals count_totals(uint64_t m, uint64_t r) {
  Totals t;
  if (m < 2 || r < 2) return t;
  for_each_round(
      m, r, [](uint64_t, int, uint64_t, uint64_t) { return false; }, [](uint64_t, uint64_t) {},
      [&](uint64_t, int, uint64_t, uint64_t n) {
        t.K += n > 0;
        t.D += n;
      });
  return t;
}

uint64_t Simulation::K() const {
  uint64_t k = 0;
  for (const auto& p : phases) k += p.K;
  return k;
}
uint64_t Simulation::D() const {
  uint64_t d = 0;
  for (const auto& p : phases) d += p.D;
  return d;
}

// The P x P simulations hold tokens s*P + b in 32 bits: only below 2^32 tokens.
static_assert(kMaxDeliveryTokens < (uint64_t{1} << 32), "the P x P simulation's tokens are 32 bits");
bool fits(const Instance& in) { return in.p <= kMaxDeliveryTokens / in.p / (in.two_layer ? 2 : 1); }

Simulation simulate(const Instance& in, bool move_data, const Rules& rules, bool keep_final) {
  Simulation out;
  out.instance = in;
  Verdict& v = out.delivery;
  v.property = prop::alltoall_delivery;
  v.mode = "exact: every rank's P tokens (source rank, block index)";
  // TRA with the text's final shift: rank 0 alone (run_tra_rank_zero), for
  // every P; the P x P simulation where a reading's check depends on the
  // rank, for TRA2, or when a test asks for it.
  const bool rank_zero = !in.two_layer && !keep_final && !rules.every_rank && rules.final_sign < 0 &&
                         !rules.skip_final_rotation;
  if (!move_data || (!rank_zero && !fits(in))) {
    if (in.two_layer) {
      out.phases.push_back(count_phase(in.q, in.r1, in.n));
      out.phases.push_back(count_phase(in.n, in.r2, in.q));
    } else {
      out.phases.push_back(count_phase(in.p, in.r, 1));
    }
    v.status = Status::skipped;
    v.stats["reason"] = move_data ? "P*P tokens exceed the simulation's budget (" +
                                        std::to_string(kMaxDeliveryTokens) + " tokens); counted only"
                                  : "not selected; counted only";
    return out;
  }
  out.moved_data = true;
  if (keep_final) out.final_buffer.assign(in.p * in.p, 0);
  Sim sim(in, rules, out);
  if (in.two_layer) sim.run_tra2();
  else if (rank_zero) sim.run_tra_rank_zero();
  else sim.run_tra();
  if (rank_zero) v.mode = "exact: rank 0's P tokens (source rank, block index), every rank's by translation";
  if (v.violations == 0) v.status = Status::holds;

  v.stats["instance"] = in.describe();
  if (!in.two_layer) {
    v.stats["K"] = std::to_string(out.phases[0].K);
    v.stats["D"] = std::to_string(out.phases[0].D);
    v.stats["D_per_round"] = per_round_text(out.phases[0]);
  } else {
    v.stats["K1"] = std::to_string(out.phases[0].K);
    v.stats["K2"] = std::to_string(out.phases[1].K);
    v.stats["D1"] = std::to_string(out.phases[0].D);
    v.stats["D2"] = std::to_string(out.phases[1].D);
    v.stats["K"] = std::to_string(out.K());
    v.stats["D"] = std::to_string(out.D());
    v.stats["D_per_round"] = "intra " + per_round_text(out.phases[0]) + " || inter " + per_round_text(out.phases[1]);
  }
  return out;
}

std::string token_name(uint64_t token, uint64_t p) {
  return "S_" + std::to_string(token / p) + "[" + std::to_string(token % p) + "] (block " +
         std::to_string(token % p) + " of rank " + std::to_string(token / p) + ")";
}

std::string per_round_text(const PhaseCounts& c) {
  if (c.per_round.empty()) return "-";
  std::string out;
  const uint64_t per_x = c.radix > 1 ? c.radix - 1 : 1;
  for (size_t x = 0; x * per_x < c.per_round.size(); ++x) {
    out += x ? " | x" : "x";
    out += std::to_string(x);
    out += ':';
    const size_t lo = x * per_x, hi = std::min(c.per_round.size(), lo + per_x);
    for (size_t k = lo; k < hi;) {
      size_t e = k;
      while (e < hi && c.per_round[e] == c.per_round[k]) ++e;
      out += ' ';
      out += std::to_string(c.per_round[k]);
      if (e - k > 1) {
        out += '*';
        out += std::to_string(e - k);
      }
      k = e;
    }
  }
  return out;
}

}  // namespace collcheck::a2a
