// Limits of the schedule reader (schedules/formats/schedule_reader.hpp) that the
// format's own tests do not reach:
//
//  * free-form lists (producer keys, claimed properties) are checked for
//    duplicates in O(n log n) comparisons, not O(n^2): the comparison count
//    of 4n names is about 4x that of n names (a scan of every earlier name,
//    as before, made it 16x);
//  * the lexer gets whitespace runs as one character, yet every error names
//    the real line and column (JSON and JSON lines, leading whitespace of a
//    line included); string and number tokens longer than any valid file has
//    are refused before they are buffered;
//  * the memory guard (max_memory): what the reader builds is estimated as
//    it grows and refused above the limit with ResourceRefusal, one line
//    with the estimate; in JSON lines the line being read counts too.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>

#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/formats/schedule_file.hpp"
#include "schedules/formats/schedule_reader.hpp"

namespace collcheck {
namespace {

// A valid p = 2 document whose "producer" (or claimed "properties") lists n
// distinct names.
std::string document_with_names(size_t n, bool producer) {
  std::string list;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = "name" + std::to_string(i * 7919 % n);  // not in sorted order
    if (i) list += ",";
    list += "\"" + name + (producer ? "\": \"v\"" : "\"");
  }
  return std::string(R"({"format": "collcheck-schedule/2", "collective": "allreduce", "p": 2, "nblocks": 2, )") +
         (producer ? "\"producer\": {" + list + "}" : "\"claims\": {\"properties\": [" + list + "]}") +
         R"(, "steps": []})";
}

uint64_t comparisons_to_parse(size_t n, bool producer) {
  const std::string text = document_with_names(n, producer);
  const uint64_t before = schedule_reader::name_comparisons();
  ScheduleDocument doc = schedule_reader::parse_document(text, "names.json");
  EXPECT_EQ(producer ? doc.producer.size() : doc.claims->properties.size(), n);
  return schedule_reader::name_comparisons() - before;
}

TEST(ScheduleReaderScaling, DuplicateDetectionIsNotQuadratic) {
  for (bool producer : {true, false}) {
    SCOPED_TRACE(producer ? "producer keys" : "claimed properties");
    const size_t n = 2000;
    const uint64_t small = comparisons_to_parse(n, producer), large = comparisons_to_parse(4 * n, producer);
    // n log2 n comparisons per insertion sweep, with a balanced tree's slack;
    // the scan of every earlier name made n^2 / 2 = 2e6 of them for n = 2000.
    EXPECT_LE(small, 3 * n * static_cast<uint64_t>(std::log2(n) + 1));
    EXPECT_LT(static_cast<double>(large) / static_cast<double>(small), 6.0) << small << " -> " << large;
  }
}

TEST(ScheduleReaderScaling, DuplicatesAreStillFound) {
  EXPECT_THROW(schedule_reader::parse_document(
                   R"({"format": "collcheck-schedule/2", "producer": {"a": "1", "b": "2", "a": "3"}})", "d.json"),
               InputError);
  EXPECT_THROW(schedule_reader::parse_document(
                   R"({"format": "collcheck-schedule/2", "claims": {"properties": ["ports", "matching", "ports"]}})",
                   "d.json"),
               InputError);
}

// The InputError message of parsing `text`, or "" if it parses.
std::string error_of(const std::string& text, std::optional<ScheduleEncoding> enc = std::nullopt) {
  try {
    parse_schedule_text(text, "t", enc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader = R"({"format": "collcheck-schedule-lines/2", "collective": "allreduce", "p": 2, "nblocks": 2, "steps": 1})";

TEST(ScheduleReaderPositions, ErrorsNameTheRealLineAndColumnAfterCompactedWhitespace) {
  // 100000 newlines and spaces, then a bad literal at line 100001, column 4.
  const std::string doc = "{" + std::string(100000, '\n') + "   x";
  EXPECT_NE(error_of(doc).find("line 100001, column 4"), std::string::npos) << error_of(doc);
  const std::string tabs = "{\"format\":" + std::string(5000, '\t') + "\"collcheck-schedule/2\" 2";
  EXPECT_NE(error_of(tabs).find("line 1, column 5034"), std::string::npos) << error_of(tabs);
  // JSON lines: the leading whitespace the line splitter drops still counts.
  const std::string lines = kHeader + "\n" + std::string(3000, ' ') + "{\"step\": 0, \"rank\": 0, x}\n";
  EXPECT_NE(error_of(lines).find("t:2: column 3024, in "), std::string::npos) << error_of(lines);
  // Whitespace-only lines of any length are blank lines.
  const std::string entry0 = R"({"step": 0, "rank": 0, "sends": [], "recvs": []})";
  const std::string entry1 = R"({"step": 0, "rank": 1, "sends": [], "recvs": []})";
  EXPECT_EQ(error_of(kHeader + "\n" + std::string(1 << 20, ' ') + "\n" + entry0 + "\n" + entry1 + "\n"), "");
}

TEST(ScheduleReaderPositions, OverlongTokensAreRefusedBeforeTheyAreBuffered) {
  const std::string digits = R"({"format": "collcheck-schedule/2", "p": )" + std::string(5000, '7') + "}";
  EXPECT_NE(error_of(digits).find("/p: a number longer than 4096 characters"), std::string::npos) << error_of(digits);
  const std::string text = R"({"format": "collcheck-schedule/2", "producer": {"a": ")" + std::string(1 << 20, 'z') + "\"}}";
  EXPECT_NE(error_of(text).find("/producer/a: a string longer than 64 KiB"), std::string::npos) << error_of(text);
  // Keys are strings: the same limit (the outside audit: a producer key of
  // 300000 characters, under the token filter's 6 * 64 KiB, was taken).
  const std::string key = R"({"format": "collcheck-schedule/2", "producer": {")" + std::string(300000, 'k') + R"(": "v"}})";
  EXPECT_NE(error_of(key).find("/producer: a key longer than 64 KiB"), std::string::npos) << error_of(key).substr(0, 200);
  const std::string top = R"({")" + std::string(70000, 'k') + R"(": 1})";
  EXPECT_NE(error_of(top).find("top level: a key longer than 64 KiB"), std::string::npos) << error_of(top).substr(0, 200);
  std::string at_limit = R"({"format": "collcheck-schedule/2", "collective": "allreduce", "p": 1, "nblocks": 1, "producer": {")";
  at_limit += std::string(1 << 16, 'k') + R"(": "v"}, "steps": []})";
  EXPECT_EQ(error_of(at_limit), "");
  // Escapes count as the bytes they take: 64 KiB characters written as \u0041 still parse.
  std::string escaped = R"({"format": "collcheck-schedule/2", "collective": "allreduce", "p": 1, "nblocks": 1, "producer": {"a": ")";
  for (int i = 0; i < (1 << 16); ++i) escaped += "\\u0041";
  escaped += R"("}, "steps": []})";
  EXPECT_EQ(error_of(escaped), "");
}

// A valid JSON-lines ring-like schedule of p ranks, 2 steps, one transfer per
// rank and direction, each transfer listing `ranges` block ranges.
std::string lines_schedule(uint64_t p, uint64_t ranges) {
  std::string out = R"({"format": "collcheck-schedule-lines/2", "collective": "allgather", "p": )" + std::to_string(p) +
                    R"(, "nblocks": )" + std::to_string(p * 2 * ranges) + R"(, "steps": 2})" + "\n";
  for (uint64_t s = 0; s < 2; ++s)
    for (uint64_t r = 0; r < p; ++r) {
      std::string blocks;
      for (uint64_t k = 0; k < ranges; ++k) blocks += (k ? ",[" : "[") + std::to_string(2 * k) + "," + std::to_string(2 * k + 1) + "]";
      out += R"({"step": )" + std::to_string(s) + R"(, "rank": )" + std::to_string(r) + R"(, "sends": [{"peer": )" +
             std::to_string((r + 1) % p) + R"(, "blocks": [)" + blocks + R"(], "combine": "copy"}], "recvs": [{"peer": )" +
             std::to_string((r + p - 1) % p) + R"(, "blocks": [)" + blocks + R"(], "combine": "copy"}]})" + "\n";
    }
  return out;
}

std::string refusal_of(const std::string& text, uint64_t limit, std::optional<ScheduleEncoding> enc = std::nullopt) {
  try {
    parse_schedule_text(text, "t", enc, limit);
  } catch (const ResourceRefusal& e) {
    return e.what();
  }
  return "";
}

TEST(ScheduleReaderMemoryGuard, RefusesWhatWouldExceedTheLimit) {
  const std::string text = lines_schedule(5000, 4);  // 10000 entries, 20000 transfers of 4 ranges
  EXPECT_EQ(refusal_of(text, 0), "");
  EXPECT_EQ(refusal_of(text, 64 << 20), "");
  const std::string why = refusal_of(text, 1 << 20);
  EXPECT_EQ(why.rfind("refused by the memory guard while reading t, at line ", 0), 0u) << why;
  EXPECT_NE(why.find("transfers) takes an estimated "), std::string::npos) << why;
  EXPECT_NE(why.find("more than --max-memory 1 MiB"), std::string::npos) << why;
  // The estimate grows with what is built: half the limit is reached about
  // halfway (the entries are alike), not at once and not never.
  const std::string half = refusal_of(text, 1 << 19);
  const auto line_of = [](const std::string& w) { return std::stoull(w.substr(w.find("at line ") + 8)); };
  ASSERT_FALSE(half.empty());
  EXPECT_LT(line_of(half), line_of(why));
  EXPECT_GT(line_of(half), line_of(why) / 4);
  // The same content as one JSON document is guarded the same way.
  ScheduleDocument doc = parse_schedule_text(text, "t");
  std::ostringstream json;
  write_schedule_json(json, MaterializedView(std::move(doc.schedule)), {});
  EXPECT_EQ(refusal_of(json.str(), 64 << 20), "");
  EXPECT_EQ(refusal_of(json.str(), 1 << 20).rfind("refused by the memory guard while reading t, at line ", 0), 0u);
}

TEST(ScheduleReaderMemoryGuard, TheLineBeingReadCounts) {
  // One entry line of 4 MiB (whitespace inside it is held with the line).
  const std::string entry = R"({"step": 0, "rank": 0,)" + std::string(4 << 20, ' ') + R"("sends": [], "recvs": []})";
  const std::string why = refusal_of(kHeader + "\n" + entry + "\n", 2 << 20);
  EXPECT_EQ(why.rfind("refused by the memory guard while reading t, at line 2: ", 0), 0u) << why;
  EXPECT_NE(why.find(" with the line being read takes an estimated "), std::string::npos) << why;
}

}  // namespace
}  // namespace collcheck
