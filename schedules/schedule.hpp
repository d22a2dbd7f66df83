#pragma once
// The schedule model: two views of one schedule.
//
//  * Schedule (lazy rank program): rank_step(r, s) yields rank r's transfers in
//    step s, needing no global state, so ranks are generated in parallel and
//    memory stays proportional to what is checked, not to p^2.
//  * MaterializedSchedule: every step of every rank as plain data, for small p
//    (export/import, the SMT encoder, the executors and the MPI backend).
//
// Vocabulary (docs/design.md, "Vocabulary"): a *transfer* is one message in one step: a peer, a
// BlockSet and a combine mode. The combine mode is what the *receiver* does
// with the incoming blocks: `copy` overwrites, `reduce` combines with what it
// holds. Both ends list the transfer: the sender in `sends`, the receiver in
// `recvs`, with the same blocks and combine mode (the matching property
// checks that they agree).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedules/block_set.hpp"
#include "schedules/collective.hpp"

namespace collcheck {

enum class Combine : uint8_t { copy, reduce };
const char* to_string(Combine c);

struct Transfer {
  Rank peer = 0;
  BlockSet blocks;
  Combine combine = Combine::reduce;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct RankStep {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  // Empties both lists. Once a generator has appended through
  // add_send/add_recv, the block sets' storage is kept (up to kSpareSets of
  // them) for the next add_send/add_recv: a checker refills one RankStep per
  // rank step after step, and such a generator then allocates nothing once
  // the storage is warm. A RankStep only ever filled with push_back keeps
  // nothing (no memory held for storage nobody takes back).
  void clear() {
    recycle(sends);
    recycle(recvs);
  }
  // Appends a transfer with an empty block set (recycled storage) to fill.
  Transfer& add_send(Rank peer, Combine c) { return add(sends, peer, c); }
  Transfer& add_recv(Rank peer, Combine c) { return add(recvs, peer, c); }
  // Removes the last send / receive (e.g. one whose set came out empty).
  void pop_send() { pop(sends); }
  void pop_recv() { pop(recvs); }
  bool empty() const { return sends.empty() && recvs.empty(); }
  // The transfers only (not the spare storage).
  friend bool operator==(const RankStep& a, const RankStep& b) { return a.sends == b.sends && a.recvs == b.recvs; }

 private:
  static constexpr size_t kSpareSets = 4;
  std::vector<BlockSet> spare_;
  bool recycles_ = false;  // add_send/add_recv was used: keep storage on clear()
  void keep(BlockSet&& b) {
    if (!recycles_ || spare_.size() >= kSpareSets) return;
    b.clear();
    spare_.push_back(std::move(b));
  }
  void recycle(std::vector<Transfer>& v) {
    for (Transfer& t : v) keep(std::move(t.blocks));
    v.clear();
  }
  void pop(std::vector<Transfer>& v) {
    keep(std::move(v.back().blocks));
    v.pop_back();
  }
  Transfer& add(std::vector<Transfer>& v, Rank peer, Combine c) {
    recycles_ = true;
    v.push_back({peer, {}, c});
    if (!spare_.empty()) {
      v.back().blocks = std::move(spare_.back());
      spare_.pop_back();
    }
    return v.back();
  }
};

// The lazy view. Implementations must be thread-safe for concurrent
// rank_step() calls (they are const and keep no mutable state).
class Schedule {
 public:
  virtual ~Schedule() = default;
  virtual const CollectiveSpec& spec() const = 0;
  uint64_t p() const { return spec().p; }
  uint32_t num_blocks() const { return spec().nblocks; }
  virtual int num_steps() const = 0;
  // Fills `out` (cleared first) with rank r's transfers at step s.
  virtual void rank_step(Rank r, int s, RankStep& out) const = 0;
  // Per-port budget k of the k-port model this schedule claims to respect.
  virtual int ports() const { return 1; }
};

// The materialized view: steps[s][r].
struct MaterializedSchedule {
  CollectiveSpec spec;
  int ports = 1;
  std::vector<std::vector<RankStep>> steps;
  int num_steps() const { return static_cast<int>(steps.size()); }
};

MaterializedSchedule materialize(const Schedule& s);

// Wraps a materialized schedule (e.g. read from a file, or mutated in a test)
// back into the lazy interface so every property and executor accepts it.
class MaterializedView final : public Schedule {
 public:
  explicit MaterializedView(MaterializedSchedule m) : m_(std::move(m)) {}
  const CollectiveSpec& spec() const override { return m_.spec; }
  int num_steps() const override { return m_.num_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override { out = m_.steps.at(s).at(r); }
  int ports() const override { return m_.ports; }
  const MaterializedSchedule& data() const { return m_; }

 private:
  MaterializedSchedule m_;
};

}  // namespace collcheck
