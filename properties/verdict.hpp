#pragma once
// What a property says about one instance: holds, violated (with the minimal
// counterexample), unknown (e.g. solver timeout) or skipped. A violation is a
// result, never an exception.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/block_set.hpp"

namespace collcheck {

enum class Status { holds, violated, unknown, skipped };
const char* to_string(Status s);
// Combines two statuses: violated > unknown > holds > skipped.
Status worst(Status a, Status b);

struct Verdict;
// The status of an instance: the worst non-skipped verdict, skipped if all are.
Status combined_status(const std::vector<Verdict>& verdicts);

// Where the contribution behind a wrong final value went astray
// (properties/flow/root_cause.hpp): traced back through the schedule for the
// reported postcondition counterexample (and exactly-once's when it is judged
// on the final values), on that counterexample's block.
struct RootCause {
  enum class Kind {
    lost,           // a missing contribution: `rank` held it and did not pass it on in `step`
    counted_twice,  // a doubled contribution: `rank` combines a second copy of it in `step`
    unmatched,      // the value rests on a receive no send matches: `rank` lists it from `peer` in `step`
    unavailable,    // not traced (text says why)
  };
  Kind kind = Kind::unavailable;
  std::optional<Rank> contributor;  // whose contribution
  std::optional<int> step;          // lost: the step in which it should have moved on; counted_twice: the step of the second copy; unmatched: the receive's
  std::optional<Rank> rank;         // lost: the rank holding it; counted_twice: the rank combining it twice; unmatched: the receiving rank
  std::optional<Rank> peer;         // lost: the rank it could have gone to, if one is known; counted_twice: the sender of the second copy; unmatched: the receive's peer
  std::string text;                 // one sentence, e.g. "rank 2 held rank 3's contribution to block 6 after step 1 and never forwarded it"
  friend bool operator==(const RootCause&, const RootCause&) = default;
};
const char* to_string(RootCause::Kind k);
std::optional<RootCause::Kind> root_cause_kind_from_string(const std::string& s);

struct Counterexample {
  uint64_t p = 0;
  std::optional<Rank> rank;
  std::optional<int> step;
  std::optional<Block> block;
  std::optional<Rank> peer;
  std::string expected;
  std::string actual;
  std::string message;  // one sentence a human can act on
  std::optional<RootCause> root_cause = {};  // postcondition / final exactly-once only (not part of the order)

  // A counterexample at the given coordinates; texts are filled in after.
  static Counterexample at(uint64_t p, std::optional<Rank> rank, std::optional<int> step = std::nullopt,
                           std::optional<Block> block = std::nullopt, std::optional<Rank> peer = std::nullopt) {
    Counterexample c;
    c.p = p;
    c.rank = rank;
    c.step = step;
    c.block = block;
    c.peer = peer;
    return c;
  }

  // The minimal counterexample is the first in time: the smallest
  // (p, step, rank, block), then peer (docs/design.md). A missing coordinate
  // sorts before every value: a whole-schedule finding (a cost claim, a
  // table-wide condition) before every step's, a step-wide one before that
  // step's per-rank ones. Findings about final values name the last step
  // (postcondition, the executor's results). Message, expected and actual
  // break the remaining ties, so the choice never depends on thread
  // scheduling. Every checker path (dense exact and fingerprint, intervals,
  // symmetry, MSCCL, the MPI merge, the report summary) keeps its minimum
  // with this one comparison (Verdict::fail / Verdict::merge).
  friend bool operator<(const Counterexample& a, const Counterexample& b);
  // a's coordinates (p, step, rank, block, peer) come strictly before b's:
  // then a < b whatever the texts (a checker may skip building b's texts).
  friend bool coordinates_before(const Counterexample& a, const Counterexample& b);
  std::string location() const;  // "p=6 rank=0 step=2 block=4"
};

// std::optional's interface with the value on the heap: nearly every
// verdict holds and carries no counterexample, and a sweep over 2^21 p keeps
// millions of them (8 bytes each instead of a Counterexample).
template <class T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(std::nullopt_t) {}
  HeapOptional(const T& v) : p_(std::make_unique<T>(v)) {}
  HeapOptional(T&& v) : p_(std::make_unique<T>(std::move(v))) {}
  HeapOptional(const std::optional<T>& o) : p_(o ? std::make_unique<T>(*o) : nullptr) {}
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  HeapOptional& operator=(const T& v) {
    p_ = std::make_unique<T>(v);
    return *this;
  }
  HeapOptional& operator=(T&& v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  HeapOptional& operator=(const std::optional<T>& o) {
    p_ = o ? std::make_unique<T>(*o) : nullptr;
    return *this;
  }
  template <class... A>
  T& emplace(A&&... a) {
    p_ = std::make_unique<T>(std::forward<A>(a)...);
    return *p_;
  }
  void reset() { p_.reset(); }
  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T& value() {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  std::optional<T> to_optional() const { return p_ ? std::optional<T>(*p_) : std::nullopt; }
  operator std::optional<T>() const { return to_optional(); }
  T value_or(T other) const { return p_ ? *p_ : std::move(other); }
  friend bool operator==(const HeapOptional& a, const HeapOptional& b) {
    if (!a.p_ || !b.p_) return !a.p_ && !b.p_;
    return *a.p_ == *b.p_;
  }
  friend bool operator==(const HeapOptional& a, std::nullopt_t) { return !a.p_; }

 private:
  std::unique_ptr<T> p_;
};

struct Verdict {
  std::string property;
  Status status = Status::holds;
  HeapOptional<Counterexample> counterexample;  // the minimal one
  uint64_t checks = 0;      // how many elementary checks ran
  uint64_t violations = 0;  // how many failed (>= 1 iff violated)
  std::string mode;         // e.g. "exact", "fingerprint (error <= 2^-61 per check)", "z3"
  std::map<std::string, std::string> stats;  // property-specific measurements

  // Records a failure, keeping the minimal counterexample.
  void fail(Counterexample cx);
  // Counts a failure at `at` (its coordinates only) when the kept
  // counterexample comes strictly before it, so `at` can never be the
  // minimal one whatever its texts: true if counted, and the caller builds
  // no texts (a refuted sweep fails most cells of most instances). False:
  // the caller words it and calls fail().
  bool counted_beyond_minimal(const Counterexample& at);
  // Merges another partial verdict of the same property (rank ranges, block chunks).
  void merge(const Verdict& other);
};

}  // namespace collcheck
