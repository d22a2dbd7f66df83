#include "schedules/tra/tra2.hpp"

#include <algorithm>
#include <string>

#include "schedules/input_error.hpp"

namespace collcheck {

Tra2::Tra2(uint64_t p, uint64_t q, uint64_t r1, uint64_t r2, Reading reading)
    : spec_{Collective::alltoall, p, 0, 0}, q_(q), n_(0), r1_(r1), r2_(r2), reading_(reading) {
  if (p < 1) throw InputError("TRA2 needs P >= 1");
  if (p > tra::kMaxRanks)
    throw InputError("TRA2: P = " + std::to_string(p) + " ranks, at most 3037000499 (P*P blocks below 2^63)");
  if (q < 1 || p % q != 0)
    throw InputError("TRA2: Q = " + std::to_string(q) + " processes per node must divide P = " + std::to_string(p));
  n_ = p / q;
  if (q >= 2 && (r1 < 2 || r1 > q))
    throw InputError("TRA2: intra-node radix r1 = " + std::to_string(r1) + " must be in 2..Q = " + std::to_string(q));
  if (n_ >= 2 && (r2 < 2 || r2 > n_))
    throw InputError("TRA2: inter-node radix r2 = " + std::to_string(r2) + " must be in 2..N = " +
                     std::to_string(n_));
  spec_.nblocks = p * p;
  if (q >= 2) intra_ = tra::rounds(q, r1);
  if (n_ >= 2) inter_ = tra::rounds(n_, r2);
}

const tra::Round& Tra2::round(int s) const {
  return intra_node(s) ? intra_.at(static_cast<size_t>(s)) : inter_.at(static_cast<size_t>(s - k1()));
}

Rank Tra2::send_peer(Rank r, int s) const {
  const tra::Round& rd = round(s);
  const uint64_t ni = r / q_, gp = r % q_;
  const bool fwd = reading_ == Reading::intended;
  if (intra_node(s)) {
    const uint64_t d = rd.z * rd.rx % q_;
    return static_cast<Rank>(ni * q_ + (fwd ? (gp + d) % q_ : (gp + q_ - d) % q_));
  }
  const uint64_t d = rd.z * rd.rx % n_;
  return static_cast<Rank>((fwd ? (ni + d) % n_ : (ni + n_ - d) % n_) * q_ + gp);
}

Rank Tra2::recv_peer(Rank r, int s) const {
  const tra::Round& rd = round(s);
  const uint64_t ni = r / q_, gp = r % q_;
  const bool fwd = reading_ == Reading::intended;
  if (intra_node(s)) {
    const uint64_t d = rd.z * rd.rx % q_;
    return static_cast<Rank>(ni * q_ + (fwd ? (gp + q_ - d) % q_ : (gp + d) % q_));
  }
  const uint64_t d = rd.z * rd.rx % n_;
  return static_cast<Rank>((fwd ? (ni + n_ - d) % n_ : (ni + d) % n_) * q_ + gp);
}

uint64_t Tra2::blocks_in_round(int s) const {
  const tra::Round& rd = round(s);
  if (intra_node(s)) return n_ * tra::blocks_with_digit(q_, r1_, rd.rx, rd.z);
  return q_ * tra::blocks_with_digit(n_, r2_, rd.rx, rd.z);
}

void Tra2::sends_of(Rank c, int s, BlockSet& out) const {
  const uint64_t P = spec_.p, Q = q_, N = n_;
  const uint64_t n = c / Q, g = c % Q;
  const tra::Round& rd = round(s);
  if (reading_ == Reading::intended) {
    if (intra_node(s)) {
      // Position (i, j) of (n, g): the block from (n, s) to (i, (s + j) mod Q),
      // s = g - (j mod r1^x); emitted by source, node i, destination.
      const tra::RoundShape shape(Q, r1_, rd);
      tra::for_each_source(shape, g, [&](uint64_t sl, uint64_t groups) {
        const uint64_t src = n * Q + sl;
        for (uint64_t i = 0; i < N; ++i)
          tra::for_each_destination(shape, g, groups, [&](uint64_t dl) {
            out.insert(static_cast<Block>(src * P + i * Q + dl));
          });
      });
    } else {
      // Position k of (n, g): the super-block of (sn, g) for node dn: the Q
      // blocks from (sn, 0..Q-1) to (dn, g).
      const tra::RoundShape shape(N, r2_, rd);
      tra::for_each_source(shape, n, [&](uint64_t sn, uint64_t groups) {
        for (uint64_t sl = 0; sl < Q; ++sl)
          tra::for_each_destination(shape, n, groups, [&](uint64_t dn) {
            out.insert(static_cast<Block>((sn * Q + sl) * P + dn * Q + g));
          });
      });
    }
    return;
  }
  // paper-literal: positions move backward (b), (f); the inter-node shift is
  // R[k] = S[(k - ni) % N] (e). Traced per position, then sorted.
  std::vector<Block> blocks;
  const uint64_t M = intra_node(s) ? Q : N;
  const uint64_t r = intra_node(s) ? r1_ : r2_;
  const uint64_t R1 = rd.rx * r;
  blocks.reserve(blocks_in_round(s));
  for (uint64_t j = rd.z * rd.rx; j < M; j += (j % rd.rx + 1 == rd.rx) ? R1 - rd.rx + 1 : 1) {
    // j runs over the positions whose digit x is z: z r^x + l + g R1.
    const uint64_t l = j % rd.rx;
    if (intra_node(s)) {
      // Position (i, j) of (n, g) came from (n, g + l), whose shift (a) put
      // its block for local (g + l + j) there.
      const uint64_t sl = (g + l) % Q, dl = (sl + j) % Q;
      for (uint64_t i = 0; i < N; ++i) blocks.push_back(static_cast<Block>((n * Q + sl) * P + i * Q + dl));
    } else {
      // Position k = j of (n, g) came from node sn = n + l, whose shift (e)
      // put its super-block for node dn = k - sn there. After the literal
      // intra-node phase, (sn, g)'s share for node dn holds, for each
      // position t, the block from (sn, g + t) to (dn, g + 2t) (positions
      // travel -t under (b)).
      const uint64_t sn = (n + l) % N, dn = (j + N - sn) % N;
      for (uint64_t t = 0; t < Q; ++t)
        blocks.push_back(static_cast<Block>((sn * Q + (g + t) % Q) * P + dn * Q + (g + 2 * t) % Q));
    }
  }
  out = BlockSet::from_blocks(std::move(blocks));
}

void Tra2::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= num_steps()) return;
  const Rank to = send_peer(r, s), from = recv_peer(r, s);
  Transfer send{to, {}, Combine::copy}, recv{from, {}, Combine::copy};
  sends_of(r, s, send.blocks);
  sends_of(from, s, recv.blocks);
  out.sends.push_back(std::move(send));
  out.recvs.push_back(std::move(recv));
}

}  // namespace collcheck
