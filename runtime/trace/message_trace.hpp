#pragma once
// Message traces of a collective built on MPI point-to-point: every message
// the implementation sent, turned into collcheck's schedule model so that a
// defect is reported at the message that introduced it ("rank 5's message to
// rank 2 in round 3 carries rank 1's contribution to element 7 a second
// time"), and the schedule checked with every property.
//
// The events come from the PMPI interposition of collcheck-mpi --trace
// (runtime/trace/pmpi_recorder.hpp); this file is pure (no MPI) and unit
// tested without mpirun (tests/unit/runtime/message_trace_test.cpp).
//
// What a message carries is read from the data itself, thanks to the
// payloads (runtime/blackbox/payloads.hpp): with `tagged-counters` every
// element of a reduction names its block (the tag) and exactly which ranks'
// contributions it holds, how many times each (the counters), in any buffer
// the implementation uses; with `source-tagged` every element of a data
// movement names its origin rank and block.
//
// From messages to a schedule:
//  * Matching: the k-th send from s to d with tag t is the k-th receive posted
//    at d from s with tag t (MPI's non-overtaking rule). A send nobody
//    received, or a receive of nothing, is reported.
//  * Rounds: the smallest step numbers such that, on every rank, a send comes
//    no earlier than the events before it, a receive no earlier than the
//    sends before it, and a send strictly after every receive that completed
//    before it. Under the schedule semantics (sends carry what a rank held
//    before the step, receives apply after it) the model then sees at every
//    send exactly what the rank had received by then.
//  * Combine modes, per element: what a receive carries that is disjoint from
//    what the receiver holds is reduced into it; what contains it is copied
//    over it (data movement: always copied).
//  * Faithfulness: the model's contributions at every sender are compared
//    with what each message actually carried, and every rank's model result
//    with its actual result. A difference is a finding (a rank changed its
//    data between messages: a lost or extra local combine, or data moved by
//    something collcheck does not trace, such as a collective called inside
//    the implementation), and then no schedule is produced: collcheck never
//    checks a schedule that does not describe what happened.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedules/collective.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::runtime::trace {

// One point-to-point event of one rank, in the order the rank made it: a send
// when it was posted, a receive when it completed (MPI_Recv, MPI_Sendrecv, or
// the MPI_Wait / MPI_Waitall / MPI_Waitany / MPI_Test that completed an
// MPI_Irecv).
struct Event {
  enum class Kind : uint8_t { send, recv } kind = Kind::send;
  int peer = 0;           // the other rank (of the collective's communicator)
  int tag = 0;
  uint64_t posted = 0;    // receives: the order the rank posted them in (matching)
  uint64_t elements = 0;  // in the message's datatype
  bool payload_type = true;  // in the collective's own datatype (decodable)
  bool same_comm = true;     // on the collective's communicator or a congruent one
  std::vector<int64_t> data;  // a receive in the payload type: elements x width values
};

// How an element of the payload is read.
enum class Encoding : uint8_t {
  tagged_counters,  // width p + 1: p counters, then (block + 1) x their sum
  source_tagged,    // width 1: origin * source_elements + index in the origin's send buffer
};

struct TraceSpec {
  CollectiveSpec collective;  // allreduce, reduce, reduce-scatter (blocks split evenly), allgather, broadcast
  Encoding encoding = Encoding::tagged_counters;
  uint64_t source_elements = 0;  // source-tagged: each rank's send buffer elements
  uint64_t width() const { return encoding == Encoding::tagged_counters ? collective.p + 1 : 1; }
};

// One element as decoded: its block and how many times each rank's
// contribution is in it (empty: the element carries nothing).
struct Element {
  Block block = 0;
  std::vector<uint32_t> counts;  // p entries
  bool empty() const;
};
// nullopt and `why` set when the values are no element of the payload
// (e.g. the receive sentinel, a block beyond the vector).
std::optional<Element> decode(const TraceSpec& s, const int64_t* values, std::string& why);

// A rank's result: the block of each element and its values (width each).
struct Result {
  std::vector<Block> blocks;
  std::vector<int64_t> data;
};

struct TraceReport {
  uint64_t messages = 0;
  int rounds = 0;
  // The first defective message (smallest round, then sender): one that
  // carries a contribution more than once, an element twice, or no element
  // of the payload. A definite defect, whatever happens after it.
  std::optional<std::string> defect;
  // Why no schedule could be made: a message collcheck cannot read (another
  // datatype or communicator, a send nobody received), or a rank whose data
  // changed between its messages (a lost or extra local combine, or data
  // moved by something collcheck does not trace: the two cannot be told
  // apart, so it is reported and nothing is checked on a guess).
  std::optional<std::string> untraceable;
  // The schedule describes every message, but some rank's result is not what
  // its messages gave it (the first such rank): changed locally after its
  // last message, or by something not traced.
  std::optional<std::string> local_change;
  MaterializedSchedule schedule;  // when !untraceable
};

// events[r]: rank r's events in order; results[r]: rank r's result (empty
// where nothing is required, e.g. a non-root after a reduce).
TraceReport analyze(const TraceSpec& spec, const std::vector<std::vector<Event>>& events,
                    const std::vector<Result>& results);

}  // namespace collcheck::runtime::trace
