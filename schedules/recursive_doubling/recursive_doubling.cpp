#include "schedules/recursive_doubling/recursive_doubling.hpp"

#include "schedules/fold.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/translation_equivariant.hpp"

namespace collcheck {
namespace {

class RecursiveDoublingLatency final : public Schedule {
 public:
  explicit RecursiveDoublingLatency(uint64_t p)
      : spec_{Collective::allreduce, p, 1, 0}, k_(swing::ceil_log2(p)) {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return k_; }
  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    if (s < 0 || s >= k_) return;
    Rank q = r ^ (Rank{1} << s);
    out.sends.push_back({q, BlockSet::single(0), Combine::reduce});
    out.recvs.push_back({q, BlockSet::single(0), Combine::reduce});
  }

 private:
  CollectiveSpec spec_;
  int k_;
};

class Rabenseifner final : public Schedule {
 public:
  explicit Rabenseifner(uint64_t p)
      : spec_{Collective::allreduce, p, static_cast<uint32_t>(p), 0}, k_(swing::ceil_log2(p)) {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2 * k_; }

  // Block range rank r is responsible for after `done` halving steps:
  // the aligned range of size p / 2^done that contains r.
  BlockSet::Range range_after(Rank r, int done) const {
    Block size = static_cast<Block>(spec_.p >> done);
    Block lo = (r / size) * size;
    return {lo, lo + size};
  }

  void rank_step(Rank r, int s, RankStep& out) const override {
    out.clear();
    if (s < 0 || s >= 2 * k_) return;
    const bool rs = s < k_;
    const int h = rs ? s : 2 * k_ - 1 - s;  // halving step index
    Rank q = r ^ (Rank{1} << (k_ - 1 - h));
    BlockSet::Range mine = range_after(r, h + 1), theirs = range_after(q, h + 1);
    const Combine c = rs ? Combine::reduce : Combine::copy;
    if (rs) {  // send the half the peer keeps, receive the half I keep
      out.sends.push_back({q, BlockSet::range(theirs.lo, theirs.hi), c});
      out.recvs.push_back({q, BlockSet::range(mine.lo, mine.hi), c});
    } else {  // give back my finished half, receive theirs
      out.sends.push_back({q, BlockSet::range(mine.lo, mine.hi), c});
      out.recvs.push_back({q, BlockSet::range(theirs.lo, theirs.hi), c});
    }
  }

 private:
  CollectiveSpec spec_;
  int k_;
};

}  // namespace

// The core on p' = 2^k ranks as an EquivariantSchedule under the
// translations of the torus 2 x .. x 2 (k sides; row-major, so coordinate i
// is bit k-1-i of the rank), which are x -> x XOR r. Both rules read the rank
// only through r XOR c: the peer r XOR 2^s is (r XOR c) XOR 2^s moved by c,
// and Rabenseifner's range_after(r, d), the ranks agreeing with r on the top
// d bits, is range_after(0, d) XOR r (so its blocks, blocks as ranks, move
// with the rank). Tested against the direct generator at every rank for
// every k <= 10 (recursive_doubling_equivariant_test.cpp). p' = 1 has no
// torus: left as it is.
std::unique_ptr<Schedule> hypercube_equivariant(std::unique_ptr<Schedule> direct, BlockAction blocks,
                                                const char* rule) {
  const uint64_t p = direct->p();
  if (p < 2) return direct;
  const std::vector<uint32_t> dims(static_cast<size_t>(swing::ceil_log2(p)), 2);
  return torus_translation_equivariant(
      std::move(direct), blocks, dims,
      std::string("construction (every rank's transfers are rank 0's under x -> x XOR r, the translations of the "
                  "2 x .. x 2 torus, schedules/symmetry.hpp) + ") +
          rule + " (recursive_doubling.cpp), tested against the direct generator at every rank for p' <= 1024");
}

std::unique_ptr<Schedule> make_recursive_doubling_latency(uint64_t p) {
  return fold_onto(p, hypercube_equivariant(std::make_unique<RecursiveDoublingLatency>(pow2_floor(p)),
                                            BlockAction::fixed, "the rule reads r only as r XOR 2^s"));
}

std::unique_ptr<Schedule> make_rabenseifner(uint64_t p) {
  return fold_onto(p, hypercube_equivariant(std::make_unique<Rabenseifner>(pow2_floor(p)), BlockAction::as_ranks,
                                            "the rule reads r only as r XOR 2^s and as the aligned range of r, "
                                            "whose image under XOR c is the aligned range of r XOR c"));
}

// The direct generators (the equivariance test compares them).
std::unique_ptr<Schedule> make_recursive_doubling_latency_direct(uint64_t p) {
  return std::make_unique<RecursiveDoublingLatency>(p);
}
std::unique_ptr<Schedule> make_rabenseifner_direct(uint64_t p) { return std::make_unique<Rabenseifner>(p); }

}  // namespace collcheck
