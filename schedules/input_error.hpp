#pragma once
// Bad input (the first kind of error; broken internal invariants, the second,
// are schedules/check.hpp): unknown names, malformed ranges, malformed
// schedule files. The CLI prints what() on one line and exits 2.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collcheck {

struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// Untrusted text as collcheck prints it (error messages, and every report
// renderer through reports/report.hpp's visible()): nothing in it can start
// a line of its own (a forged "RESULT: holds") or reach a terminal as a
// control sequence. "\n", "\r", "\t", "\xNN" for the other C0 controls,
// DEL and bytes that are not well-formed UTF-8; "\uNNNN" for the C1
// controls, the line and paragraph separators and the bidirectional
// controls (which reorder what is shown). Anything else, backslashes and
// valid UTF-8 ("Träff") included, is kept as it is. The CLI passes every
// error message through it once more before printing (checker/cli/cli.cpp),
// so a message that quotes input unescaped is still one line.
inline std::string escape_controls(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  auto byte_escape = [&](unsigned c) {
    out += "\\x";
    out += hex[(c >> 4) & 15];
    out += hex[c & 15];
  };
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7f) byte_escape(c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (no overlong form, no surrogate, at most U+10FFFF).
    const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    uint32_t cp = n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
    bool ok = n > 0;
    for (size_t k = 1; ok && k < n; ++k) {
      ok = continuation(i + k);
      if (ok) cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    ok = ok && !(n == 3 && cp < 0x800) && !(n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) &&
         !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!ok) {
      byte_escape(c);
      ++i;
      continue;
    }
    const bool control = (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
                         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    if (control) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 15];
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

// escape_controls of at most the first `max` bytes of `s` (cut before a
// UTF-8 sequence, never inside one), "..." appended when something was cut:
// a value quoted in a one-line message.
inline std::string escape_controls_cut(std::string_view s, size_t max) {
  if (s.size() <= max) return escape_controls(s);
  size_t cut = max;
  for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80; ++back) --cut;
  return escape_controls(s.substr(0, cut)) + "...";
}

// 'text', escaped as escape_controls does: how an error message quotes an
// option value, a name or a path the user gave.
inline std::string quote_input(std::string_view text) { return "'" + escape_controls(text) + "'"; }

}  // namespace collcheck
