#pragma once
// collcheck's schedule file format, version 2 (docs/schedule-format.md, JSON
// Schema docs/schedule.schema.json), in two encodings of the same content:
//
//  * JSON  ("format": "collcheck-schedule/2"): one document, steps[s][r];
//  * JSON lines ("format": "collcheck-schedule-lines/2"): a header line, then
//    one line per (step, rank), step-major, every rank of every step, so that
//    a reader streams it without holding the file (large p).
//
// Both carry the collective, p, nblocks, root, ports, every rank's transfers
// (peer, block ranges [lo, hi), copy or reduce), optional claims (steps,
// per-rank volume, properties the author asserts) and optional producer
// metadata (free-form strings). Version 1 (the JSON form without claims and
// producer) is still read.
//
// Reading validates everything and throws InputError with one line
//   "malformed schedule: FILE: /json/path: what was expected, what was found"
// (JSON lines: "FILE:LINE: /path-in-line: ..."). The shared reader is a SAX
// state machine over nlohmann's lexer (schedules/formats/schedule_reader.hpp): no DOM,
// duplicate keys and unknown keys are errors, nesting never grows beyond the
// format's own depth.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

inline constexpr const char* kScheduleFormat = "collcheck-schedule/2";
inline constexpr const char* kScheduleFormatV1 = "collcheck-schedule/1";
inline constexpr const char* kScheduleLinesFormat = "collcheck-schedule-lines/2";

// What the file's author claims. check-file judges steps and volume with the
// `cost` property and the asserted properties with a `claims` verdict.
struct FileClaims {
  std::optional<int> steps;                // communication steps (last non-empty step + 1)
  std::optional<uint64_t> volume_blocks;   // max over ranks of blocks sent
  std::string steps_formula, volume_formula, source;  // optional, for the report
  std::vector<std::string> properties;     // property names asserted to hold
  // Where "claims" sits in the file ("FILE: /claims" or "FILE:1: /claims"),
  // for errors about its content found after parsing (unknown property names).
  std::string location;
};

// Free-form producer metadata: string keys and values, in file order.
using Producer = std::vector<std::pair<std::string, std::string>>;

struct ScheduleDocument {
  MaterializedSchedule schedule;
  std::optional<FileClaims> claims;
  Producer producer;
  std::string format;  // the "format" string read, e.g. "collcheck-schedule/2"
};

enum class ScheduleEncoding { json, jsonl };
const char* to_string(ScheduleEncoding e);

// By content, never by file name: JSON lines if the first line is (or starts
// like) a header whose "format" is collcheck-schedule-lines/..., JSON otherwise.
ScheduleEncoding detect_encoding(const std::string& first_line);

// Reads a file, streaming (the whole file is never held in memory, nor its
// whitespace); `forced` skips detection. InputError for an unreadable or
// malformed file; ResourceRefusal (schedules/memory_guard.hpp) when what is
// read would exceed `max_memory` bytes (--max-memory; 0: no limit) or the
// process runs out of memory while reading.
ScheduleDocument read_schedule_file(const std::string& path, std::optional<ScheduleEncoding> forced = std::nullopt,
                                    uint64_t max_memory = 0);
// The same from text in memory (tests, fuzzing); `source` names it in errors.
ScheduleDocument parse_schedule_text(const std::string& text, const std::string& source,
                                     std::optional<ScheduleEncoding> forced = std::nullopt, uint64_t max_memory = 0);

// What a writer puts besides the schedule.
struct FileMeta {
  std::optional<FileClaims> claims;
  Producer producer;
};

// Writes from the lazy view, rank by rank (no materialized copy). JSON:
// header fields first, then one rank entry per line (`pretty`) or everything
// on one line. JSON lines: the header line, then one line per (step, rank).
void write_schedule_json(std::ostream& out, const Schedule& s, const FileMeta& meta, bool pretty = true);
void write_schedule_jsonl(std::ostream& out, const Schedule& s, const FileMeta& meta);

// Writes `s` with `meta` in `encoding` (JSON pretty-printed, or JSON lines)
// to the file `out` ("-": stdout), streaming, every write checked
// (schedules/formats/file_io.hpp). InputError if `out` cannot be written.
void write_schedule_file(const std::string& out, const Schedule& s, const FileMeta& meta, ScheduleEncoding encoding);

}  // namespace collcheck
