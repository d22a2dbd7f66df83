#include "schedules/formats/schedule_reader.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck::schedule_reader {

using json = nlohmann::json;

std::string printable(const std::string& bytes, size_t max) { return escape_controls_cut(bytes, max); }

namespace {

constexpr uint64_t kMaxP = uint64_t{1} << 24;
constexpr uint64_t kMaxBlocks = kMaxBlockCount;  // 64-bit block indices (block_set.hpp)
constexpr uint64_t kMaxPorts = 1024;
constexpr uint64_t kMaxSteps = uint64_t{1} << 24;
constexpr uint64_t kMaxEntries = uint64_t{1} << 25;  // (step, rank) entries in one file
constexpr size_t kMaxString = 1 << 16;                // claims and producer strings, and every key
// The longest string token a valid file has: kMaxString characters, each at
// most 6 bytes (\uXXXX), and its quotes; and the longest number token.
constexpr uint64_t kMaxStringToken = 6 * kMaxString + 2;
constexpr uint64_t kMaxNumberToken = 4096;
constexpr uint64_t kAllocBytes = 16;  // the allocator's own bytes per heap block (memory estimate)

// Where a value sits: the object or array it is in, and what that container is.
enum class Ctx : uint8_t { top, claims, claim_props, producer, steps, step, entry, transfers, transfer, blocks, range };
// What a document is: a whole JSON document, a JSON-lines header or a JSON-lines entry.
enum class Part : uint8_t { document, lines_header, lines_entry };

// Key ids per object context.
namespace key {
enum Top { format, collective, p, nblocks, root, ports, claims, producer, steps };
enum Claims { c_steps, c_volume, c_steps_formula, c_volume_formula, c_source, c_properties };
enum Entry { e_rank, e_sends, e_recvs, e_step };
enum Transfer { t_peer, t_blocks, t_combine };
}  // namespace key

const std::vector<std::string_view> kTopKeys = {"format", "collective", "p", "nblocks", "root", "ports",
                                                "claims", "producer", "steps"};
const std::vector<std::string_view> kClaimKeys = {"steps", "volume_blocks", "steps_formula", "volume_formula",
                                                  "source", "properties"};
const std::vector<std::string_view> kEntryKeys = {"rank", "sends", "recvs", "step"};
const std::vector<std::string_view> kTransferKeys = {"peer", "blocks", "combine"};

enum class Want : uint8_t { string, uint, object, array };

struct Slot {
  Want want;
  Ctx child;         // for object and array
  const char* what;  // "expected ..." text
};

struct Frame {
  Frame(Ctx c, bool a) : ctx(c), array(a) {}
  Ctx ctx;
  bool array;
  uint64_t count = 0;  // arrays: elements begun
  int key_id = -1;     // objects: the current key (-1: none yet, -2: a producer key)
  std::string key;     // objects: the current key's text (for paths)
  uint32_t seen = 0;   // objects: key ids seen
};

struct RawRange {
  uint64_t lo, hi;
  uint64_t index;  // position in the file's "blocks" array
};

// The RFC 6901 escape of one path segment.
std::string escape_segment(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return printable(out, 40);
}

bool known_version(const std::string& f) { return f == kScheduleFormat || f == kScheduleFormatV1 || f == kScheduleLinesFormat; }

thread_local uint64_t g_name_comparisons = 0;

// The free-form names of one list (producer keys, claimed properties), for
// duplicate detection: an ordered set, O(log n) comparisons per name, so a
// list of n names costs O(n log n) whatever the names are (a scan of the
// names so far was quadratic: 160k producer keys took 17 s; a hash set would
// be linear on average but quadratic on crafted collisions of a fixed-seed
// hash). Comparisons are counted for the scaling
// test (name_comparisons()).
struct CountingLess {
  bool operator()(const std::string& a, const std::string& b) const {
    ++g_name_comparisons;
    return a < b;
  }
};
using NameSet = std::set<std::string, CountingLess>;

}  // namespace

uint64_t name_comparisons() { return g_name_comparisons; }

// The whole reader state: the document being built and the SAX position.
struct LinesReader::State {
  std::string source;  // file name (JSON lines: + ":LINE" while a line is read)
  std::string where;   // source as printed in messages
  Part part = Part::document;
  std::vector<Frame> frames;

  // Header as read (raw), validated in finish_header().
  std::optional<std::string> format;
  std::optional<std::string> collective;
  std::optional<uint64_t> p, nblocks, root, ports, step_count;
  bool header_done = false;
  bool claims_seen = false, producer_seen = false;
  bool unchecked_steps = false;  // steps parsed before p and nblocks were known

  ScheduleDocument doc;
  FileClaims claims;
  NameSet producer_keys, claimed_properties;  // duplicate detection

  // The rank entry and transfer under construction.
  RankStep* entry = nullptr;
  RankStep line_entry;
  std::optional<uint64_t> entry_step, entry_rank;
  std::vector<Transfer>* list = nullptr;
  std::optional<uint64_t> peer;
  std::optional<Combine> combine;
  std::vector<RawRange> ranges;
  uint64_t range_vals[2] = {0, 0};

  // JSON lines: the next expected (step, rank), entries read.
  uint64_t next_step = 0, next_rank = 0, entries = 0;
  uint64_t entries_total = 0;  // document: rank entries read
  uint64_t line_no = 0;        // JSON lines: the line being read

  // ---- where the input is (CompactInput) ----
  // The real line and column (as nlohmann counts them: the characters read
  // on the line, end of input included) after every character handed to the
  // lexer; `taken` keeps the last few by the lexer's count, so that a parse
  // error names the position in the file, not in the compacted text.
  struct Taken {
    uint64_t count = 0, line = 0, col = 0;
  };
  std::array<Taken, 8> taken{};
  uint64_t in_count = 0, in_line = 1, in_col = 0;
  void start_input(uint64_t first_col) {
    in_count = 0;
    in_line = 1;
    in_col = first_col;
    taken = {};
  }
  void advance(int c) {  // every byte read, handed over or skipped
    if (c == '\n') {
      ++in_line;
      in_col = 0;
    } else {
      ++in_col;
    }
  }
  void hand_over() {
    ++in_count;
    taken[in_count % taken.size()] = {in_count, in_line, in_col};
  }
  uint64_t current_line() const { return part == Part::document ? in_line : line_no; }

  // ---- the memory guard (--max-memory) ----
  // `used`: the estimated bytes of what is built so far (the schedule, the
  // producer and claims, the reader's scratch), from the vectors' capacities
  // and the allocator's overhead per block; checked whenever it grows.
  uint64_t max_memory = 0;  // 0: no guard
  uint64_t used = 0, transfers = 0;

  std::string read_so_far() const {
    return "the schedule read so far (" + std::to_string(entries_total + entries) + " rank entries, " +
           std::to_string(transfers) + " transfers)";
  }
  std::string where_now() const { return source + ", at line " + std::to_string(current_line()); }
  // `transient`: bytes held besides (the JSON line being read).
  void check_memory(uint64_t transient = 0) const {
    if (!max_memory || used + transient <= max_memory) return;
    throw refused_while_reading(where_now(), read_so_far() + (transient ? " with the line being read" : ""),
                                used + transient, max_memory);
  }
  // std::bad_alloc while reading. The message needs memory too, which a
  // process out of it may not have: what was built is dropped first (the
  // outside audit: under ulimit -v the message itself failed to allocate and
  // "the instance is too large" was printed instead).
  [[noreturn]] void out_of_memory() {
    { const ScheduleDocument dropped = std::move(doc); }
    { const FileClaims dropped = std::move(claims); }
    { const NameSet a = std::move(producer_keys), b = std::move(claimed_properties); }
    { const RankStep dropped = std::move(line_entry); }
    { const std::vector<RawRange> dropped = std::move(ranges); }
    { const std::vector<Frame> dropped = std::move(frames); }
    entry = nullptr;
    list = nullptr;
    throw out_of_memory_while_reading(where_now(), read_so_far(), used);
  }
  void charge(uint64_t bytes) {
    used += bytes;
    check_memory();
  }
  // What a vector's growth from capacity `before` allocated.
  template <class V>
  void charge_growth(const V& v, size_t before) {
    if (v.capacity() > before) charge((v.capacity() - before) * sizeof(typename V::value_type) + (before ? 0 : kAllocBytes));
  }
  static uint64_t heap_bytes(const Transfer& t) {
    return t.blocks.ranges().capacity() * sizeof(BlockSet::Range) + kAllocBytes;
  }
  static uint64_t heap_bytes(const std::vector<Transfer>& l) {
    uint64_t b = l.capacity() ? l.capacity() * sizeof(Transfer) + kAllocBytes : 0;
    for (const Transfer& t : l) b += heap_bytes(t);
    return b;
  }
  static uint64_t heap_bytes(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 + kAllocBytes : 0; }
  // A name kept twice (in the document and in its duplicate set).
  void charge_name(const std::vector<std::string>& names, size_t before, const std::string& name) {
    charge_growth(names, before);
    charge(2 * heap_bytes(name) + sizeof(std::string) + 4 * sizeof(void*) + kAllocBytes);  // the set's node
  }

  // ---- messages ----

  // The JSON path of the current position; `drop_last_key` leaves out the
  // innermost container's current key or index (errors about the container).
  std::string path(bool drop_last_key = false) const {
    std::string out;
    for (size_t i = 0; i < frames.size(); ++i) {
      const Frame& f = frames[i];
      if (drop_last_key && i + 1 == frames.size()) break;
      if (f.array) {
        if (f.count > 0) out += "/" + std::to_string(f.count - 1);
      } else if (f.key_id != -1) {
        out += "/" + escape_segment(f.key);
      }
    }
    return out.empty() ? "top level" : out;
  }

  [[noreturn]] void fail_at(const std::string& at, const std::string& what) const {
    // An unknown format version explains every later surprise: say that first.
    if (format && !known_version(*format) && format->rfind("collcheck-schedule", 0) == 0)
      throw InputError("malformed schedule: " + where + ": /format: unknown format version \"" + printable(*format) +
                       "\" (expected \"" + kScheduleFormat + "\", \"" + kScheduleLinesFormat + "\" or \"" +
                       kScheduleFormatV1 + "\")");
    throw InputError("malformed schedule: " + where + ": " + at + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what, bool drop_last_key = false) const {
    fail_at(path(drop_last_key), what);
  }
  // A NUL byte outside a string, at the position just read.
  [[noreturn]] void nul_byte() const {
    const std::string col = "column " + std::to_string(in_col);
    fail_at((part == Part::document ? "line " + std::to_string(in_line) + ", " + col : col) + ", in " + path(),
            "not valid JSON: a NUL byte (\\x00) outside a string");
  }

  // ---- the format's shape ----

  Slot top_slot() const {
    if (part == Part::lines_entry) return {Want::object, Ctx::entry, "a rank entry {\"step\", \"rank\", \"sends\", \"recvs\"}"};
    return {Want::object, Ctx::top, "the schedule object {\"format\", \"collective\", \"p\", ...}"};
  }

  Slot slot() const {
    if (frames.empty()) return top_slot();
    const Frame& f = frames.back();
    switch (f.ctx) {
      case Ctx::top:
        switch (f.key_id) {
          case key::format: return {Want::string, Ctx::top, "the format name, a string"};
          case key::collective:
            return {Want::string, Ctx::top, "a collective name (allreduce, reduce-scatter, allgather, broadcast, reduce, alltoall)"};
          case key::p: return {Want::uint, Ctx::top, "the number of ranks, an integer in 1..2^24"};
          case key::nblocks: return {Want::uint, Ctx::top, "the number of blocks, an integer in 1..2^63"};
          case key::root: return {Want::uint, Ctx::top, "the root rank, an integer in 0..p-1"};
          case key::ports: return {Want::uint, Ctx::top, "the port count k, an integer in 1..1024"};
          case key::claims: return {Want::object, Ctx::claims, "an object of claims {\"steps\", \"volume_blocks\", \"properties\", ...}"};
          case key::producer: return {Want::object, Ctx::producer, "an object of strings"};
          case key::steps:
            if (part == Part::lines_header) return {Want::uint, Ctx::top, "the number of steps, an integer in 0..2^24"};
            return {Want::array, Ctx::steps, "an array of steps, each an array of the p rank entries"};
        }
        break;
      case Ctx::claims:
        switch (f.key_id) {
          case key::c_steps: return {Want::uint, Ctx::claims, "the claimed number of steps, an integer in 0..2^31-1"};
          case key::c_volume: return {Want::uint, Ctx::claims, "the claimed per-rank volume in blocks, a non-negative integer"};
          case key::c_steps_formula:
          case key::c_volume_formula:
          case key::c_source: return {Want::string, Ctx::claims, "a string"};
          case key::c_properties: return {Want::array, Ctx::claim_props, "an array of property names"};
        }
        break;
      case Ctx::claim_props: return {Want::string, Ctx::claim_props, "a property name (a string)"};
      case Ctx::producer: return {Want::string, Ctx::producer, "a string (producer values are strings)"};
      case Ctx::steps: return {Want::array, Ctx::step, "an array of the p rank entries of one step"};
      case Ctx::step: return {Want::object, Ctx::entry, "a rank entry {\"rank\", \"sends\", \"recvs\"}"};
      case Ctx::entry:
        switch (f.key_id) {
          case key::e_rank: return {Want::uint, Ctx::entry, "the rank, an integer in 0..p-1"};
          case key::e_step: return {Want::uint, Ctx::entry, "the step, an integer"};
          case key::e_sends:
          case key::e_recvs: return {Want::array, Ctx::transfers, "an array of transfers"};
        }
        break;
      case Ctx::transfers: return {Want::object, Ctx::transfer, "a transfer {\"peer\", \"blocks\", \"combine\"}"};
      case Ctx::transfer:
        switch (f.key_id) {
          case key::t_peer: return {Want::uint, Ctx::transfer, "the peer rank, an integer in 0..p-1"};
          case key::t_blocks: return {Want::array, Ctx::blocks, "a non-empty array of block ranges [lo, hi)"};
          case key::t_combine: return {Want::string, Ctx::transfer, "\"copy\" or \"reduce\""};
        }
        break;
      case Ctx::blocks: return {Want::array, Ctx::range, "a block range [lo, hi), two integers"};
      case Ctx::range: return {Want::uint, Ctx::range, "a block index, an integer in 0..nblocks"};
    }
    return {Want::string, Ctx::top, "nothing here"};  // unreachable: keys are checked in key()
  }

  // Counts a new element of the enclosing array (paths name it) and applies
  // the per-array limits.
  void count_element() {
    if (frames.empty() || !frames.back().array) return;
    Frame& f = frames.back();
    ++f.count;
    if (f.ctx == Ctx::range && f.count > 2) fail("a block range is [lo, hi): exactly two integers, got a third value");
    if (f.ctx == Ctx::step && p && f.count > *p)
      fail("this step lists more than p = " + std::to_string(*p) + " rank entries (p mismatch between header and body)");
    if (f.ctx == Ctx::steps && f.count > kMaxSteps) fail("more than 2^24 steps");
  }

  // Called at the start of every value: counts array elements and checks the type.
  Slot begin_value(Want got, const std::string& got_text) {
    count_element();
    Slot s = slot();
    if (s.want != got) fail(std::string("expected ") + s.what + ", got " + got_text);
    return s;
  }

  // A value no slot of the format takes (null, true, a negative number).
  [[noreturn]] void unexpected(const std::string& got_text, const std::string& note = "") {
    count_element();
    fail(std::string("expected ") + slot().what + ", got " + got_text + note);
  }

  bool p_checked = false, nblocks_checked = false;

  // ---- SAX events ----

  bool null() { unexpected("null"); }
  bool boolean(bool b) { unexpected(b ? "true" : "false"); }
  bool number_integer(int64_t v) { unexpected(std::to_string(v)); }
  bool number_float(double, const std::string& raw) {
    const bool integral = raw.find_first_of(".eE") == std::string::npos;
    unexpected(printable(raw), slot().want == Want::uint ? (integral ? " (too large)" : " (not an integer)") : "");
  }
  bool binary(json::binary_t&) { fail("binary values are not JSON"); }

  bool number_unsigned(uint64_t v) {
    begin_value(Want::uint, std::to_string(v));
    const Frame& f = frames.back();
    const std::string vs = std::to_string(v);
    switch (f.ctx) {
      case Ctx::top:
        switch (f.key_id) {
          case key::p:
            if (v < 1 || v > kMaxP) fail("p must be in 1..2^24, got " + vs);
            p = v;
            p_checked = true;
            break;
          case key::nblocks:
            if (v < 1 || v > kMaxBlocks) fail("nblocks must be in 1..2^63, got " + vs);
            nblocks = v;
            nblocks_checked = true;
            break;
          case key::root:
            if (v >= kMaxP) fail("root " + vs + " out of range (p <= 2^24)");
            if (p && v >= *p) fail("root " + vs + " out of range 0.." + std::to_string(*p - 1));
            root = v;
            break;
          case key::ports:
            if (v < 1 || v > kMaxPorts) fail("ports must be in 1..1024, got " + vs);
            ports = v;
            break;
          case key::steps:
            if (v > kMaxSteps) fail("the step count must be in 0..2^24, got " + vs);
            step_count = v;
            break;
        }
        break;
      case Ctx::claims:
        if (f.key_id == key::c_steps) {
          if (v > INT_MAX) fail("the claimed step count must be in 0..2^31-1, got " + vs);
          claims.steps = static_cast<int>(v);
        } else {
          claims.volume_blocks = v;
        }
        break;
      case Ctx::entry:
        if (f.key_id == key::e_step) {
          entry_step = v;
        } else if (part == Part::lines_entry) {
          entry_rank = v;
        } else {
          const uint64_t expected = frames[frames.size() - 2].count - 1;  // index in the step array
          if (v < expected)
            fail("rank " + vs + " listed twice in this step, or out of order (expected rank " + std::to_string(expected) +
                 ": every step lists ranks 0..p-1 in order, once each)");
          if (v > expected)
            fail("rank " + std::to_string(expected) + " is missing from this step (found rank " + vs +
                 "; every step lists ranks 0..p-1 in order, once each)");
          entry_rank = v;
        }
        break;
      case Ctx::transfer:
        if (v >= kMaxP || (p && v >= *p))
          fail("peer " + vs + " out of range 0.." + std::to_string((p ? *p : kMaxP) - 1) + " (expected a rank below p" +
               (p ? " = " + std::to_string(*p) : std::string()) + ")");
        peer = v;
        break;
      case Ctx::range: {
        if (v > kMaxBlocks || (nblocks && v > *nblocks))
          fail("block index " + vs + " out of range (expected 0..nblocks = " +
               std::to_string(nblocks ? *nblocks : kMaxBlocks) + ")");
        range_vals[f.count - 1] = v;
        break;
      }
      default: break;
    }
    return true;
  }

  bool string(std::string& s) {
    begin_value(Want::string, "the string \"" + printable(s, 40) + "\"");
    const Frame& f = frames.back();
    if (s.size() > kMaxString) fail("a string longer than 64 KiB");
    switch (f.ctx) {
      case Ctx::top:
        if (f.key_id == key::format) {
          format = s;
          check_format();
        } else {
          if (!collective_from_string(s))
            fail("unknown collective \"" + printable(s, 40) +
                 "\" (expected allreduce, reduce-scatter, allgather, broadcast, reduce or alltoall)");
          collective = s;
        }
        break;
      case Ctx::claims:
        if (f.key_id == key::c_steps_formula) claims.steps_formula = s;
        else if (f.key_id == key::c_volume_formula) claims.volume_formula = s;
        else claims.source = s;
        break;
      case Ctx::claim_props:
        if (!claimed_properties.insert(s).second) fail("property \"" + printable(s, 40) + "\" asserted twice");
        {
          const size_t before = claims.properties.capacity();
          claims.properties.push_back(s);
          charge_name(claims.properties, before, s);
        }
        break;
      case Ctx::producer: {
        const size_t before = doc.producer.capacity();
        doc.producer.emplace_back(f.key, s);
        charge_growth(doc.producer, before);
        charge(2 * heap_bytes(f.key) + heap_bytes(s) + sizeof(std::string) + 4 * sizeof(void*) + kAllocBytes);
        break;
      }
      case Ctx::transfer:
        if (s == "copy") combine = Combine::copy;
        else if (s == "reduce") combine = Combine::reduce;
        else fail("\"combine\" must be \"copy\" or \"reduce\", not \"" + printable(s, 40) + "\"");
        break;
      default: break;
    }
    return true;
  }

  void check_format() {
    const std::string& f = *format;
    const bool lines = part != Part::document;
    if (!known_version(f)) {
      if (f.rfind("collcheck-schedule", 0) == 0) fail("unknown format version");  // fail_at names the version
      fail(std::string("expected \"") + (lines ? kScheduleLinesFormat : kScheduleFormat) + "\", got \"" +
           printable(f, 40) + "\"");
    }
    if (lines && f != kScheduleLinesFormat)
      fail(std::string("a JSON-lines header needs \"format\": \"") + kScheduleLinesFormat + "\", got \"" + f +
           "\" (the JSON form is one document; use --schedule-format json or auto)");
    if (!lines && f == kScheduleLinesFormat)
      fail(std::string("\"") + f + "\" is the JSON-lines form (one header line, then one line per step and rank); "
           "use --schedule-format jsonl or auto");
  }

  bool start_object(size_t) {
    Slot s = begin_value(Want::object, "an object");
    frames.push_back({s.child, false});
    switch (s.child) {
      case Ctx::entry:
        ++entries_total;
        if (entries_total > kMaxEntries) fail("more than 2^25 rank entries");
        entry_step.reset();
        entry_rank.reset();
        if (part == Part::document) {
          std::vector<RankStep>& step = doc.schedule.steps.back();
          const size_t before = step.capacity();
          step.emplace_back();
          charge_growth(step, before);
          entry = &step.back();
        } else {
          line_entry.clear();
          entry = &line_entry;
        }
        break;
      case Ctx::transfer:
        peer.reset();
        combine.reset();
        ranges.clear();
        break;
      case Ctx::claims: claims_seen = true; break;
      case Ctx::producer: producer_seen = true; break;
      default: break;
    }
    return true;
  }

  bool start_array(size_t) {
    Slot s = begin_value(Want::array, "an array");
    frames.push_back({s.child, true});
    const Frame& parent = frames[frames.size() - 2];
    switch (s.child) {
      case Ctx::step: {
        const size_t before = doc.schedule.steps.capacity();
        doc.schedule.steps.emplace_back();
        charge_growth(doc.schedule.steps, before);
        if (!(p_checked && nblocks_checked)) unchecked_steps = true;
        break;
      }
      case Ctx::transfers: list = parent.key_id == key::e_sends ? &entry->sends : &entry->recvs; break;
      default: break;
    }
    return true;
  }

  bool key(std::string& k) {
    Frame& f = frames.back();
    // Keys are strings: the same limit (the token filter alone let up to
    // kMaxStringToken bytes through as a key).
    if (k.size() > kMaxString) {
      f.key_id = -1;
      fail("a key longer than 64 KiB", true);
    }
    f.key = k;
    if (f.ctx == Ctx::producer) {
      f.key_id = -2;
      if (!producer_keys.insert(k).second) fail("duplicate key \"" + printable(k, 40) + "\"");
      return true;
    }
    const std::vector<std::string_view>* keys = nullptr;
    size_t n = 0;
    switch (f.ctx) {
      case Ctx::top: keys = &kTopKeys; n = kTopKeys.size(); break;
      case Ctx::claims: keys = &kClaimKeys; n = kClaimKeys.size(); break;
      case Ctx::entry: keys = &kEntryKeys; n = part == Part::lines_entry ? 4 : 3; break;
      case Ctx::transfer: keys = &kTransferKeys; n = kTransferKeys.size(); break;
      default: break;
    }
    int id = -1;
    for (size_t i = 0; i < n; ++i)
      if ((*keys)[i] == k) id = static_cast<int>(i);
    if (id < 0) {
      f.key_id = -1;
      std::string list;
      for (size_t i = 0; i < n; ++i) list += (i ? ", " : "") + std::string((*keys)[i]);
      fail("unknown key \"" + printable(k, 40) + "\" (expected one of: " + list + ")", true);
    }
    f.key_id = id;
    if (f.seen & (1u << id)) fail("duplicate key \"" + k + "\"");
    f.seen |= 1u << id;
    return true;
  }

  bool end_object() {
    Frame& f = frames.back();
    auto require = [&](uint32_t id, const std::vector<std::string_view>& keys, const char* what) {
      if (!(f.seen & (1u << id))) fail("missing \"" + std::string(keys[id]) + "\" (expected " + what + ")", true);
    };
    switch (f.ctx) {
      case Ctx::transfer: {
        require(key::t_peer, kTransferKeys, "the peer rank");
        require(key::t_blocks, kTransferKeys, "an array of block ranges [lo, hi)");
        require(key::t_combine, kTransferKeys, "\"copy\" or \"reduce\"");
        const size_t before = list->capacity();
        list->push_back(make_transfer());
        charge_growth(*list, before);
        charge(heap_bytes(list->back()));
        ++transfers;
        break;
      }
      case Ctx::entry:
        if (part == Part::lines_entry) require(key::e_step, kEntryKeys, "the step number");
        require(key::e_rank, kEntryKeys, "the rank number");
        break;
      case Ctx::top:
        if (part != Part::lines_entry) {
          frames.back().key_id = -1;
          finish_header();
        }
        break;
      default: break;
    }
    frames.pop_back();
    return true;
  }

  bool end_array() {
    Frame& f = frames.back();
    if (f.ctx == Ctx::range) {
      if (f.count != 2) fail("a block range is [lo, hi): exactly two integers, got " + std::to_string(f.count), true);
      if (range_vals[0] >= range_vals[1])
        fail("block range [" + std::to_string(range_vals[0]) + ", " + std::to_string(range_vals[1]) +
             ") is empty (expected lo < hi)", true);
      const size_t before = ranges.capacity();
      ranges.push_back({range_vals[0], range_vals[1], frames[frames.size() - 2].count - 1});
      charge_growth(ranges, before);
    } else if (f.ctx == Ctx::blocks && f.count == 0) {
      fail("an empty block list (expected at least one block range [lo, hi): a transfer moves blocks)", true);
    } else if (f.ctx == Ctx::step && p_checked && f.count != *p) {
      fail("this step lists " + std::to_string(f.count) + " rank entries, but the header says p = " + std::to_string(*p) +
               " (p mismatch between header and body; every step lists every rank)",
           true);
    }
    frames.pop_back();
    return true;
  }

  bool parse_error(size_t read, const std::string&, const nlohmann::detail::exception& ex) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line L, column C: REASON"
    std::string msg = ex.what();
    std::string line_col, reason = msg;
    const size_t at = msg.find(" at line ");
    const size_t colon = msg.find(": ", at == std::string::npos ? 0 : at);
    if (at != std::string::npos && colon != std::string::npos) {
      line_col = msg.substr(at + 4, colon - at - 4);  // "line L, column C"
      reason = msg.substr(colon + 2);
    } else if (const size_t b = msg.find("] "); b != std::string::npos) {
      reason = msg.substr(b + 2);
    }
    // The lexer counted the compacted text; the file's position is known for
    // the last characters it took (`read` is its count).
    if (const Taken& t = taken[read % taken.size()]; !line_col.empty() && read > 0 && t.count == read)
      line_col = "line " + std::to_string(t.line) + ", column " + std::to_string(t.col);
    if (part != Part::document) {  // one line: the column alone
      const size_t c = line_col.find("column ");
      line_col = c == std::string::npos ? "" : line_col.substr(c);
    }
    const std::string pos = path();
    fail_at((line_col.empty() ? std::string() : line_col + ", ") + "in " + pos,
            "not valid JSON: " + printable(reason, 200));
  }

  // ---- the JSON-lines fast path ----
  //
  // Entry lines are most of a large file. This scanner takes the common
  // shape of one (ASCII keys and values, plain integers, any whitespace and
  // key order) and applies every check the SAX path applies; on anything
  // else, or any error, it gives up without side effects and the SAX path
  // parses the line, so errors are always reported by one code path and the
  // two accept exactly the same lines (the fuzz test compares them).
  struct Scan {
    const char* p;
    const char* e;
    void ws() {
      while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
    }
    bool lit(char c) {
      ws();
      if (p < e && *p == c) {
        ++p;
        return true;
      }
      return false;
    }
    // A string of [a-z_-] (keys, "copy", "reduce").
    bool word(std::string_view& out) {
      if (!lit('"')) return false;
      const char* b = p;
      while (p < e && ((*p >= 'a' && *p <= 'z') || *p == '_' || *p == '-')) ++p;
      if (p >= e || *p != '"') return false;
      out = std::string_view(b, static_cast<size_t>(p - b));
      ++p;
      return true;
    }
    // A JSON integer without sign, fraction or exponent, at most 10 digits.
    bool integer(uint64_t& v) {
      ws();
      const char* b = p;
      v = 0;
      while (p < e && *p >= '0' && *p <= '9' && p - b < 11) v = v * 10 + static_cast<uint64_t>(*p++ - '0');
      const size_t n = static_cast<size_t>(p - b);
      if (n == 0 || n > 10 || (n > 1 && *b == '0')) return false;
      return !(p < e && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')));
    }
  };

  bool fast_blocks(Scan& sc, BlockSet& out) {
    ranges.clear();
    if (!sc.lit('[')) return false;
    do {
      uint64_t lo, hi;
      if (!sc.lit('[') || !sc.integer(lo) || !sc.lit(',') || !sc.integer(hi) || !sc.lit(']')) return false;
      if (lo >= hi || hi > *nblocks) return false;
      const size_t before = ranges.capacity();
      ranges.push_back({lo, hi, ranges.size()});
      charge_growth(ranges, before);
    } while (sc.lit(','));
    if (!sc.lit(']')) return false;
    std::sort(ranges.begin(), ranges.end(), [](const RawRange& a, const RawRange& b) { return a.lo < b.lo; });
    for (size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].lo < ranges[i - 1].hi) return false;
    for (const RawRange& r : ranges) out.insert_range(static_cast<Block>(r.lo), static_cast<Block>(r.hi));
    return true;
  }

  bool fast_transfers(Scan& sc, std::vector<Transfer>& out) {
    if (!sc.lit('[')) return false;
    if (sc.lit(']')) return true;
    do {
      if (!sc.lit('{')) return false;
      Transfer t;
      unsigned seen = 0;
      do {
        std::string_view k;
        if (!sc.word(k) || !sc.lit(':')) return false;
        if (k == "peer" && !(seen & 1)) {
          uint64_t v;
          if (!sc.integer(v) || v >= *p) return false;
          t.peer = static_cast<Rank>(v);
          seen |= 1;
        } else if (k == "blocks" && !(seen & 2)) {
          if (!fast_blocks(sc, t.blocks)) return false;
          seen |= 2;
        } else if (k == "combine" && !(seen & 4)) {
          std::string_view c;
          if (!sc.word(c)) return false;
          if (c == "copy") t.combine = Combine::copy;
          else if (c == "reduce") t.combine = Combine::reduce;
          else return false;
          seen |= 4;
        } else {
          return false;
        }
      } while (sc.lit(','));
      if (seen != 7 || !sc.lit('}')) return false;
      out.push_back(std::move(t));
    } while (sc.lit(','));
    return sc.lit(']');
  }

  // True if the line was taken (and placed); false: nothing changed.
  bool fast_entry(const std::string& line) {
    Scan sc{line.data(), line.data() + line.size()};
    RankStep rs;
    std::optional<uint64_t> step, rank;
    bool sends = false, recvs = false;
    if (!sc.lit('{')) return false;
    do {
      std::string_view k;
      if (!sc.word(k) || !sc.lit(':')) return false;
      uint64_t v;
      if (k == "step" && !step) {
        if (!sc.integer(v)) return false;
        step = v;
      } else if (k == "rank" && !rank) {
        if (!sc.integer(v)) return false;
        rank = v;
      } else if (k == "sends" && !sends) {
        if (!fast_transfers(sc, rs.sends)) return false;
        sends = true;
      } else if (k == "recvs" && !recvs) {
        if (!fast_transfers(sc, rs.recvs)) return false;
        recvs = true;
      } else {
        return false;
      }
    } while (sc.lit(','));
    if (!sc.lit('}')) return false;
    sc.ws();
    if (sc.p != sc.e || !step || !rank) return false;
    // The placement checks of place_line_entry, without throwing.
    if (*rank >= *p || *step >= *step_count || *step != next_step || *rank != next_rank) return false;
    transfers += rs.sends.size() + rs.recvs.size();
    charge(heap_bytes(rs.sends) + heap_bytes(rs.recvs));
    line_entry = std::move(rs);
    entry_step = step;
    entry_rank = rank;
    place_line_entry();
    return true;
  }

  // ---- building ----

  Transfer make_transfer() {
    Transfer t;
    t.peer = static_cast<Rank>(*peer);
    t.combine = *combine;
    std::sort(ranges.begin(), ranges.end(), [](const RawRange& a, const RawRange& b) { return a.lo < b.lo; });
    for (size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].lo < ranges[i - 1].hi) {
        const RawRange& a = ranges[i - 1];
        const RawRange& b = ranges[i];
        const RawRange& later = a.index > b.index ? a : b;
        const RawRange& earlier = a.index > b.index ? b : a;
        fail_at(path(true) + "/blocks/" + std::to_string(later.index),
                "block range [" + std::to_string(later.lo) + ", " + std::to_string(later.hi) + ") overlaps [" +
                    std::to_string(earlier.lo) + ", " + std::to_string(earlier.hi) + ") at blocks/" +
                    std::to_string(earlier.index) + " (expected disjoint ranges: a block is sent once per transfer)");
      }
    for (const RawRange& r : ranges) t.blocks.insert_range(static_cast<Block>(r.lo), static_cast<Block>(r.hi));
    return t;
  }

  // The header is complete (end of the top object): required fields, ranges,
  // version-specific fields; then the steps parsed before the header was known.
  void finish_header() {
    auto missing = [&](const char* k, const char* what) {
      fail(std::string("missing \"") + k + "\" (expected " + what + ")");
    };
    if (!format) missing("format", (std::string("\"") + (part == Part::document ? kScheduleFormat : kScheduleLinesFormat) + "\"").c_str());
    if (!collective) missing("collective", "allreduce, reduce-scatter, allgather, broadcast, reduce or alltoall");
    if (!p) missing("p", "the number of ranks, 1..2^24");
    if (!nblocks) missing("nblocks", "the number of blocks, 1..2^63");
    if (part == Part::lines_header && !step_count) missing("steps", "the number of steps: the lines that follow are steps * p entries");
    if (part == Part::document && !(frames.back().seen & (1u << key::steps)))
      missing("steps", "an array of steps, each an array of the p rank entries");
    if (*format == kScheduleFormatV1 && (claims_seen || producer_seen))
      fail_at(claims_seen ? "/claims" : "/producer",
              std::string("\"claims\" and \"producer\" need \"format\": \"") + kScheduleFormat + "\", not \"" + *format + "\"");
    MaterializedSchedule& m = doc.schedule;
    m.spec.kind = *collective_from_string(*collective);
    m.spec.p = *p;
    m.spec.nblocks = *nblocks;
    if (root && *root >= *p) fail_at("/root", "root " + std::to_string(*root) + " out of range 0.." + std::to_string(*p - 1));
    m.spec.root = static_cast<Rank>(root.value_or(0));
    m.ports = static_cast<int>(ports.value_or(1));
    if ((m.spec.kind == Collective::allgather || m.spec.kind == Collective::reduce_scatter) && m.spec.nblocks % m.spec.p != 0)
      fail_at("/nblocks", "nblocks " + std::to_string(m.spec.nblocks) + " must be a multiple of p = " + std::to_string(m.spec.p) +
                              " for " + *collective);
    if (m.spec.kind == Collective::alltoall && m.spec.nblocks != m.spec.p * m.spec.p)
      fail_at("/nblocks", "alltoall needs nblocks = p*p = " + std::to_string(m.spec.p * m.spec.p) + " (block src*p+dst), got " +
                              std::to_string(m.spec.nblocks));
    if (claims_seen) {
      claims.location = where + ": /claims";
      doc.claims = claims;
    }
    doc.format = *format;
    header_done = true;
    if (unchecked_steps) check_all_steps();
  }

  // The header-dependent checks for steps parsed before "p"/"nblocks".
  void check_all_steps() const {
    const MaterializedSchedule& m = doc.schedule;
    for (size_t s = 0; s < m.steps.size(); ++s) {
      const std::string sp = "/steps/" + std::to_string(s);
      if (m.steps[s].size() != m.spec.p)
        fail_at(sp, "this step lists " + std::to_string(m.steps[s].size()) + " rank entries, but the header says p = " +
                        std::to_string(m.spec.p) + " (p mismatch between header and body; every step lists every rank)");
      for (size_t r = 0; r < m.steps[s].size(); ++r)
        for (int dir = 0; dir < 2; ++dir) {
          const auto& l = dir == 0 ? m.steps[s][r].sends : m.steps[s][r].recvs;
          for (size_t i = 0; i < l.size(); ++i) {
            const std::string tp = sp + "/" + std::to_string(r) + (dir == 0 ? "/sends/" : "/recvs/") + std::to_string(i);
            if (l[i].peer >= m.spec.p)
              fail_at(tp + "/peer", "peer " + std::to_string(l[i].peer) + " out of range 0.." + std::to_string(m.spec.p - 1) +
                                        " (expected a rank below p = " + std::to_string(m.spec.p) + ")");
            if (l[i].blocks.ranges().back().hi > m.spec.nblocks)
              fail_at(tp + "/blocks", "block range ending at " + std::to_string(l[i].blocks.ranges().back().hi) +
                                          " exceeds nblocks = " + std::to_string(m.spec.nblocks) +
                                          " (expected ranges within [0, nblocks))");
          }
        }
    }
  }

  // JSON lines: the entry just parsed goes to (step, rank) if that is the next one.
  void place_line_entry() {
    const uint64_t s = *entry_step, r = *entry_rank;
    const MaterializedSchedule& m = doc.schedule;
    if (r >= m.spec.p)
      fail_at("/rank", "rank " + std::to_string(r) + " out of range 0.." + std::to_string(m.spec.p - 1) +
                           " (p mismatch: the header says p = " + std::to_string(m.spec.p) + ")");
    if (s >= *step_count)
      fail_at("/step", "step " + std::to_string(s) + " out of range: the header declares " + std::to_string(*step_count) +
                           " steps (0.." + (*step_count ? std::to_string(*step_count - 1) : std::string("none")) + ")");
    const std::string next = "step " + std::to_string(next_step) + ", rank " + std::to_string(next_rank);
    if (s < next_step || (s == next_step && r < next_rank))
      fail_at("/rank", "duplicate entry for step " + std::to_string(s) + ", rank " + std::to_string(r) +
                           " (already listed; expected " + next + " next: one line per (step, rank), step-major)");
    if (s > next_step || r > next_rank)
      fail_at("/rank", "the entry for " + next + " is missing (found step " + std::to_string(s) + ", rank " +
                           std::to_string(r) + "; one line per (step, rank), step-major)");
    for (int dir = 0; dir < 2; ++dir) {
      const auto& l = dir == 0 ? line_entry.sends : line_entry.recvs;
      for (size_t i = 0; i < l.size(); ++i)
        if (l[i].blocks.ranges().back().hi > m.spec.nblocks)  // peers were checked on the fly (p known)
          fail_at((dir == 0 ? "/sends/" : "/recvs/") + std::to_string(i) + "/blocks",
                  "block range ending at " + std::to_string(l[i].blocks.ranges().back().hi) + " exceeds nblocks = " +
                      std::to_string(m.spec.nblocks) + " (expected ranges within [0, nblocks))");
    }
    if (r == 0) {
      const size_t before = doc.schedule.steps.capacity();
      doc.schedule.steps.emplace_back(m.spec.p);
      charge_growth(doc.schedule.steps, before);
      charge(m.spec.p * sizeof(RankStep) + kAllocBytes);
    }
    doc.schedule.steps.back()[r] = std::move(line_entry);
    line_entry = RankStep();
    ++entries;
    if (++next_rank == m.spec.p) {
      next_rank = 0;
      ++next_step;
    }
  }
};

namespace {

// SAX adapter: nlohmann calls these (duck-typed, no virtual calls).
struct Sax {
  LinesReader::State* st;
  bool null() { return st->null(); }
  bool boolean(bool b) { return st->boolean(b); }
  bool number_integer(json::number_integer_t v) { return st->number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return st->number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& raw) { return st->number_float(v, raw); }
  bool string(json::string_t& s) { return st->string(s); }
  bool binary(json::binary_t& b) { return st->binary(b); }
  bool start_object(std::size_t n) { return st->start_object(n); }
  bool key(json::string_t& k) { return st->key(k); }
  bool end_object() { return st->end_object(); }
  bool start_array(std::size_t n) { return st->start_array(n); }
  bool end_array() { return st->end_array(); }
  bool parse_error(std::size_t pos, const std::string& tok, const nlohmann::detail::exception& ex) {
    return st->parse_error(pos, tok, ex);
  }
};

// What nlohmann's lexer reads. The lexer keeps every character it reads
// between two string or number tokens (for its error messages), whitespace
// included: a file of 1 GiB of whitespace cost 3 GB.
// This input hands it each run of whitespace outside strings as the run's
// first character only (the rest is read and counted for positions, never
// held), and stops a string or number token longer than any valid file has
// before the lexer buffers it, so that what the lexer holds stays within
// kMaxStringToken bytes whatever the file is.
class CompactInput {
 public:
  using char_type = char;
  CompactInput(std::streambuf* in, LinesReader::State* st) : in_(in), st_(st) {}
  CompactInput(const char* begin, const char* end, LinesReader::State* st) : p_(begin), e_(end), st_(st) {}

  std::char_traits<char>::int_type get_character() {
    for (;;) {
      const int c = raw();
      st_->advance(c);
      if (c != EOF) {
        if (in_string_) {
          if (++run_ > kMaxStringToken) st_->fail("a string longer than 64 KiB");
          if (escape_) escape_ = false;
          else if (c == '\\') escape_ = true;
          else if (c == '"') in_string_ = false;
        } else if (c == 0) {
          // nlohmann's lexer takes a NUL byte for the end of the input, so a
          // document followed by NULs (a file padded or cut by a crash) was read
          // as whole: no JSON text holds one outside a string.
          st_->nul_byte();
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          if (in_space_) continue;  // read, counted, not handed over
          in_space_ = true;
          run_ = 0;
        } else {
          in_space_ = false;
          if (c == '"') {
            in_string_ = true;
            run_ = 1;
          } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
            if (++run_ > kMaxNumberToken) st_->fail("a number longer than " + std::to_string(kMaxNumberToken) + " characters");
          } else {
            run_ = 0;
          }
        }
      }
      st_->hand_over();
      return c == EOF ? std::char_traits<char>::eof() : std::char_traits<char>::to_int_type(static_cast<char>(c));
    }
  }

 private:
  int raw() {
    if (in_) {
      const auto c = in_->sbumpc();
      return c == std::char_traits<char>::eof() ? EOF : static_cast<unsigned char>(c);
    }
    return p_ < e_ ? static_cast<unsigned char>(*p_++) : EOF;
  }
  std::streambuf* in_ = nullptr;
  const char* p_ = nullptr;
  const char* e_ = nullptr;
  LinesReader::State* st_;
  bool in_string_ = false, escape_ = false, in_space_ = false;
  uint64_t run_ = 0;  // bytes of the current string or number token
};

void sax_parse(LinesReader::State& st, CompactInput in, uint64_t first_col = 0) {
  st.start_input(first_col);
  Sax sax{&st};
  try {
    nlohmann::detail::parser<json, CompactInput>(std::move(in), nullptr, true, false).sax_parse(&sax, true);
  } catch (const std::bad_alloc&) {
    st.out_of_memory();
  }
}

ScheduleDocument parse_doc(CompactInput in, const std::string& source, uint64_t max_memory, LinesReader::State& st) {
  st.source = st.where = source;
  st.part = Part::document;
  st.max_memory = max_memory;
  sax_parse(st, std::move(in));
  if (!st.header_done) st.fail_at("top level", "incomplete document");  // not reached: the lexer reports it
  return std::move(st.doc);
}

}  // namespace

ScheduleDocument parse_document(std::istream& in, const std::string& source, uint64_t max_memory) {
  LinesReader::State st;
  return parse_doc(CompactInput(in.rdbuf(), &st), source, max_memory, st);
}
ScheduleDocument parse_document(const std::string& text, const std::string& source, uint64_t max_memory) {
  LinesReader::State st;
  return parse_doc(CompactInput(text.data(), text.data() + text.size(), &st), source, max_memory, st);
}

LinesReader::LinesReader(std::string source, uint64_t max_memory) : st_(std::make_unique<State>()) {
  st_->source = std::move(source);
  st_->max_memory = max_memory;
}
LinesReader::~LinesReader() = default;

void LinesReader::header(const std::string& line, uint64_t lineno, uint64_t first_col) {
  State& st = *st_;
  st.where = st.source + ":" + std::to_string(lineno);
  st.line_no = lineno;
  st.part = Part::lines_header;
  st.frames.clear();
  sax_parse(st, CompactInput(line.data(), line.data() + line.size(), &st), first_col);
  st.where = st.source;
  if (st.claims_seen) st.doc.claims->location = st.source + ":" + std::to_string(lineno) + ": /claims";
}

namespace {
bool g_fast_path = true;
}  // namespace

void set_fast_path(bool enabled) { g_fast_path = enabled; }

void LinesReader::entry(const std::string& line, uint64_t lineno, uint64_t first_col) {
  State& st = *st_;
  st.line_no = lineno;
  if (g_fast_path && st.header_done && st.fast_entry(line)) return;
  st.where = st.source + ":" + std::to_string(lineno);
  st.part = Part::lines_entry;
  st.frames.clear();
  sax_parse(st, CompactInput(line.data(), line.data() + line.size(), &st), first_col);
  st.place_line_entry();
}

void LinesReader::check_line(uint64_t bytes, uint64_t lineno) const {
  st_->line_no = lineno;
  st_->check_memory(bytes);
}

void LinesReader::out_of_memory(uint64_t lineno) {
  st_->line_no = lineno;
  st_->out_of_memory();
}

ScheduleDocument LinesReader::finish(uint64_t last_line) {
  State& st = *st_;
  st.where = st.source + ":" + std::to_string(last_line);
  if (!st.header_done) st.fail_at("top level", "empty file (expected a header line {\"format\": \"" +
                                                   std::string(kScheduleLinesFormat) + "\", ...})");
  const uint64_t want = *st.step_count * st.doc.schedule.spec.p;
  if (st.entries != want)
    st.fail_at("end of file", "truncated: the header declares " + std::to_string(*st.step_count) + " steps of p = " +
                                  std::to_string(st.doc.schedule.spec.p) + " ranks (" + std::to_string(want) +
                                  " entry lines), the file ends after " + std::to_string(st.entries) +
                                  " (expected step " + std::to_string(st.next_step) + ", rank " +
                                  std::to_string(st.next_rank) + " next)");
  return std::move(st.doc);
}

}  // namespace collcheck::schedule_reader
