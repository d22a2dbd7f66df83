#include "schedules/tra/tra.hpp"

#include <string>

#include "schedules/input_error.hpp"
#include "schedules/int_math.hpp"

namespace collcheck {

namespace tra {

int num_digits(uint64_t M, uint64_t r) {
  COLLCHECK_CHECK(r >= 2, "TRA radix must be >= 2");
  return ceil_log(M, r);
}

std::vector<Round> rounds(uint64_t M, uint64_t r) {
  std::vector<Round> out;
  const int w = num_digits(M, r);
  uint64_t rx = 1;
  for (int x = 0; x < w; ++x, rx *= r)
    for (uint64_t z = 1; z < r && z * rx < M; ++z) out.push_back({x, z, rx});
  return out;
}

uint64_t blocks_with_digit(uint64_t M, uint64_t r, uint64_t rx, uint64_t z) {
  const uint64_t R1 = rx * r;
  const uint64_t full = (M / R1) * rx;  // complete groups of r^(x+1) indices
  const uint64_t rest = M % R1;         // the last, partial group
  const uint64_t lo = z * rx;
  return full + (rest > lo ? std::min(rest - lo, rx) : 0);
}

uint64_t count_rounds(uint64_t M, uint64_t r) {
  if (M < 2) return 0;
  const int w = num_digits(M, r);
  uint64_t top = 1;
  for (int x = 0; x + 1 < w; ++x) top *= r;  // r^(w-1)
  return static_cast<uint64_t>(w - 1) * (r - 1) + (M + top - 1) / top - 1;
}

uint64_t count_blocks(uint64_t M, uint64_t r) {
  uint64_t d = 0;
  for (const Round& rd : rounds(M, r)) d += blocks_with_digit(M, r, rd.rx, rd.z);
  return d;
}

uint64_t prop_rounds(uint64_t M, uint64_t r) {
  if (M < 2) return 0;
  const int w = num_digits(M, r);
  const uint64_t rw = ipow(r, w), top = ipow(r, w - 1);
  const uint64_t k = static_cast<uint64_t>(w) * (r - 1);
  if (rw == M) return k;               // Prop. 1
  return k - (rw - M) / top;           // Prop. 3 (r^w > M, the floor of a non-negative ratio)
}

uint64_t prop_blocks(uint64_t M, uint64_t r) {
  if (M < 2) return 0;
  const int w = num_digits(M, r);
  if (ipow(r, w) == M) return static_cast<uint64_t>(w) * (r - 1) * ipow(r, w - 1);  // Prop. 2
  // Prop. 4, with its case analysis as printed (signed t).
  int64_t d = 0;
  const int64_t P = static_cast<int64_t>(M);
  int64_t rx = 1;
  for (int x = 0; x < w; ++x, rx *= static_cast<int64_t>(r)) {
    const int64_t R1 = rx * static_cast<int64_t>(r);
    const int64_t lgc = P % R1;
    const int64_t lc = (P / R1) * rx;
    for (int64_t z = 1; z < static_cast<int64_t>(r); ++z) {
      const int64_t t = lgc - z * rx;
      int64_t h;
      if (t <= 0)
        h = lc;
      else if (t / rx > 0)
        h = lc + rx;
      else
        h = lc + t % rx;
      d += h;
    }
  }
  return static_cast<uint64_t>(d);
}

std::string prop_names(uint64_t M, uint64_t r) {
  if (M < 2) return "trivial";
  return ipow(r, num_digits(M, r)) == M ? "Prop. 1/2" : "Prop. 3/4";
}

}  // namespace tra

Tra::Tra(uint64_t p, uint64_t r) : spec_{Collective::alltoall, p, 0, 0}, r_(r), w_(0) {
  if (p < 1) throw InputError("TRA needs P >= 1");
  if (p > tra::kMaxRanks)
    throw InputError("TRA: P = " + std::to_string(p) + " ranks, at most 3037000499 (P*P blocks below 2^63)");
  if (p >= 2 && (r < 2 || r > p))
    throw InputError("TRA: radix r = " + std::to_string(r) + " must be in 2..P = " + std::to_string(p));
  spec_.nblocks = p * p;
  if (p >= 2) {
    w_ = tra::num_digits(p, r);
    rounds_ = tra::rounds(p, r);
  }
}

Rank Tra::send_peer(Rank r, int s) const {
  const tra::Round& rd = round(s);
  return static_cast<Rank>((r + rd.z * rd.rx) % spec_.p);
}

uint64_t Tra::blocks_in_round(int s) const {
  const tra::Round& rd = round(s);
  return tra::blocks_with_digit(spec_.p, r_, rd.rx, rd.z);
}

// The blocks rank c sends in round rd (see the header's Derivation), in
// increasing block order.
void Tra::sends_of(Rank c, const tra::Round& rd, BlockSet& out) const {
  const uint64_t P = spec_.p;
  const tra::RoundShape shape(P, r_, rd);
  tra::for_each_source(shape, c, [&](uint64_t src, uint64_t groups) {
    tra::for_each_destination(shape, c, groups,
                              [&](uint64_t dst) { out.insert(static_cast<Block>(src * P + dst)); });
  });
}

void Tra::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= num_steps()) return;
  const tra::Round& rd = rounds_[static_cast<size_t>(s)];
  const uint64_t P = spec_.p;
  const uint64_t d = rd.z * rd.rx;  // 1 <= d < P
  const Rank to = static_cast<Rank>((r + d) % P);
  const Rank from = static_cast<Rank>((r + P - d) % P);
  Transfer send{to, {}, Combine::copy}, recv{from, {}, Combine::copy};
  sends_of(r, rd, send.blocks);
  sends_of(from, rd, recv.blocks);
  out.sends.push_back(std::move(send));
  out.recvs.push_back(std::move(recv));
}

}  // namespace collcheck
