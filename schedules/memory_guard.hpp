#pragma once
// The memory guard's shared words (--max-memory, docs/properties.md,
// "Memory guard"): the prefix of every refusal, sizes as GiB text, and what
// a reader throws when it stops for memory. The checker's own guard
// (properties/instance_checker.hpp) refuses an instance in its report; the
// file readers (schedule files, MSCCL XML, Träff tables) throw
// ResourceRefusal, which the CLI prints on one line with exit 3 (refused, not
// bad input: the same file may be read with more memory).
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace collcheck {

inline constexpr const char* kRefusedPrefix = "refused by the memory guard";
// A valid instance that no method of the checker can decide (e.g. over the
// dense limit, no certified quotient or composition applies, and its
// transfers are too scattered for interval bookkeeping): not decided, exit 3
// like a memory-guard refusal, never bad input.
inline constexpr const char* kUndecidedPrefix = "not decided";
// Whether a skip reason is one of the two: the instance was valid and not decided.
inline bool is_refusal(const std::string& reason) {
  return reason.rfind(kRefusedPrefix, 0) == 0 || reason.rfind(kUndecidedPrefix, 0) == 0;
}

// The machine's physical memory in bytes (sysconf); 0 if unknown.
inline uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

// "2.88 GiB", "0.0156 GiB".
inline std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g GiB", static_cast<double>(bytes) / (1ULL << 30));
  return buf;
}

// "2.001 MiB" below 1 GiB, else as gib(): the readers' messages, where
// limits of a few MiB are common.
inline std::string mib_or_gib(uint64_t bytes) {
  if (bytes >= (1ULL << 30)) return gib(bytes);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g MiB", static_cast<double>(bytes) / (1ULL << 20));
  return buf;
}

// A reader stopped for memory: refused by --max-memory ("refused by the
// memory guard while reading FILE: ..."), or out of memory while reading
// (std::bad_alloc under ulimit -v or on a full machine); also the threaded
// executor when it cannot create its threads. One line.
struct ResourceRefusal : std::runtime_error {
  explicit ResourceRefusal(const std::string& what) : std::runtime_error(what) {}
};

// The readers' two messages. `where`: the file (and line); `what`: what the
// estimate covers, e.g. "the schedule read so far (...)".
inline ResourceRefusal refused_while_reading(const std::string& where, const std::string& what, uint64_t bytes,
                                             uint64_t limit) {
  std::string b = mib_or_gib(bytes), l = mib_or_gib(limit);
  if (b == l) {  // rounded alike: the bytes say which is more
    b += " (" + std::to_string(bytes) + " bytes)";
    l += " (" + std::to_string(limit) + " bytes)";
  }
  return ResourceRefusal(std::string(kRefusedPrefix) + " while reading " + where + ": " + what + " takes an estimated " +
                         b + ", more than --max-memory " + l);
}
// Out of memory before the reader could say what it had built (opening the
// file, its first buffers).
inline ResourceRefusal out_of_memory_while_reading(const std::string& where) {
  return ResourceRefusal("out of memory while reading " + where +
                         ": the process could not allocate more (ulimit -v, or the machine's memory)");
}
inline ResourceRefusal out_of_memory_while_reading(const std::string& where, const std::string& what, uint64_t bytes) {
  return ResourceRefusal("out of memory while reading " + where + ": " + what + " takes an estimated " +
                         mib_or_gib(bytes) + " and the process could not allocate more (ulimit -v, or the machine's memory)");
}

}  // namespace collcheck
