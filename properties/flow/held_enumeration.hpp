#pragma once
// Exact enumeration of an all-to-all with cells only for the blocks a rank
// holds. Internal to the decision plan (properties/plan/methods/enumeration_method.cpp).
//
// An all-to-all on p ranks has p^2 blocks, (source, destination) pairs, and
// the dense exact simulation keeps a p-bit cell for every (rank, block):
// p^3 cells, p^4 / 8 bytes (4.2 GB and 12-16 s per instance at p = 512,
// whatever the radix). But a rank never holds more than its own p blocks and
// what it receives: this simulation keeps, per rank, a hash map from the
// blocks it has held to their cells, and a block absent from the map is
// empty. A cell is one word while it holds at most one contribution counted
// once (every cell of a correct all-to-all: a block's only contributor is
// its source); any other value is kept exactly as the dense cells keep it
// (flow::ExactCells: p bits and the "counted more than once" flag), and
// every combine that involves such a value runs ExactCells' own reduce or
// copy on the expanded words.
//
// It is the same enumeration, not a quotient: every rank's transfers of
// every step are generated and every rank's cells simulated, with the same
// checks in the same places as the dense simulation with an outbox
// (dense_simulation.cpp, FlowSimulator): step-local properties (matching,
// ports, receive races, the step hook, send volumes) on every rank; every
// sent block judged once against its sender's cell before the step
// (causality a); every matched receive applied in canonical order (reduce:
// double counts and reduce-into-undefined; copy: lost contributions); at the
// end every (rank, block) with a requirement judged (rank r, blocks (i, r)),
// an absent cell as empty. So the verdicts, their check and violation counts
// and the minimal counterexamples are the dense simulation's (tests compare
// both at every p <= 48 and every radix, mutants included).
//
// Memory: at most p * (p + the blocks a rank receives over all steps) map
// slots of 48 bytes, the set cells (none in a correct all-to-all) and one
// step's outbox; run_held_enumeration stops (aborted, nothing judged) if the
// cells outgrow `max_memory`.
#include <cstdint>
#include <optional>
#include <string>

#include "properties/cost.hpp"
#include "properties/flow/flow_common.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::flow {

inline constexpr const char* kHeldEnumerationMethod =
    "enumerated, exact: every rank simulated with p-bit sets, cells only for the blocks each rank holds "
    "(all-to-all)";

// Whether the held-cell enumeration applies to `s`: an all-to-all (p^2
// blocks, block (i, j) = i * p + j).
bool held_enumeration_applies(const Schedule& s);

// Bytes the held-cell enumeration of `s` needs at most, every rank taken to
// receive as many blocks as rank 0 over the whole schedule (`recv_total`).
uint64_t held_enumeration_bytes(const Schedule& s, uint64_t recv_total);

struct HeldEnumerationResult {
  Verdicts verdicts;
  CostMeasurement cost;
  uint64_t max_cells = 0;             // cells kept at the end, over all ranks
  std::optional<std::string> aborted;  // the cells outgrew max_memory: nothing judged
};

// max_memory 0: no limit.
HeldEnumerationResult run_held_enumeration(const Schedule& s, const StepHook& hook, uint64_t max_memory);

}  // namespace collcheck::flow
