// Limits of the schedule reader (schedules/schedule_reader.hpp) that the
// format's own tests do not reach (issue 14, items 12 and 14):
//
//  * free-form lists (producer keys, claimed properties) are checked for
//    duplicates in O(n log n) comparisons, not O(n^2): the comparison count
//    of 4n names is about 4x that of n names (a scan of every earlier name,
//    as before, made it 16x);
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "schedules/input_error.hpp"
#include "schedules/schedule_file.hpp"
#include "schedules/schedule_reader.hpp"

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

}  // namespace
}  // namespace collcheck
