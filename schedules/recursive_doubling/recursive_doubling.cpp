#include "schedules/recursive_doubling/recursive_doubling.hpp"

#include "schedules/fold.hpp"
#include "schedules/swing/swing_math.hpp"

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

std::unique_ptr<Schedule> make_recursive_doubling_latency(uint64_t p) {
  return fold_onto(p, std::make_unique<RecursiveDoublingLatency>(pow2_floor(p)));
}

std::unique_ptr<Schedule> make_rabenseifner(uint64_t p) {
  return fold_onto(p, std::make_unique<Rabenseifner>(pow2_floor(p)));
}

}  // namespace collcheck
