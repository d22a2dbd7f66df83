#pragma once
// What a property says about one instance: holds, violated (with the minimal
// counterexample), unknown (e.g. solver timeout) or skipped. A violation is a
// result, never an exception.
#include <cstdint>
#include <map>
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

struct Counterexample {
  uint64_t p = 0;
  std::optional<Rank> rank;
  std::optional<int> step;
  std::optional<Block> block;
  std::optional<Rank> peer;
  std::string expected;
  std::string actual;
  std::string message;  // one sentence a human can act on

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
  std::string location() const;  // "p=6 rank=0 step=2 block=4"
};

struct Verdict {
  std::string property;
  Status status = Status::holds;
  std::optional<Counterexample> counterexample;  // the minimal one
  uint64_t checks = 0;      // how many elementary checks ran
  uint64_t violations = 0;  // how many failed (>= 1 iff violated)
  std::string mode;         // e.g. "exact", "fingerprint (error <= 2^-61 per check)", "z3"
  std::map<std::string, std::string> stats;  // property-specific measurements

  // Records a failure, keeping the minimal counterexample.
  void fail(Counterexample cx);
  // Merges another partial verdict of the same property (rank ranges, block chunks).
  void merge(const Verdict& other);
};

}  // namespace collcheck
