#pragma once
// Checks an MSCCL program (msccl_xml.hpp) as a collective, with chunk
// tracking by multiplicity. The verdicts use collcheck's generic property
// names, with the meaning below (p = ngpus, rank = gpu, step = the step's `s`
// within its threadblock, block = the chunk offset, peer = the other gpu; the
// message names "gpu G tb T step S (line L)").
//
//  matching      every connection (sender gpu, receiver gpu, channel) is a
//                FIFO owned by one threadblock at each end (two threadblocks
//                of one gpu sending to one peer on one channel, or receiving
//                from one, is a program the runtime cannot run): the k-th
//                sending step of the sender's threadblock for (peer, chan)
//                pairs with the k-th receiving step of the receiver's
//                threadblock for (sender, chan); both exist and have the
//                same cnt.
//  causality     the happens-before graph (threadblock order, depid/deps,
//                send -> matching receive) is acyclic (no deadlock); every
//                dependency waits for a step with hasdep="1" (the runtime only
//                signals those); no step reads a chunk that holds no data; no
//                two steps of one gpu touch the same chunk, one of them
//                writing, without being ordered by happens-before (a race: the
//                result would depend on timing). Races are decided exactly by
//                vector clocks (msccl_clocks.hpp), one gpu at a time, within
//                Limits::max_clock_bytes; beyond it, or for the steps a
//                deadlock keeps from running, they are not checked, and the
//                verdict says so (unknown when nothing else is violated;
//                stats: races_checked).
//  exactly-once  no reduction combines two values that share a contribution
//                (the same input chunk of the same gpu counted twice), and no
//                output chunk holds a contribution twice.
//  postcondition every output chunk holds exactly what msccl-tools'
//                collectives.py expects: allreduce out[k] = sum_g in_g[k];
//                allgather out[i*C+c] = in_i[c]; reduce_scatter
//                out_r[c] = sum_g in_g[r*C+c]; alltoall
//                out_r[i*C+c] = in_i[r*C+c] (in-place buffers aliased as there).
//
// A program is checked once per way it declares to be run (in place, out of
// place: <algo inplace outofplace>), each a CheckResult. coll="custom" has no
// postcondition: exactly-once and postcondition are unknown ("not judged"),
// matching and causality are checked with every input chunk holding data
// at the start and no buffer aliasing (msccl-tools' base Collective).
//
// Values are multisets of contributions (origin gpu, input chunk). The
// simulation runs the steps in one topological order of happens-before; with
// no race every such order gives the same values.
//
// Where MSCCL is richer than this model (not checked, said here and in the
// docs rather than faked): connections are modelled with unbounded buffering
// (the runtime has NCCL_STEPS slots per connection, so a program that sends
// more than that ahead of its receives can still block), the sender's
// dstbuf/dstoff of an `s` step is ignored (the receiving step decides where
// data lands, as in the runtime), protocols (LL, LL128, Simple), channels'
// mapping to links, pipelining of a step's cnt chunks into slices, and
// timing are not modelled; a program is checked for one loop iteration
// (nchunksperloop chunks).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "schedules/formats/msccl_xml.hpp"
#include "properties/verdict.hpp"

namespace collcheck::msccl {

enum class Mode : uint8_t { in_place, out_of_place };
const char* to_string(Mode m);  // "in-place", "out-of-place"
// The modes `p` declares, in place first.
std::vector<Mode> modes(const Program& p);

struct Limits {
  // The memory of one gpu's vector clocks in the race check: steps x that
  // gpu's threadblocks entries of 4 bytes (check-file: 1 GiB, or
  // --max-memory when that is less).
  uint64_t max_clock_bytes = uint64_t{1} << 30;
  // A racy chunk with at most this many accesses lists every unordered pair;
  // one with more, the pairs of its earliest racing steps (the same minimal
  // counterexample, fewer violations counted).
  uint64_t max_pair_listing = 4096;
};

struct CheckResult {
  Mode mode = Mode::out_of_place;
  std::vector<Verdict> verdicts;  // matching, causality, exactly-once, postcondition
  std::map<std::string, std::string> stats;
};

// One mode, or the first `p` declares.
CheckResult check_program(const Program& p, Mode mode, const Limits& limits = {});
CheckResult check_program(const Program& p);
// Every mode `p` declares.
std::vector<CheckResult> check_modes(const Program& p, const Limits& limits = {});

// The happens-before graph the checker builds (for tests): steps numbered
// gpu by gpu, threadblock by threadblock, in s order; chain = the
// threadblock's number over all gpus, pos = s; topo = the steps that run,
// in a topological order.
struct StepGraph {
  std::vector<int> gpu;
  std::vector<uint32_t> chain;
  std::vector<int32_t> pos;
  std::vector<std::vector<size_t>> succ;
  std::vector<size_t> topo;
  std::vector<uint32_t> gpu_chains;  // gpu g's chains are [gpu_chains[g], gpu_chains[g + 1])
};
StepGraph step_graph(const Program& p);

}  // namespace collcheck::msccl
