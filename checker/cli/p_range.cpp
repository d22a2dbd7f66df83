#include "checker/cli/p_range.hpp"

#include <algorithm>
#include <cctype>

#include "checker/cli/cli_support.hpp"
#include "checker/sweep/sweep.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {
namespace {

constexpr uint64_t kMaxValues = kMaxSweepInstances;  // one sweep

[[noreturn]] void bad(const std::string& whole, const std::string& why) {
  throw InputError("malformed p-range " + quote_input(whole) + ": " + why);
}

uint64_t parse_value(const std::string& t, const std::string& whole) {
  if (t.empty()) bad(whole, "empty value");
  auto digits = [&](const std::string& s) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
      bad(whole, quote_input(t) + " is not a number or B^K");
    // Too many digits for any p (or exponent) collcheck takes: say so, instead
    // of calling a well-formed number malformed (stoull would overflow).
    const size_t nz = s.find_first_not_of('0');
    const std::string sig = nz == std::string::npos ? "0" : s.substr(nz);
    if (sig.size() > 12) bad(whole, t + " exceeds the maximum p = 2^24");
    return *parse_integer(sig);  // the integer grammar of every option (cli_support.hpp)
  };
  uint64_t v;
  auto caret = t.find('^');
  if (caret != std::string::npos) {
    // B^K for any base B >= 2 (2^21, 3^13 for Trivance's powers of three),
    // multiplied out with a bound check at every factor: no overflow.
    const uint64_t base = digits(t.substr(0, caret));
    if (base < 2) bad(whole, "the base of " + quote_input(t) + " must be at least 2");
    const uint64_t k = digits(t.substr(caret + 1));
    v = 1;
    for (uint64_t i = 0; i < k; ++i) {
      if (v > kMaxP / base) bad(whole, t + " exceeds the maximum p = 2^24");
      v *= base;
    }
  } else {
    v = digits(t);
  }
  if (v == 0) bad(whole, "p must be >= 1");
  if (v > kMaxP) bad(whole, std::to_string(v) + " exceeds the maximum p = 2^24");
  return v;
}

// The p-range `text` with at most `max_values` values (counted before
// duplicates are removed; powers of two (pow2) are not counted).
std::vector<uint64_t> parse_p_range(const std::string& text, uint64_t max_values) {
  std::vector<uint64_t> out;
  if (text.empty()) bad(text, "empty");
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string term = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (term.empty()) bad(text, "empty term in comma list");
    auto dots = term.find("..");
    if (dots == std::string::npos) {
      if (term.find(':') != std::string::npos) bad(text, "a step needs a range A..B:STEP (" + quote_input(term) + ")");
      out.push_back(parse_value(term, text));
    } else {
      std::string a = term.substr(0, dots), rest = term.substr(dots + 2), step;
      auto colon = rest.find(':');
      if (colon != std::string::npos) {
        step = rest.substr(colon + 1);
        rest = rest.substr(0, colon);
      }
      uint64_t lo = parse_value(a, text), hi = parse_value(rest, text);
      if (lo > hi) bad(text, "empty range " + term + " (start > end)");
      if (step == "pow2") {
        size_t before = out.size();
        for (uint64_t v = 1; v <= hi; v *= 2)
          if (v >= lo) out.push_back(v);
        if (out.size() == before) bad(text, "no power of two in " + term);
      } else {
        uint64_t st = 1;
        if (colon != std::string::npos) {
          if (step.empty() || !std::all_of(step.begin(), step.end(), [](unsigned char c) { return std::isdigit(c); }) ||
              step.size() > 9)
            bad(text, "step must be a positive integer or 'pow2' (" + quote_input(step) + ")");
          st = *parse_integer(step);
          if (st == 0) bad(text, "step must be >= 1");
        }
        if ((hi - lo) / st + 1 + out.size() > max_values) bad(text, std::string("more than ") + kMaxSweepInstancesText + " values");
        for (uint64_t v = lo; v <= hi; v += st) out.push_back(v);
      }
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::vector<uint64_t> parse_p_range(const std::string& text) { return parse_p_range(text, kMaxValues); }

std::vector<uint64_t> parse_p_range_for_estimate(const std::string& text) { return parse_p_range(text, UINT64_MAX); }

}  // namespace collcheck
