#pragma once
// Translation validation of one materialized schedule with Z3: the schedule is
// encoded as a data-flow formula and the collective's postcondition is proven
// for ALL input values, with exact multiplicity.
//
// Encoding (linear integer arithmetic, QF_LIA):
//   - x_<r>_<b>: the input of rank r in block b, a symbolic integer, for every
//     (r, b) that CollectiveSpec::initial_contributor gives a contribution;
//     u_<r>_<b>: the undefined content of every other block (the buffer before
//     anything arrives), also symbolic: a schedule that lets it reach a
//     result is wrong for some value of it.
//   - the reduction is + over the integers (commutative, associative, no
//     overflow); a step snapshots every sender's values first, then applies
//     every receive in list order: copy overwrites, reduce adds (the
//     executor's and the flow checker's semantics).
//   - so every final value is a linear combination of the x and u with
//     non-negative integer coefficients, as an expression DAG.
//   - postcondition: for every (r, b) the collective requires, the value
//     equals sum_{c contributes to b} x_c_b (reductions) or x_origin_b (copy
//     collectives). Because it must hold for all x and u, it holds iff every
//     coefficient is exactly 1 (or 0 where nothing is required): a missing
//     contribution, a double count, a foreign block or undefined data is a
//     model of the negation.
// Z3 is asked for "exists x, u: some required (r, b) differs". unsat: holds
// for every input (the proof). sat: the smallest violated (rank, block) is
// found by binary search over prefixes of the (rank, block) order (the same
// order as verify's postcondition counterexample), then a witness is built
// on the threaded executor's own inputs (runtime/inputs.hpp, one element per
// block, seeds 1..16 until one exposes the defect) so the executor can replay
// it: replay_witness runs the schedule on those inputs and must report the
// same rank and block with the same wrong value (or undefined data).
//
// Before encoding, the schedule must be well formed: peers and blocks in
// range and every receive matched by a send with the same blocks and combine
// mode (else: violated, stats["stage"] = "structure", no solver call).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/verdict.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::smt {

struct TvWitness {
  Rank rank = 0;
  Block block = 0;
  uint64_t seed = 1;         // executor seed (elems_per_block = 1) whose inputs expose the defect
  std::string actual_form;   // the final value as a linear combination, e.g. "x_0_1 + 2*x_1_1"
  std::string expected_form; // e.g. "x_0_1 + x_1_1 + x_2_1"
  bool undefined = false;    // the value depends on undefined data (u_*)
  int64_t expected = 0;      // under the executor's inputs
  int64_t actual = 0;        // under the executor's inputs (undefined data as Z3 chose it)
  std::vector<std::pair<std::string, int64_t>> inputs;  // x_c_b of the block: name, value
};

struct TvResult {
  Verdict verdict;  // property "smt-translation-validation", mode "z3"
  std::optional<TvWitness> witness;
};

// Largest instance the encoding takes: p * nblocks cells.
constexpr uint64_t kTvMaxCells = 1 << 18;

// smt2_dir: also write the queries there as SMT-LIB2, in files named
// smt-translation-validation-<name>-... (name: e.g. "swing-bandwidth-p8";
// default: the collective and p).
TvResult validate_translation(const MaterializedSchedule& m, unsigned timeout_ms, const std::string& smt2_dir = "",
                              const std::string& name = "");

// Runs the schedule with the threaded executor on the witness's inputs
// (int64, sum, one element per block, seed w.seed).
runtime::ExecResult replay_witness(const MaterializedSchedule& m, const TvWitness& w);

// Does the executor's result confirm the witness: violated at (w.rank,
// w.block) with the value w.actual (or undefined data when w.undefined)?
bool replay_confirms(const runtime::ExecResult& r, const TvWitness& w);

// validate_translation, then a violation's witness replayed on the threaded
// executor: confirmed, the verdict gains stats["replay"]; not confirmed, it
// becomes unknown with stats["error"] (an encoding bug, never a violation).
// Used by the prove query and by check-file --translation-validation.
Verdict validate_and_replay(const MaterializedSchedule& m, unsigned timeout_ms, const std::string& smt2_dir = "",
                            const std::string& name = "");

}  // namespace collcheck::smt
