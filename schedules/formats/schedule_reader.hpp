#pragma once
// The reader shared by both encodings of collcheck's schedule format
// (schedules/formats/schedule_file.hpp): a SAX state machine over nlohmann's lexer
// that builds the MaterializedSchedule directly, without a DOM.
//
// It knows the format's shape at every position (which keys an object may
// have, what type each value must be), so every error names the JSON path
// (RFC 6901, e.g. /steps/3/5/sends/0/peer) and what was expected there.
// Unknown keys, duplicate keys, wrong types, negative, fractional or huge
// numbers, overlapping or empty block ranges, peers and blocks out of range,
// ranks listed out of order or a step with more or fewer than p ranks are
// InputError. Values that depend on the header (p, nblocks) are checked as
// soon as the header is known, or after the document if "steps" came first.
//
// JSON lines use one ScheduleReader for the whole file: header() for the
// first line, entry() for every other line, finish() at the end of the file
// (which detects truncation: the header declares the number of steps, and
// every (step, rank) has one line, in step-major order).
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "schedules/formats/schedule_file.hpp"

namespace collcheck::schedule_reader {

// Memory: what nlohmann's lexer holds is bounded (whitespace runs outside
// strings reach it as one character, string and number tokens longer than
// any valid file has are refused before it buffers them), and what the
// reader builds is estimated as it grows: above `max_memory` bytes (0: no
// limit; --max-memory) it stops with ResourceRefusal ("refused by the memory
// guard while reading FILE, at line L: ..."), and std::bad_alloc while
// reading becomes ResourceRefusal ("out of memory while reading FILE ...").

// One JSON document (the "collcheck-schedule/1" or "/2" form).
ScheduleDocument parse_document(std::istream& in, const std::string& source, uint64_t max_memory = 0);
ScheduleDocument parse_document(const std::string& text, const std::string& source, uint64_t max_memory = 0);

class LinesReader {
 public:
  explicit LinesReader(std::string source, uint64_t max_memory = 0);
  ~LinesReader();
  LinesReader(const LinesReader&) = delete;
  LinesReader& operator=(const LinesReader&) = delete;
  // `line` without its newline; `lineno` counts from 1; `first_col`: the
  // columns before `line` starts (leading whitespace the caller dropped),
  // for the positions in error messages.
  void header(const std::string& line, uint64_t lineno, uint64_t first_col = 0);
  void entry(const std::string& line, uint64_t lineno, uint64_t first_col = 0);
  // The memory guard with `bytes` more held by the caller (the line being
  // read): ResourceRefusal if over the limit.
  void check_line(uint64_t bytes, uint64_t lineno) const;
  // std::bad_alloc while reading line `lineno`: ResourceRefusal saying so,
  // after dropping what was read (the message needs memory too).
  [[noreturn]] void out_of_memory(uint64_t lineno);
  // Called at the end of the file; `last_line` = the number of lines read.
  ScheduleDocument finish(uint64_t last_line);

  struct State;  // the reader's state (schedule_reader.cpp), also used for whole documents

 private:
  std::unique_ptr<State> st_;
};

// JSON lines: entry lines of the common shape are taken by a scanner that
// gives up on anything unusual, leaving the line to the SAX path (which alone
// reports errors). Tests switch it off to compare both paths; default on.
void set_fast_path(bool enabled);

// Comparisons of free-form names (producer keys, claimed properties) made by
// this thread's duplicate detection so far: tests check that n names cost
// O(n log n) of them, not O(n^2).
uint64_t name_comparisons();

// A one-line, printable rendering of arbitrary bytes, cut after `max` bytes:
// file content never breaks the one-line error message (escape_controls_cut,
// schedules/input_error.hpp: the one escaping rule of every message).
std::string printable(const std::string& bytes, size_t max = 60);

}  // namespace collcheck::schedule_reader
