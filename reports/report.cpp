// The result model's own logic (statuses, format names) and the dispatch to
// one renderer per format; the renderers live in render_<format>.cpp and
// share the grouping helpers of summary.cpp.
#include "reports/report.hpp"

#include "schedules/input_error.hpp"

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

std::string visible(std::string_view s) { return escape_controls(s); }

std::string render(const Report& r, Format f, bool verbose, bool color) {
  using namespace reports_detail;
  switch (f) {
    case Format::text: return render_text(r, verbose, color);
    case Format::json: return render_json(r);
    case Format::markdown: return render_markdown(r);
    case Format::junit: return render_junit(r);
    case Format::html: return render_html(r);
  }
  return {};
}

}  // namespace collcheck
