#pragma once
// Conformance of a traced implementation to a registry schedule: the bridge
// from code to the proofs. `collcheck-mpi --trace FILE --conforms ALGO[/V]`
// turns the implementation's messages into a schedule (message_trace.hpp)
// and compares it, message by message, with the schedule the registry's
// generator makes at the same p. Where every transfer agrees (step, rank,
// peer, the elements it carries, copy or reduce), the implementation's
// messages are that schedule, so what collcheck decided for the schedule at
// this p holds for the implementation's run at this p and count.
//
// How the two are lined up:
//  * Elements: the traced schedule's blocks are the elements of the vector
//    (one block per element: allreduce, reduce, reduce-scatter, broadcast;
//    origin x count + index for allgather). The registry's block b stands
//    for elements block_elements(E, nblocks, b) of those E, as collcheck-mpi
//    --algo lays a schedule's blocks out (runtime/inputs.hpp). E must be at
//    least the registry's block count, so that every registry block has an
//    element to be seen by (otherwise it is refused: no comparison on blocks
//    the data cannot show).
//  * Steps: compared as numbered. The trace numbers its rounds as early as
//    the messages' order allows, so an implementation of a schedule in which
//    some rank idles for a step may come out with its later messages in
//    earlier rounds: that is reported as a difference (the traced schedule
//    is still checked on its own, as every trace is).
//  * Within one step the transfers of a rank are compared as a set of
//    (direction, peer, elements, combine) in a canonical order: the order in
//    which a rank posts its sends within one step does not change the
//    schedule.
// The first difference is the smallest (step, rank, peer), with both sides'
// transfers of that rank in that step.
#include <cstdint>
#include <optional>
#include <string>

#include "schedules/schedule.hpp"

namespace collcheck::runtime::trace {

struct ConformanceDifference {
  int step = 0;
  Rank rank = 0;
  Rank peer = 0;
  std::string traced;     // the rank's transfers with `peer` in that step, as traced ("nothing" if none)
  std::string reference;  // the same of the registry schedule
  std::string text() const;  // one line naming both
};

struct Conformance {
  uint64_t transfers = 0;  // compared (both sides' sends)
  int steps = 0;           // the larger of the two step counts
  std::optional<ConformanceDifference> first;  // nullopt: conforms
  bool conforms() const { return !first; }
};

// Why the two cannot be compared (a different collective kind, p or root, or
// fewer elements than the registry has blocks); nullopt when they can.
std::optional<std::string> incomparable(const CollectiveSpec& traced, const CollectiveSpec& reference);

// Compares; call only where incomparable() is nullopt.
Conformance compare(const MaterializedSchedule& traced, const Schedule& reference);

}  // namespace collcheck::runtime::trace
