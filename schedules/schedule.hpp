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

// Block sets whose storage a RankStep gave back on clear(), for the next
// add_send/add_recv on this thread (at most kSpareBlockSets; the storage
// moves between threads freely). Thread-local rather than a member so that
// a RankStep stays as small as a stored schedule wants it.
inline constexpr size_t kSpareBlockSets = 8;
inline thread_local std::vector<BlockSet> spare_block_sets;

struct RankStep {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  // Empties both lists; the block sets' storage goes to this thread's
  // spare_block_sets. A checker refills one RankStep per rank step after
  // step, and a generator that appends through add_send/add_recv then
  // allocates nothing once the storage is warm.
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
  friend bool operator==(const RankStep&, const RankStep&) = default;

 private:
  static void keep(BlockSet&& b) {
    if (spare_block_sets.size() >= kSpareBlockSets || b.ranges().capacity() == 0) return;
    b.clear();
    spare_block_sets.push_back(std::move(b));
  }
  static void recycle(std::vector<Transfer>& v) {
    for (Transfer& t : v) keep(std::move(t.blocks));
    v.clear();
  }
  static void pop(std::vector<Transfer>& v) {
    keep(std::move(v.back().blocks));
    v.pop_back();
  }
  static Transfer& add(std::vector<Transfer>& v, Rank peer, Combine c) {
    v.push_back({peer, {}, c});
    if (!spare_block_sets.empty()) {
      v.back().blocks = std::move(spare_block_sets.back());
      spare_block_sets.pop_back();
    }
    return v.back();
  }
};

class Schedule;
class EquivariantSchedule;

// The structure a schedule declares (Schedule::shape): the one question
// generic code asks about a schedule's construction, so that the checker's
// decision plan (properties/plan/) never names a family's class. A shape is
// a claim of construction, not evidence: every method that relies on it
// checks what it needs (a group's certificate, a composition's obligations)
// and declines otherwise.
struct ScheduleShape {
  enum class Kind : uint8_t {
    plain,        // nothing declared
    equivariant,  // rank r's step is g_r of rank 0's under a declared group (schedules/symmetry.hpp)
    folded,       // extra ranks folded onto a core of p' ranks (schedules/fold.hpp)
    extra_rank,   // rank p - 1 beside a core on ranks 0..p-2 that keeps the core's steps
  };
  Kind kind = Kind::plain;
  const EquivariantSchedule* group = nullptr;  // equivariant: the schedule itself
  const Schedule* core = nullptr;              // folded, extra_rank: the schedule on the core ranks
  // extra_rank: the extra rank exchanges with every core rank (the
  // composition is then expected to decide; a model for the estimate, the
  // composition checks its obligations itself).
  bool extra_serves_every_core_rank = false;
};

// The lazy view. Implementations must be thread-safe for concurrent
// rank_step() calls (they are const and keep no mutable state).
class Schedule {
 public:
  virtual ~Schedule() = default;
  virtual const CollectiveSpec& spec() const = 0;
  uint64_t p() const { return spec().p; }
  uint64_t num_blocks() const { return spec().nblocks; }
  virtual int num_steps() const = 0;
  // Fills `out` (cleared first) with rank r's transfers at step s.
  virtual void rank_step(Rank r, int s, RankStep& out) const = 0;
  // Per-port budget k of the k-port model this schedule claims to respect.
  virtual int ports() const { return 1; }
  // The signed offset send `send` of (r, s) was computed with, where the
  // topology has two minimal routes (a torus side's d/2: topology/topology.hpp);
  // 0: no preference (the + way).
  virtual int64_t route_tie(Rank r, int s, size_t send) const {
    (void)r, (void)s, (void)send;
    return 0;
  }
  // The structure this schedule is built with (ScheduleShape above).
  virtual ScheduleShape shape() const { return {}; }
};

// The equivariant schedule `s` is, or the core it is built around is
// (folded, extra_rank): nullptr if none.
const EquivariantSchedule* equivariant_view(const Schedule& s);
const EquivariantSchedule* equivariant_core(const Schedule& s);

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
