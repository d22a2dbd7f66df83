#pragma once
// The parametric certificate of an allreduce whose rule gives every rank, at
// every step, exactly one send and one receive of one block each (the ring
// allreduce: schedules/ring/ring_rule.hpp), for every p of an interval at
// once.
//
// Inputs: the rule, written once over an arithmetic policy and instantiated
// here with Z3 terms (z3_rule_arith.hpp), so the obligations are about the
// generator's own code; and an invariant: for rank r, block b and
// 0 <= s <= S(p) (S the rule's step count), the contributions rank r's block
// b holds before step s are the cyclic run of ranks start, start + 1, ...,
// start + len - 1 (mod p), each once. The invariant is a proof device: a
// wrong one makes an obligation fail (the certificate then decides
// nothing), never makes one hold.
//
// Obligations, each proved by Z3 for symbolic p in [p_lo, p_hi] and
// symbolic 0 <= r < p, 0 <= b < nblocks, 0 <= q < p (a contributor), and
// 0 <= s < S (or s <= S where stated), every mod of the rule and the
// invariant within the range its encoding is exact for:
//   matching-send   rank r's send goes to a rank 0 <= R < p, R != r, names
//                   a block < nblocks, and R's receive at s is from r, of
//                   the same block, with the same combine;
//   matching-recv   the same for rank r's receive and its sender L;
//   translation     rank r's peers are rank 0's + r (mod p), its blocks rank
//                   0's + block_shift * r (mod nblocks), its combine rank
//                   0's: the certified quotient's construction
//                   (schedules/translation_equivariant.hpp), for every p;
//   reduce-phase    the step reduces iff s < reduce_steps(p) <= S (the
//                   rest copy): what the exactly-once count is made of;
//   run-well-formed 0 <= start < p and 1 <= len <= p for s <= S (so every
//                   block holds something: causality (a) and (d));
//   initial         before step 0 rank r's block b holds exactly {r};
//   reduce-step     at a reducing step, the sender's run of the received
//                   block and the receiver's are disjoint (exactly-once) and
//                   their union is the receiver's run after the step;
//   copy-step       at a copying step, the sender's run has at least as many
//                   contributions as the receiver's (causality (b)) and is
//                   the receiver's run after the step;
//   frame           every block rank r does not receive keeps its run;
//   final           after the last step every block of every rank holds all
//                   p contributions (the allreduce's postcondition).
// By induction on s these make the runs the exact contribution sets of the
// schedule's simulation (sends read the state before the step, as the
// checker's do), so matching, ports (one send and one receive per step),
// causality, exactly-once and postcondition hold at every p of the
// interval, with the checker's own counts (single_transfer_counts).
#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/parametric_decider.hpp"
#include "smt/parametric/z3_rule_arith.hpp"

namespace collcheck::smt::parametric {

struct SymbolicStep {
  z3::expr right, left, give, take, reduce;
};

// (start, len): the cyclic run start, ..., start + len - 1 (mod p).
using Run = std::pair<z3::expr, z3::expr>;

struct SingleTransferAllreduce {
  std::string name;  // the rule, as printed in the method text
  int64_t block_shift = 1;  // rank r's blocks are rank 0's + block_shift * r (mod nblocks)
  // The rule over Z3 terms.
  std::function<z3::expr(Z3Arith&, const z3::expr& p)> num_steps, num_blocks, reduce_steps;
  std::function<SymbolicStep(Z3Arith&, const z3::expr& p, const z3::expr& r, const z3::expr& s)> step;
  // Rank r's block b before step s (0 <= s <= S).
  std::function<Run(Z3Arith&, const z3::expr& p, const z3::expr& r, const z3::expr& b, const z3::expr& s)> invariant;
  std::string certificate_source;  // where the invariant and the proof are written, for reports
  // The same counts at a concrete p (the rule's code at rule::Concrete).
  std::function<int64_t(int64_t p)> num_steps_at, num_blocks_at, reduce_steps_at;
};

struct CertificateOutcome {
  bool proved = false;
  uint64_t p_lo = 0, p_hi = 0;
  std::vector<std::string> obligations;  // names, in the order proved
  std::string failed;                    // the first obligation not proved, with Z3's model or reason
};

// Proves every obligation for p_lo <= p <= p_hi (p_lo >= 2); stops at the
// first that fails (sat: a model; unknown: timeout_ms per query exhausted).
CertificateOutcome prove_single_transfer_allreduce(const SingleTransferAllreduce& rule, uint64_t p_lo, uint64_t p_hi,
                                                   unsigned timeout_ms);

// The verdicts and cost of an instance at p that a proved certificate
// decides: every property holds, with the counts the checker makes (per
// rank and step: matching 2, ports 1, causality 2 (the sent and the received
// block), exactly-once 1 at a reducing step; postcondition one per block;
// times p ranks), steps and volume S (one block per step).
ParametricDecision single_transfer_decision(const SingleTransferAllreduce& rule, uint64_t p);

}  // namespace collcheck::smt::parametric
