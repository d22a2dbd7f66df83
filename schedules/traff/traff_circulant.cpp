// Träff's circulant broadcast schedules: Algorithms 2-6 of
// traff-circulant-broadcast-schedules.txt, transcribed line by line (the header
// gives names and references and lists the deviations, bounds only). Comments
// quote the printed lines they implement.
#include "schedules/traff/traff_circulant.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>

namespace collcheck::traff {

namespace {

// q <= 63 for any uint64_t p; skip[] holds q+2 entries (with the skip[q+1]
// sentinel), next[]/prev[] hold indices -1..q (stored at offset +1).
constexpr int kMaxQ = 64;

// Not value-initialised (this runs once or more per rank in the hot loops):
// recvschedule_into sets skip[0..q+1] and next/prev[-1..q] before use.
struct RecvState {
  std::array<int64_t, kMaxQ + 2> skip;  // skip[0..q], skip[q+1] = 2p (see below)
  std::array<int, kMaxQ + 2> next_;     // next[e] at next_[e + 1]
  std::array<int, kMaxQ + 2> prev_;
  int64_t* recvblock = nullptr;
  int recursive_calls = 0;

  int& next(int e) { return next_[static_cast<size_t>(e + 1)]; }
  int& prev(int e) { return prev_[static_cast<size_t>(e + 1)]; }
  int64_t sk(int k) const { return skip[static_cast<size_t>(k)]; }
  void unlink(int e) {
    // next[prev[e]], prev[next[e]] <- next[e], prev[e]
    const int n = next(e), pv = prev(e);
    next(pv) = n;
    prev(n) = pv;
  }
};

// Algorithm 4, ALLBLOCKS(r, r', s, e, k, recvblock[q]); r is p + (the rank).
// The bounds r - skip[k] and r - skip[k+1] change only with k, so they are
// kept in lo_k / lo_k1 (measured: 1.15x on the whole computation) instead of
// being re-read in every iteration as printed; x = r' + skip[e].
int allblocks(RecvState& st, int64_t r, int64_t rp, int64_t s, int e, int k) {
  int64_t lo_k = r - st.sk(k), lo_k1 = r - st.sk(k + 1);
  while (e != -1) {                                              // while e != -1 do
    const int64_t x = rp + st.sk(e);
    if (x <= lo_k && x < s) {                                    //   if r'+skip[e] <= r-skip[k] and r'+skip[e] < s
      if (x <= lo_k1) {                                          //     if r'+skip[e] <= r-skip[k+1]
        ++st.recursive_calls;                                    //       k <- ALLBLOCKS(r, r'+skip[e], s, e, k, recvblock[])
        k = allblocks(st, r, x, s, e, k);
        lo_k = r - st.sk(k);
        lo_k1 = r - st.sk(k + 1);
      }
      if (rp > lo_k1) return k;                                  //     if r' > r-skip[k+1] then return k
      s = x;                                                     //     s <- r'+skip[e]
      st.recvblock[k] = e;                                       //     recvblock[k], k <- e, k+1
      k = k + 1;
      lo_k = lo_k1;
      lo_k1 = r - st.sk(k + 1);
      st.unlink(e);                                              //     unlink e
    }
    e = st.next(e);                                              //   e <- next[e]
  }
  return k;
}

// The paper's q from the skip array; validates its shape.
int q_of(const std::vector<int64_t>& skip) {
  if (skip.empty() || skip.size() > static_cast<size_t>(kMaxQ)) {
    throw std::invalid_argument("traff: skip must hold skip[0..q] from skips(p)");
  }
  return static_cast<int>(skip.size()) - 1;
}

void check_rank(uint64_t r, const std::vector<int64_t>& skip) {
  if (r >= static_cast<uint64_t>(skip.back())) throw std::invalid_argument("traff: rank out of range");
}

// Algorithm 5, RECVSCHEDULE(r, recvblock[q]) with b = BASEBLOCK(r) given.
void recvschedule_into(uint64_t r, int64_t b, const std::vector<int64_t>& skip, int64_t* recvblock,
                       int* recursive_calls) {
  const int q = static_cast<int>(skip.size()) - 1;
  const int64_t p = skip[static_cast<size_t>(q)];
  RecvState st;
  for (int i = 0; i <= q; ++i) st.skip[static_cast<size_t>(i)] = skip[static_cast<size_t>(i)];
  // Not printed: as printed, ALLBLOCKS may evaluate skip[k+1] with k = q (after
  // all q blocks are found, if a later list element still passes the first
  // test), one past skip[q] = p, and would then write recvblock[q]. We give it
  // the value Observation 2 would, skip[q+1] = 2p. Any value >= 2p makes
  // "r' + skip[e] <= r - skip[q+1]" false and "r' > r - skip[q+1]" true (r < 2p,
  // r' >= 0), so the printed code returns k = q without writing recvblock[q].
  // A guard only: an instrumented build never read skip[q+1] for any rank of
  // any p in 2..8000 nor of p = 2^20 - 1, 2^20, 2^20 + 1, 1500001, 2^21 - 1, 2^21.
  st.skip[static_cast<size_t>(q + 1)] = 2 * p;
  st.skip[static_cast<size_t>(q + 2)] = 2 * p;  // allblocks reads skip[k+1] eagerly after k = q+1 (never reached)
  st.recvblock = recvblock;
  // for e = 0..q do next[e], prev[e] <- e-1, e+1
  for (int e = 0; e <= q; ++e) {
    st.next(e) = e - 1;
    st.prev(e) = e + 1;
  }
  // prev[q], next[-1], prev[-1] <- -1, q, 0   (circular list in decreasing order)
  st.prev(q) = -1;
  st.next(-1) = q;
  st.prev(-1) = 0;
  // unlink baseblock index b (for the root b = q)
  st.unlink(static_cast<int>(b));
  // ALLBLOCKS(p + r, 0, p + p, q, 0, recvblock[])
  allblocks(st, p + static_cast<int64_t>(r), 0, p + p, q, 0);
  // Make baseblock b the only non-negative block (Condition 3). The prose says
  // "except for the k where recvblock[k] = p"; the printed code tests = q, which
  // is what is meant (recvblock[] holds skip indices here).
  for (int k = 0; k < q; ++k) {
    if (recvblock[k] == q) recvblock[k] = b;
    else recvblock[k] = recvblock[k] - q;
  }
  if (recursive_calls) *recursive_calls += st.recursive_calls;
}

}  // namespace

std::vector<int64_t> skips(uint64_t p) {
  if (p == 0) throw std::invalid_argument("traff: p must be >= 1");
  int q = 0;
  while (q < 63 && (uint64_t{1} << q) < p) ++q;  // q = ceil(log2 p)
  std::vector<int64_t> skip(static_cast<size_t>(q) + 1);
  int k = q;                                      // k <- q
  skip[static_cast<size_t>(k)] = static_cast<int64_t>(p);  // skip[k] <- p
  while (k > 0) {                                 // while k > 0 do
    const int64_t s = skip[static_cast<size_t>(k)];
    skip[static_cast<size_t>(k - 1)] = s - s / 2;  //   skip[k-1] <- skip[k] - skip[k]/2
    k = k - 1;
  }
  return skip;
}

int64_t baseblock(uint64_t r, const std::vector<int64_t>& skip) {
  const int q = q_of(skip);
  check_rank(r, skip);
  // Not printed: for p = 1 (q = 0) the repeat loop below would read skip[-1];
  // the only rank is the root, whose baseblock is q.
  if (q == 0) return q;
  const int64_t rr = static_cast<int64_t>(r);
  int k = q;
  int64_t rp = 0;  // k, r' <- q, 0
  do {             // repeat
    k = k - 1;
    const int64_t s = skip[static_cast<size_t>(k)];
    if (rp + s == rr) return k;      // if r'+skip[k] = r then return k
    else if (rp + s < rr) rp += s;   // else if r'+skip[k] < r then r' <- r'+skip[k]
  } while (k != 0);                  // until k = 0
  return q;                          // only r = 0 returns q
}

std::vector<int64_t> recvschedule(uint64_t r, const std::vector<int64_t>& skip, int* recursive_calls) {
  const int q = q_of(skip);
  std::vector<int64_t> recvblock(static_cast<size_t>(q));
  recvschedule_into(r, baseblock(r, skip), skip, recvblock.data(), recursive_calls);
  return recvblock;
}

RankCounters rank_schedule_into(uint64_t r, const std::vector<int64_t>& skip, int64_t* recvblock,
                                int64_t* sendblock) {
  const int q = q_of(skip);
  check_rank(r, skip);
  const int64_t p = skip[static_cast<size_t>(q)];
  RankCounters out;
  out.baseblock = baseblock(r, skip);
  recvschedule_into(r, out.baseblock, skip, recvblock, &out.recursive_calls);

  // Algorithm 6, SENDSCHEDULE(r, sendblock[q]).
  auto sk = [&](int k) { return skip[static_cast<size_t>(k)]; };
  std::array<int64_t, kMaxQ> block{};
  // RECVSCHEDULE((r + skip[k]) mod p, block[]); sendblock[k] <- block[k]   (a violation)
  auto violation = [&](int k) {
    ++out.violations;
    out.violation_rounds |= uint64_t{1} << k;
    const uint64_t t = (r + static_cast<uint64_t>(sk(k))) % static_cast<uint64_t>(p);
    recvschedule_into(t, baseblock(t, skip), skip, block.data(), nullptr);
    sendblock[k] = block[static_cast<size_t>(k)];
  };
  if (r == 0) {
    for (int k = 0; k < q; ++k) sendblock[k] = k;  // for k = 0..q-1 do sendblock[k] <- k
    return out;
  }
  const int64_t b = out.baseblock;                  // b <- BASEBLOCK(r)
  int64_t rp = static_cast<int64_t>(r), c = b, e = p;  // r', c, e <- r, b, p
  for (int k = q - 1; k >= 1; --k) {                // for k = q-1..1 do   (invariant r' < e)
    if (rp < sk(k)) {                               //   if r' < skip[k] then   (lower part)
      if (rp + sk(k) < e || e < sk(k - 1) || (k == 1 && b > 0)) sendblock[k] = c;
      else violation(k);
      if (e > sk(k)) e = sk(k);                     //     if e > skip[k] then e <- skip[k]
    } else {                                        //   else   (upper part, r' >= skip[k])
      c = k - q;                                    //     c <- k - q
      if (k == 1 || rp > sk(k) || e - sk(k) < sk(k - 1)) sendblock[k] = c;
      else if (rp + sk(k) > e) violation(k);
      else sendblock[k] = c;
      rp = rp - sk(k);                              //     r', e <- r'-skip[k], e-skip[k]
      e = e - sk(k);
    }
  }
  if (q >= 1) sendblock[0] = b - q;                 // sendblock[0] <- b - q
  return out;
}

RankSchedule rank_schedule(uint64_t r, const std::vector<int64_t>& skip) {
  const int q = q_of(skip);
  RankSchedule out;
  out.recvblock.resize(static_cast<size_t>(q));
  out.sendblock.resize(static_cast<size_t>(q));
  const RankCounters c = rank_schedule_into(r, skip, out.recvblock.data(), out.sendblock.data());
  out.baseblock = c.baseblock;
  out.recursive_calls = c.recursive_calls;
  out.violations = c.violations;
  out.violation_rounds = c.violation_rounds;
  return out;
}

}  // namespace collcheck::traff
