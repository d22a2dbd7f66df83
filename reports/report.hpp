#pragma once
// The one result model every renderer reads (docs/architecture.md, "Data flow": reports/):
// Report{tool version, command, mode, seed, instances with per-property
// verdicts and counterexamples, statistics}.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/plan/decision.hpp"
#include "properties/verdict.hpp"

namespace collcheck {

struct InstanceResult {
  std::string algorithm;   // registry name, or "file:<path>" for check-file
  std::string variant;
  std::string collective;  // "allreduce", ...
  uint64_t p = 0;
  std::string params;             // the instance's other parameters, e.g. "r=5" (InstanceParams::label)
  Status status = Status::holds;  // worst over verdicts
  std::string skip_reason;        // for Status::skipped
  std::vector<Verdict> verdicts;  // in property order
  double seconds = 0;
  std::map<std::string, std::string> stats;  // e.g. measured steps/volume
  // The decision method of the checker's engine, typed (properties/plan/
  // decision.hpp), and a bit per MethodId that declined before it; unset in
  // a report read back from a store (its stats still name both).
  std::optional<MethodId> decided_by;
  uint16_t declined_methods = 0;
};

// The status the renderers show for an instance: the worst of its `status`
// field and its verdicts' statuses, so a hand-built or partly filled result
// can never read "holds" while one of its verdicts is violated.
Status effective_status(const InstanceResult& i);

struct Report {
  std::string tool_version;
  std::string command;      // the command line that produced it
  std::string kind = "verify";  // verify | prove | run | check-file
  std::string mode;         // "exact", "fingerprint", "auto(...)", "z3", "threads", ...
  uint64_t seed = 0;
  int threads = 0;
  double seconds = 0;
  std::vector<InstanceResult> instances;  // sorted by (algorithm, variant, p)
  std::vector<std::string> notes;         // e.g. known paper defects relevant to this run
  // The (algorithm, variant) pairs declared refuted on purpose: readings of a
  // paper that collcheck refutes (the registry's VariantInfo::expected_to_hold
  // == false). Their violations are expected refutations, which the verdict
  // line tells apart from unexpected violations; status() and the exit code
  // still count them as violations.
  std::set<std::pair<std::string, std::string>> expected_refutations;

  // Worst over instances (violated > unknown > holds); skipped only if every
  // instance is skipped; holds for an empty report.
  Status status() const;
};

enum class Format { text, json, markdown, junit, html };
// "text", "json", "markdown" or "md", "junit", "html" (case-insensitive); nullopt otherwise.
std::optional<Format> format_from_string(const std::string& s);
const char* to_string(Format f);  // the canonical name: "text", "json", "markdown", ...

// `s` as the text, Markdown and HTML reports print a string that comes from
// the input (names, paths, messages, a schedule file's producer metadata, an
// MSCCL algorithm name, a results store's command line): every character
// that is not text a reader sees is escaped visibly, so no string can start a
// line of its own (a forged "RESULT: holds") or reach a terminal as a control
// sequence: schedules/input_error.hpp's escape_controls, the one escaping
// the error messages use too ("\x1b", "\u0085", ...).
std::string visible(std::string_view s);

// Renders the report. `verbose` (text only) lists every instance, not only
// failures (runs of holding instances share a line, summary.hpp), how each
// p was decided with its certificate, and whole witness lists. `color`
// (text only): ANSI colours on the status words, for a terminal (the caller
// decides: never for a file or a pipe, never under NO_COLOR).
// Output is deterministic: it depends only on the report's fields.
std::string render(const Report& r, Format f, bool verbose = false, bool color = false);

}  // namespace collcheck
