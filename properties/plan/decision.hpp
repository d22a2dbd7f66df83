#pragma once
// What decided an instance, as data: the method (one of the decision plan's,
// decision_plan.hpp) with the parameters its report sentence names, the
// methods that declined before it with their reasons, and a refusal as a
// type. Reports render the sentence from these in one place (describe);
// nothing reads control flow out of display text.
#include <cstdint>
#include <string>
#include <vector>

namespace collcheck {

// Every method of the decision plan, in plan order.
enum class MethodId : uint8_t {
  parametric_certificate,  // a proof for an interval of p (properties/parametric_decider.hpp)
  fold_over_grouped,       // composition: a fold onto a core decided by the grouped quotient
  extra_rank,              // composition: an extra rank beside a core decided by the grouped quotient
  fold_over_quotient,      // composition: a fold onto a core decided by the certified quotient
  grouped_quotient,        // rank 0 as groups of blocks sharing one contribution set
  cell_quotient,           // rank 0's cells (runs of ranks, p-bit sets, boxes, held blocks)
  rotation,                // translation invariance probed and verified on every rank, rank 0 simulated
  intervals,               // fingerprint cells as per-rank block ranges
  enumeration,             // every rank, every step (exact or fingerprint cells)
};
inline constexpr int kMethodCount = 9;
// A short stable name ("parametric-certificate", "fold-over-grouped", ...).
const char* to_string(MethodId m);
// The methods that decide from rank 0 (and composition obligations) rather
// than by simulating every rank.
bool decides_from_rank_zero(MethodId m);
// The grouped quotient and the compositions over it (linear in p).
bool builds_on_grouped_quotient(MethodId m);
// A bit per method, for sets of methods (InstanceResult::declined_methods).
constexpr uint16_t method_bit(MethodId m) { return static_cast<uint16_t>(1u << static_cast<int>(m)); }

// The method that decided, with what its sentence names. Which fields a
// method fills is its own: describe() reads each as its method does.
struct DecidedBy {
  MethodId method = MethodId::enumeration;
  std::string group;        // quotients and compositions: the group acting on the (core's) ranks
  std::string certificate;  // and how that group's symmetry is established
  std::string cells;        // how rank 0's state was kept (a mask representation, "runs of ranks (exact)", ...)
  std::string obligations;  // compositions: the obligations as discharged
  uint64_t extra_ranks = 0;  // folds: how many ranks were folded onto the core
  // A method that words itself (a parametric certificate names its rule and
  // interval; enumeration of held cells) or "" (plain enumeration: the
  // report says "enumerated" and the mode).
  std::string text;
};
// The report's sentence for `d` ("" for plain enumeration).
std::string describe(const DecidedBy& d);

// A method that was tried and did not decide, and why.
struct Declined {
  MethodId method;
  std::string reason;
};
// The statistic a decline is shown under in reports and the store
// ("parametric_declined", "grouped_declined", "quotient_declined").
const char* decline_stat(MethodId m);

// An instance that was not checked: the memory guard (before anything was
// allocated, or when a method's state outgrew --max-memory while running),
// or no method could decide it with these options (exit 3 either way).
struct Refusal {
  enum class Kind : uint8_t { memory_before, memory_while_running, undecided };
  Kind kind;
  std::string reason;  // one line; starts with kRefusedPrefix or kUndecidedPrefix (schedules/memory_guard.hpp)
};

}  // namespace collcheck
