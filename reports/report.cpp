// The result model's own logic (statuses, format names) and the dispatch to
// one renderer per format; the renderers live in render_<format>.cpp and
// share the grouping helpers of summary.cpp.
#include "reports/report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>

#include "reports/summary.hpp"

namespace collcheck {

Status effective_status(const InstanceResult& i) {
  Status s = i.status;
  for (const Verdict& v : i.verdicts) s = worst(s, v.status);
  return s;
}

Status Report::status() const {
  if (instances.empty()) return Status::holds;
  // worst() ranks skipped lowest, so folding from skipped leaves skipped
  // only when every instance is skipped.
  Status s = Status::skipped;
  for (const InstanceResult& i : instances) s = worst(s, effective_status(i));
  return s;
}

std::optional<Format> format_from_string(const std::string& s) {
  std::string k = s;
  std::transform(k.begin(), k.end(), k.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (k == "text") return Format::text;
  if (k == "json") return Format::json;
  if (k == "markdown" || k == "md") return Format::markdown;
  if (k == "junit") return Format::junit;
  if (k == "html") return Format::html;
  return std::nullopt;
}

const char* to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::json: return "json";
    case Format::markdown: return "markdown";
    case Format::junit: return "junit";
    case Format::html: return "html";
  }
  return "?";
}

std::string visible(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [&](const char* fmt, unsigned v) {
    char b[12];
    std::snprintf(b, sizeof b, fmt, v);
    out += b;
  };
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) hex("\\x%02x", c);
          else out += static_cast<char>(c);
      }
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
      hex("\\x%02x", c);
      ++i;
      continue;
    }
    const bool control = (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
                         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    if (control) hex("\\u%04x", cp);
    else out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string render(const Report& r, Format f, bool verbose) {
  using namespace reports_detail;
  switch (f) {
    case Format::text: return render_text(r, verbose);
    case Format::json: return render_json(r);
    case Format::markdown: return render_markdown(r);
    case Format::junit: return render_junit(r);
    case Format::html: return render_html(r);
  }
  return {};
}

}  // namespace collcheck
