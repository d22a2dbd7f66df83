#pragma once
// Step lower bounds by SAT (SCCL-style, Cai et al. PPoPP'21 "Synthesizing
// optimal collective algorithms"): Boolean variables "rank r holds item u after
// step t" and "rank i sends to rank j in step t"; the solver chooses the
// transfers subject to a port model and a message-content model. unsat for T
// steps is a proof that NO schedule of T steps exists in that model, for every
// choice of peers and message contents; sat is a schedule, which is replayed
// concretely (replay_step_schedule) before it is reported.
//
// Items: allreduce and allgather: the p contributions (input vectors / own
// blocks); alltoall: the p^2 blocks (s, d) = s*p + d, starting at s, needed at
// d; broadcast: the n blocks of the root. One step: every rank sends at the
// same time, a message carries what its sender held at the start of the step.
//
// Port model (StepModel::ports = k): in one step a rank sends at most k
// messages and receives at most k (full duplex; a rank's send and receive
// peers may differ; an exchange pair is one send and one receive). Topology:
//   any_peer        every pair i != j may communicate. A bidirectional ring
//                   with one port per direction and messages at any ring
//                   distance (Trivance, Bruck) is the same model for k = 2:
//                   the transfers of one step form a bipartite graph of
//                   degree <= 2, which König's theorem 2-edge-colours into
//                   "clockwise" and "counter-clockwise" (link contention is
//                   not modelled).
//   ring_neighbours only r -> r +- 1 mod p.
// Content model (StepModel::content):
//   knowledge    a message carries any subset of the items its sender holds,
//                the receiver keeps the union (gossip; contributions kept
//                individually, duplicates harmless). The most permissive
//                model: a schedule of any other model is one of these, so an
//                unsat answer here is a lower bound for all of them.
//                (Broadcast: at most one block per message, Träff's model of
//                n blocks of m/n each.)
//   stored       allreduce with exactly-once: a rank keeps its own input and
//                every message it received as separate vectors ("items");
//                a message is the sum of any sub-collection of the sender's
//                items; what a rank receives in one step is pairwise disjoint
//                and disjoint from what it already holds (no contribution
//                ever arrives twice); at the end it sums all its items.
//   running_sum  allreduce with exactly-once and ONE accumulator per rank: a
//                message carries the sender's whole accumulator (as at the
//                start of the step); the receiver either adds every received
//                message to its accumulator or replaces the accumulator by
//                their sum (one decision per rank and step, and only in a
//                step in which it receives something: an accumulator is
//                never dropped, so it is never empty); everything added
//                together is pairwise disjoint.
//   running_sum_add  the same, but the receiver always adds (no replace):
//                every received sum is disjoint from the accumulator
//                (Trivance's and recursive doubling's joint reductions).
//
// Monotonicity: every model allows idle steps, so "no schedule in T steps"
// implies "none in fewer"; proving T = L-1 proves the bound L.
//
// Bounds (information_bound): allreduce / allgather / alltoall with k ports:
// ceil(log_{k+1} p) (a rank's knowledge grows at most (k+1)-fold per step);
// n-block broadcast, one port, one block per message: n-1+ceil(log2 p)
// (Träff, Sec. 1: the root sends one block per step, so its last block
// leaves at step n at the earliest, when 2 ranks hold it, and the number of
// holders at most doubles per step after that). The SAT proofs use neither
// argument; the formulas only say which step count to refute.
//
// Encodings: the forward one (H per step, rank and item) for every problem;
// for one target in the knowledge model a backward one (B[t][r]: "what r
// holds after step t reaches rank 0 in time"), equivalent and far smaller,
// with sound symmetry breaking (ranks relabelled in the order they join).
// Broadcast also breaks symmetry: non-root ranks are relabelled in the order
// they first receive a block (for any_peer only). Measured effect: one-port
// allreduce p = 16 one target 49 s -> 0.07 s; broadcast p = 8, n = 8
// timeout (120 s) -> 8 s.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/block_set.hpp"

namespace collcheck::smt {

enum class StepGoal { allreduce, allgather, alltoall, broadcast };
enum class Content { knowledge, stored, running_sum, running_sum_add };
enum class Topology { any_peer, ring_neighbours };

const char* to_string(StepGoal g);
const char* to_string(Content c);
const char* to_string(Topology t);

struct StepModel {
  int ports = 1;
  Content content = Content::knowledge;
  Topology topology = Topology::any_peer;
};
std::string describe(const StepModel& m);  // "1-port, any peer, knowledge"

struct StepProblem {
  StepGoal goal = StepGoal::allreduce;
  uint64_t p = 2;
  int steps = 1;  // exactly this many steps (idle steps allowed)
  StepModel model;
  uint32_t blocks = 1;  // broadcast: n
  Rank root = 0;        // broadcast
  // Relaxation for lower bounds (allreduce, allgather, alltoall): only rank 0
  // must complete. unsat of the relaxation is unsat of the full problem.
  bool one_target = false;
};

// One message of a found schedule. items: contributions (allreduce,
// allgather), blocks (broadcast) or s*p+d (alltoall), sorted; replace: the
// receiver replaces its accumulator instead of adding (running_sum only).
struct StepMessage {
  int step = 0;  // 1-based
  Rank src = 0;
  Rank dst = 0;
  std::vector<uint32_t> items;
  bool replace = false;
};

enum class Existence { exists, impossible, unknown };
const char* to_string(Existence e);

struct StepSearch {
  Existence answer = Existence::unknown;
  std::vector<StepMessage> schedule;  // exists: a replayed schedule
  Verdict verdict;                    // stats: solver_seconds, variables, clauses, ...
};

// Why the problem is outside the encoding (p or size too large, content model
// that does not apply to the goal), or nullopt.
std::optional<std::string> unsupported(const StepProblem& problem);

// Does a schedule of problem.steps steps exist? timeout_ms: wall clock (0: no
// limit). smt2_dir: also write the query as SMT-LIB2 there.
StepSearch find_schedule(const StepProblem& problem, unsigned timeout_ms, const std::string& smt2_dir = "");

// Concrete check of a schedule against the model's rules and the goal:
// nullopt if valid, else the first rule it breaks. Independent of Z3, and
// the same semantics as the encoding (a schedule find_schedule extracts from
// any model replays): a message carries what its sender held at the start of
// the step; a receiver absorbs all of a step's messages at once (pairwise
// disjoint, and disjoint from what it keeps); running_sum: all messages into
// one rank in one step carry the same replace flag.
std::optional<std::string> replay_step_schedule(const StepProblem& problem, const std::vector<StepMessage>& sched);

// "step 1: 0->1 {0} 2->3 {2}; step 2: ..." (items as numbers; alltoall as s>d).
std::string format_step_schedule(const StepProblem& problem, const std::vector<StepMessage>& sched);

// The claimed-optimal step count L (see header comment); -1 if the goal has
// no bound in this port model (broadcast needs ports = 1).
int information_bound(StepGoal goal, uint64_t p, int ports, uint32_t blocks);

// Property "smt-step-lower-bound-<goal>": no schedule of L-1 steps exists
// (problem.steps is ignored and set to L-1). holds: unsat (proven bound);
// violated: Z3 found a schedule of L-1 steps (the bound is wrong in this
// model; the schedule is in the counterexample); unknown: timeout / error.
// stats: bound, steps_refuted, model, solver_seconds, ...
Verdict prove_step_lower_bound(StepProblem problem, unsigned timeout_ms, const std::string& smt2_dir = "");

}  // namespace collcheck::smt
