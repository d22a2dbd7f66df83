#pragma once
// The dense engine: every rank, every step, one cell per (rank, block), in
// parallel over ranks (TBB). At each step every rank's transfers are
// generated, the step-local properties (matching, ports, the step hook, cost
// accounting) judged on them, every sender's blocks snapshotted (values
// before the step) and every receive applied; causality, exactly-once and
// the postcondition judge each snapshot, each combine and the final cells.
// Cells are exact p-bit sets (ExactCells, flow_common.hpp) or fingerprints
// (a count and a sum of random 61-bit weights in the field 2^61 - 1; a wrong
// multiset with the right count passes with probability at most 2^-61 per
// check). Blocks are processed in chunks that fit the memory budget; each
// chunk generates the rank programs again.
#include <cstdint>

#include "properties/flow/flow_common.hpp"
#include "properties/instance_checker.hpp"

namespace collcheck::flow {

struct DenseResult {
  Verdicts verdicts;
  CostMeasurement cost;
  uint64_t chunks = 0;  // block chunks simulated
};

DenseResult run_dense_exact(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o);
DenseResult run_dense_fingerprint(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o);

}  // namespace collcheck::flow
