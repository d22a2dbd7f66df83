// The one number grammar of collcheck's numeric options
// (checker/cli/cli_support.hpp, docs/guide/options.md "Numbers"): integers are decimal
// digits; decimals add an optional fraction and exponent; sizes are a decimal
// and a unit. No sign, spaces, hex, inf or nan anywhere (the outside audit:
// --calibrate-seconds 0x10, --alpha 0x10 and --alpha ' 3' were accepted,
// --max-memory 0x100000 was read as 1 MiB, --threads +1 was taken, and
// --seed 2^64-1 was refused although in range). Error messages quote the
// value with its control characters escaped.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "checker/cli/cli_support.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {
namespace {

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(NumberGrammar, Integers) {
  EXPECT_EQ(parse_integer("0"), 0u);
  EXPECT_EQ(parse_integer("42"), 42u);
  EXPECT_EQ(parse_integer("007"), 7u);
  EXPECT_EQ(parse_integer("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_integer("000000000000000000000001"), 1u);  // leading zeros are not a length limit
  for (const char* bad : {"", "+1", "-1", " 1", "1 ", "0x10", "1e3", "1.0", "1_000", "inf", "nan", "１"})
    EXPECT_FALSE(parse_integer(bad)) << bad;
  bool too_large = false;
  EXPECT_FALSE(parse_integer("18446744073709551616", &too_large));
  EXPECT_TRUE(too_large);
  EXPECT_FALSE(parse_integer("0x10", &too_large));
  EXPECT_FALSE(too_large);
}

TEST(NumberGrammar, Decimals) {
  EXPECT_EQ(parse_decimal("4"), 4.0);
  EXPECT_EQ(parse_decimal("0.5"), 0.5);
  EXPECT_EQ(parse_decimal("2e-6"), 2e-6);
  EXPECT_EQ(parse_decimal("1.5E+3"), 1500.0);
  EXPECT_EQ(parse_decimal("1e3"), 1000.0);
  for (const char* bad : {"", ".5", "1.", "1e", "1e+", "+1", "-1", " 3", "3 ", "0x10", "0x1p3", "inf", "nan",
                          "infinity", "1,5", "1e400", "1..2"})
    EXPECT_FALSE(parse_decimal(bad)) << bad;
}

TEST(NumberGrammar, Sizes) {
  EXPECT_EQ(parse_memory_size("max-memory", "6G"), uint64_t{6} << 30);
  EXPECT_EQ(parse_memory_size("max-memory", "512MiB"), uint64_t{512} << 20);
  EXPECT_EQ(parse_memory_size("max-memory", "1.5g"), uint64_t{3} << 29);
  EXPECT_EQ(parse_memory_size("max-memory", "1048576"), uint64_t{1} << 20);
  EXPECT_EQ(parse_memory_size("max-memory", "1e3M"), uint64_t{1000} << 20);  // a decimal, exponent included
  EXPECT_EQ(parse_memory_size("max-memory", "none"), 0u);
  for (const char* bad : {"0x100000", "0x1G", " 6G", "6G ", "6 G", "6X", "-6G", "+6G", ".5G", "1.G", "1e3", "infG",
                          "512K", "", "G"})
    EXPECT_NE(error_of([&] { parse_memory_size("max-memory", bad); }).find("--max-memory must be a size"),
              std::string::npos)
        << bad;
}

TEST(NumberGrammar, OptionMessages) {
  EXPECT_EQ(parse_uint_option("seed", "18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
  EXPECT_EQ(error_of([] { parse_uint_option("threads", "+1", 0, 1024); }),
            "--threads must be a non-negative integer, not '+1'");
  EXPECT_EQ(error_of([] { parse_uint_option("threads", "2000", 0, 1024, " (0: one per core)"); }),
            "--threads must be in 0..1024 (0: one per core), not 2000");
  EXPECT_EQ(error_of([] { parse_uint_option("seed", "18446744073709551616", 0, UINT64_MAX); }),
            "--seed must be in 0..18446744073709551615, not 18446744073709551616");
  EXPECT_EQ(parse_real_option("alpha", "2e-6", 0, 1e300, "a finite number >= 0"), 2e-6);
  EXPECT_EQ(error_of([] { parse_real_option("alpha", "0x10", 0, 1e300, "a finite number >= 0"); }),
            "--alpha must be a finite number >= 0, not '0x10'");
  EXPECT_EQ(error_of([] { parse_real_option("calibrate-seconds", "5000", 0.01, 3600, "a number in [0.01, 3600]"); }),
            "--calibrate-seconds must be a number in [0.01, 3600], not '5000'");
  // A value with a newline stays on one line.
  EXPECT_EQ(error_of([] { parse_uint_option("n", "1\n2", 1, 8); }), "--n must be a non-negative integer, not '1\\n2'");
}

TEST(Quoting, ControlCharactersAreEscaped) {
  EXPECT_EQ(quote_input("a b"), "'a b'");
  EXPECT_EQ(quote_input("a\nb\r\tc"), "'a\\nb\\r\\tc'");
  EXPECT_EQ(quote_input(std::string("x\0y\x1b\x7f", 5)), "'x\\x00y\\x1b\\x7f'");
  EXPECT_EQ(quote_input("Träff"), "'Träff'");  // UTF-8 is kept
  EXPECT_EQ(escape_controls("no\\escape"), "no\\escape");
}

}  // namespace
}  // namespace collcheck
