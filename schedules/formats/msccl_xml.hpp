#pragma once
// MSCCL algorithm XML (the "old format" msccl-tools' ir_to_xml writes and the
// MSCCL runtime reads), parsed with pugixml into plain data:
//
//   <algo name proto nchannels nchunksperloop ngpus coll inplace outofplace>
//     <gpu id i_chunks o_chunks s_chunks>
//       <tb id send recv chan>
//         <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep/>
//
// A <tb> sends to gpu `send` and receives from gpu `recv` (-1: none) on
// channel `chan`; its steps run in the order of `s`. A step waits for step
// `deps` of threadblock `depid` on the same gpu (-1: none); `hasdep="1"`
// marks a step some other step waits for. Buffers: i (input), o (output),
// s (scratch), offsets and counts in chunks. Step types: s (send), r (recv),
// rrc (recv, reduce with src, store at dst), rcs (recv, store at dst, send it
// on), rrs (recv, reduce with src, send on), rrcs (recv, reduce, store,
// send on), cpy (dst = src), re (dst = dst + src), nop (only a dependency).
// Semantics adopted and their limits: docs/msccl-xml.md
// and schedules/formats/msccl_check.hpp.
//
// Everything structural is validated here and reported as InputError
// "FILE:LINE: what was expected" (exit 2): XML syntax, missing or non-integer
// attributes, unknown step types or buffers, ids out of range or repeated,
// steps out of order, offsets outside the declared buffers, a dependency on a
// step that does not exist, a send/recv step on a threadblock without that
// peer. Whether the program is a correct collective is msccl_check's job.
#include <cstdint>
#include <string>
#include <vector>

namespace collcheck::msccl {

enum class Buf : uint8_t { input, output, scratch };
const char* to_string(Buf b);  // "i", "o", "s"

enum class OpType : uint8_t { send, recv, recv_reduce_copy, recv_copy_send, recv_reduce_send, recv_reduce_copy_send,
                              copy, reduce, nop };
const char* to_string(OpType t);  // the XML spelling: "s", "r", "rrc", ...
bool sends(OpType t);       // s, rcs, rrs, rrcs
bool receives(OpType t);    // r, rrc, rcs, rrs, rrcs
bool reads_src(OpType t);   // s, rrc, rrs, rrcs, cpy, re
bool writes_dst(OpType t);  // r, rrc, rcs, rrcs, cpy, re
bool reduces(OpType t);     // rrc, rrs, rrcs, re

// custom: msccl-tools' Collective subclass of the user's own; the file does
// not say what it computes (no postcondition, no buffer aliasing).
enum class Collective : uint8_t { allreduce, allgather, reduce_scatter, alltoall, custom };
const char* to_string(Collective c);  // "allreduce", "allgather", "reduce_scatter", "alltoall", "custom"

struct Step {
  int s = 0;
  OpType type = OpType::nop;
  Buf srcbuf = Buf::input, dstbuf = Buf::output;
  int64_t srcoff = -1, dstoff = -1;
  int64_t cnt = 1;
  int depid = -1, deps = -1;
  bool hasdep = false;
  int line = 0;
};

struct ThreadBlock {
  int id = 0;
  int send = -1, recv = -1, chan = 0;
  std::vector<Step> steps;
  int line = 0;
};

struct Gpu {
  int id = 0;
  int64_t i_chunks = 0, o_chunks = 0, s_chunks = 0;
  std::vector<ThreadBlock> tbs;  // indexed by tb id (validated: ids 0..n-1)
  int line = 0;
};

struct Program {
  std::string path;  // for messages
  std::string name, proto;
  Collective coll = Collective::allreduce;
  int ngpus = 0, nchannels = 0;
  int64_t nchunksperloop = 0;
  // The ways the runtime may run it (<algo inplace outofplace>, independent
  // flags as the MSCCL runtime reads them; outofplace defaults to
  // !inplace, as msccl-tools' ir_to_xml writes only inplace): at least one.
  bool inplace = false, outofplace = true;
  std::vector<Gpu> gpus;  // indexed by gpu id (validated: ids 0..ngpus-1)
  // The collective's chunks per rank and destination ("chunk factor" of
  // msccl-tools' collectives.py): nchunksperloop for allreduce,
  // nchunksperloop / ngpus for the others (custom: nchunksperloop).
  int64_t chunk_factor = 1;
  size_t num_steps() const;
};

// The name of the root element `text` starts with, after the prolog (the
// XML declaration, processing instructions, comments and a DOCTYPE, internal
// subset included); empty if `text` does not start as XML does.
std::string xml_root_element(const std::string& text);

// True if the root element of `text` is <algo> (auto-detection in check-file).
bool looks_like_msccl(const std::string& text);

// For the root element of an NCCL topology file (<system>, the machine's
// topology) or topology graph file (<graphs>, the rings and trees NCCL
// chose): what the file is ("an NCCL topology file"), else empty.
std::string nccl_topology_kind(const std::string& root);

// Parses and validates; throws InputError "PATH:LINE: ..." on anything
// malformed, an attribute given twice on one element included. A DOCTYPE is
// skipped, its entities are never expanded (pugixml knows only the five
// predefined ones and character references; "&name;" stays as written), so
// external entities and entity bombs are inert. ResourceRefusal
// (schedules/memory_guard.hpp) if the text and the document tree pugixml
// would build exceed `max_memory` bytes (0: no limit; estimated from the
// text before pugixml allocates) or the process runs out of memory.
Program parse_program(const std::string& text, const std::string& path, uint64_t max_memory = 0);

// Writes the program back in the same format (every attribute, one element
// per line); parse_program(to_xml(p)) reproduces p up to line numbers.
std::string to_xml(const Program& p);

// "gpu 2 tb 0 step 3" — how reports name a step.
std::string step_name(int gpu, int tb, int s);

}  // namespace collcheck::msccl
