#pragma once
// Bad input (the first kind of error; broken internal invariants, the second,
// are schedules/check.hpp): unknown names, malformed ranges, malformed
// schedule files. The CLI prints what() on one line and exits 2.
#include <stdexcept>
#include <string>
#include <string_view>

namespace collcheck {

struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// User input as an error message shows it: control characters (bytes below
// 0x20, and 0x7f) as \n, \r, \t or \xNN, everything else as given, so that a
// value holding a newline never breaks the one-line message. The CLI passes
// every error message through it once more before printing
// (checker/cli/cli.cpp), so a message that quotes input unescaped is still one line.
inline std::string escape_controls(std::string_view text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

// 'text', escaped as escape_controls does: how an error message quotes an
// option value, a name or a path the user gave.
inline std::string quote_input(std::string_view text) { return "'" + escape_controls(text) + "'"; }

}  // namespace collcheck
