// The p-range syntax (checker/cli/p_range.hpp, docs/guide/options.md "Instances"):
//   N, 2^K, A..B, A..B:STEP, 2^A..2^B:pow2, comma lists of any of them,
//   results sorted and de-duplicated;
// and every malformed input throws collcheck::InputError with a one-line
// message naming the input (nothing is clamped, nothing crashes).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <typeinfo>
#include <vector>

#include "checker/cli/p_range.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {
namespace {

using V = std::vector<uint64_t>;

TEST(PRange, SingleValue) {
  EXPECT_EQ(parse_p_range("1"), V{1});
  EXPECT_EQ(parse_p_range("7"), V{7});
  EXPECT_EQ(parse_p_range("2048"), V{2048});
  EXPECT_EQ(parse_p_range("0016"), V{16});  // leading zeros are still decimal
}

TEST(PRange, PowerOfTwo) {
  EXPECT_EQ(parse_p_range("2^0"), V{1});
  EXPECT_EQ(parse_p_range("2^5"), V{32});
  EXPECT_EQ(parse_p_range("2^21"), V{uint64_t{1} << 21});
  EXPECT_EQ(parse_p_range("2^24"), V{kMaxP});
}

TEST(PRange, InclusiveRange) {
  EXPECT_EQ(parse_p_range("1..5"), (V{1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_p_range("4..4"), V{4});
  EXPECT_EQ(parse_p_range("2^3..10"), (V{8, 9, 10}));
  EXPECT_EQ(parse_p_range("1..200").size(), 200u);
}

TEST(PRange, RangeWithStep) {
  EXPECT_EQ(parse_p_range("1..10:3"), (V{1, 4, 7, 10}));
  EXPECT_EQ(parse_p_range("2..11:3"), (V{2, 5, 8, 11}));
  EXPECT_EQ(parse_p_range("2..12:5"), (V{2, 7, 12}));
  EXPECT_EQ(parse_p_range("5..6:100"), V{5});  // the start is always included
  EXPECT_EQ(parse_p_range("1..8:1"), parse_p_range("1..8"));
}

TEST(PRange, PowersOfTwoInARange) {
  EXPECT_EQ(parse_p_range("2^0..2^4:pow2"), (V{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_p_range("2^3..2^6:pow2"), (V{8, 16, 32, 64}));
  EXPECT_EQ(parse_p_range("3..100:pow2"), (V{4, 8, 16, 32, 64}));
  EXPECT_EQ(parse_p_range("2^21..2^21:pow2"), V{uint64_t{1} << 21});
  EXPECT_EQ(parse_p_range("1..2^24:pow2").size(), 25u);
}

TEST(PRange, CommaListsAreSortedAndDeduplicated) {
  EXPECT_EQ(parse_p_range("8,3,5"), (V{3, 5, 8}));
  EXPECT_EQ(parse_p_range("4,4,4"), V{4});
  EXPECT_EQ(parse_p_range("1..4,3..6"), (V{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(parse_p_range("2^4,16,1..3,10..20:5,2^2..2^3:pow2"), (V{1, 2, 3, 4, 8, 10, 15, 16, 20}));
  EXPECT_EQ(parse_p_range("1000,1024,2047,2048"), (V{1000, 1024, 2047, 2048}));
}

// Each malformed input must throw InputError whose message names the input
// and fits on one line (the CLI prints it verbatim and exits 2).
void expect_input_error(const std::string& text) {
  try {
    V v = parse_p_range(text);
    ADD_FAILURE() << "'" << text << "' was accepted, giving " << v.size() << " value(s)";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'" + text + "'"), std::string::npos) << "message does not quote the input: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
    EXPECT_GT(msg.size(), text.size() + 20) << "message says nothing about the problem: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "'" << text << "' threw " << typeid(e).name() << " (" << e.what() << "), not InputError";
  }
}

TEST(PRangeMalformed, BriefList) {
  for (const char* bad : {"", "0", "5..3", "1..", "..4", "2^", "1^4", "0^3", "3^16", "1..8:0", "1..8:x", "2^25", "1,,2", "abc",
                          "-1", "4:2"})
    expect_input_error(bad);
}

TEST(PRangeMalformed, MoreEdgeCases) {
  for (const char* bad : {",", "1,", ",1", "1..2..3", "1..8:", "1..8:-2", "1..8:pow3", "2^-1", "2^x", "^3",
                          " 4", "4 ", "1.5", "16777217", "1..16777217", "99999999999999999999", "2^2^2",
                          "0..4", "5..7:pow2", "2^30..2^31:pow2", "4:pow2", "1..4:2:2"})
    expect_input_error(bad);
}

TEST(PRange, PowersOfAnyBase) {
  EXPECT_EQ(parse_p_range("3^4"), V{81});
  EXPECT_EQ(parse_p_range("3^0"), V{1});
  EXPECT_EQ(parse_p_range("3^15"), V{14348907});  // 3^15 < 2^24 < 3^16
  EXPECT_EQ(parse_p_range("10^7"), V{10000000});
  EXPECT_EQ(parse_p_range("1..3^2").size(), 9u);
  EXPECT_EQ(parse_p_range("3^2..3^2"), V{9});
}

TEST(PRangeMalformed, ExactlyTheMaximumIsAccepted) {
  EXPECT_EQ(parse_p_range("16777216"), V{kMaxP});
  expect_input_error("16777217");
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// One run takes the headline range 1..2^21 and refuses more than 2^22 values.
TEST(PRangeLimit, TheHeadlineRangeFitsOneRun) {
  EXPECT_EQ(parse_p_range("1..2^21").size(), size_t{1} << 21);
  EXPECT_EQ(parse_p_range("1..2^22").size(), size_t{1} << 22);
  try {
    parse_p_range("1..2^22,5000000..5000001");
    FAIL() << "accepted 2^22 + 1 values";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 2^22 values"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collcheck
