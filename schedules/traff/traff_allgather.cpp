#include "schedules/traff/traff_allgather.hpp"

#include <string>

#include "schedules/input_error.hpp"
#include "schedules/traff/traff_circulant.hpp"
#include "schedules/translation_equivariant.hpp"

namespace collcheck {

TraffAllgather::TraffAllgather(uint64_t p, uint32_t n)
    : spec_{Collective::allgather, p, 0, 0}, n_(n), skip_(p >= 1 ? traff::skips(p) : std::vector<int64_t>{}) {
  if (p < 1 || n < 1) throw InputError("Träff allgather needs p >= 1 and n >= 1");
  // n < 2^32 and p <= 2^32: n * p < 2^64 - 1, a valid 64-bit block count.
  spec_.nblocks = static_cast<uint64_t>(n) * p;
  q_ = static_cast<int>(skip_.size()) - 1;
  x_ = q_ > 0 ? (q_ - (static_cast<int64_t>(n) - 1) % q_) % q_ : 0;
  steps_ = p > 1 ? static_cast<int>(n) - 1 + q_ : 0;
  // Algorithm 7's first loop: RECVSCHEDULE for every relative rank, once.
  recv_.resize(static_cast<size_t>(p) * static_cast<size_t>(q_));
  for (uint64_t rel = 0; rel < p && q_ > 0; ++rel) {
    const std::vector<int64_t> rb = traff::recvschedule(rel, skip_);
    for (int k = 0; k < q_; ++k) {
      COLLCHECK_CHECK(rb[k] >= INT16_MIN && rb[k] <= INT16_MAX, "Träff recvblock out of 16-bit range");
      recv_[rel * q_ + k] = static_cast<int16_t>(rb[k]);
    }
  }
}

void TraffAllgather::rank_step(Rank r, int s, RankStep& out) const {
  out.clear();
  if (s < 0 || s >= steps_) return;
  const int64_t p = static_cast<int64_t>(spec_.p);
  const int64_t n = n_;
  const int64_t i = s + x_;
  const int k = static_cast<int>(i % q_);
  const int64_t shift = -x_ + q_ * ((i - k) / q_);
  auto clamp = [n](int64_t b) { return b > n - 1 ? n - 1 : b; };
  const int64_t rr = r;
  const int64_t t = (rr + skip_[k]) % p;
  const int64_t f = (rr - skip_[k] % p + p) % p;
  BlockSet send, recv;
  for (int64_t j = 0; j < p; ++j) {
    const int64_t rel = (rr - j + p) % p;  // r' for root j
    if (j != t) {  // pack: the to-processor's receive block (sendblocks[j][k] of Algorithm 7)
      const int64_t trel = (rel + skip_[k]) % p;
      const int64_t b = recv_[static_cast<size_t>(trel * q_ + k)] + shift;
      if (b >= 0) send.insert(static_cast<Block>(j * n + clamp(b)));
    }
    if (j != rr) {  // unpack: my own receive block for root j
      const int64_t b = recv_[static_cast<size_t>(rel * q_ + k)] + shift;
      if (b >= 0) recv.insert(static_cast<Block>(j * n + clamp(b)));
    }
  }
  if (!send.empty()) out.sends.push_back({static_cast<Rank>(t), std::move(send), Combine::copy});
  if (!recv.empty()) out.recvs.push_back({static_cast<Rank>(f), std::move(recv), Combine::copy});
}

std::unique_ptr<Schedule> traff_circulant_certified(std::unique_ptr<Schedule> direct, uint32_t n) {
  return translation_equivariant(
      std::move(direct), n,
      "construction (every rank's transfers are rank 0's translated by r, schedules/symmetry.hpp) + Algorithm 7 "
      "reads r only through the relative rank r - j of root j and r +- skip[k] (mod p), root j's blocks j*n.., "
      "tested against the direct generator at every rank for p <= 64 and 100, 128, 255, 256 with n = 1, 3, 8");
}

}  // namespace collcheck
