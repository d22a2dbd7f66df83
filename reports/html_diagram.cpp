// Counterexample step-by-rank diagrams (see html_diagram.hpp).
#include "reports/html_diagram.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "reports/summary.hpp"
#include "schedules/registry.hpp"

namespace collcheck::reports_detail {

namespace {

constexpr uint64_t kMaxExcerptP = 64;
constexpr int kStepsShown = 6;
constexpr size_t kMaxRows = 16;

std::string esc(const std::string& s) { return xml_escape(visible(s)); }  // as render_html.cpp's

bool parse_u32(const std::string& s, uint32_t& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

// Inverse of InstanceParams::label(): "n=3 root=2 r=5 r2=2 Q=4 dims=3x3".
std::optional<InstanceParams> parse_params(const std::string& label, uint64_t p) {
  InstanceParams ip;
  ip.p = p;
  size_t i = 0;
  while (i < label.size()) {
    size_t j = label.find(' ', i);
    if (j == std::string::npos) j = label.size();
    const std::string tok = label.substr(i, j - i);
    i = j + 1;
    const size_t eq = tok.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
    uint32_t x = 0;
    if (k == "dims") {
      size_t a = 0;
      while (a <= v.size()) {
        size_t b = v.find('x', a);
        if (b == std::string::npos) b = v.size();
        if (!parse_u32(v.substr(a, b - a), x)) return std::nullopt;
        ip.dims.push_back(x);
        a = b + 1;
      }
      continue;
    }
    if (!parse_u32(v, x)) return std::nullopt;
    if (k == "n") ip.blocks = x;
    else if (k == "root") ip.root = x;
    else if (k == "r") ip.radix = x;
    else if (k == "r2") ip.radix2 = x;
    else if (k == "Q") ip.ppn = x;
    else return std::nullopt;
  }
  return ip;
}

}  // namespace

std::pair<int, int> diagram_steps(const Counterexample& cx) {
  if (!cx.step) return {0, -1};
  return {std::max(0, *cx.step - (kStepsShown - 1)), *cx.step};
}

std::vector<DiagramTransfer> registry_excerpt(const std::string& algorithm, const std::string& variant,
                                              const std::string& params, uint64_t p, int first_step, int last_step) {
  std::vector<DiagramTransfer> out;
  if (p == 0 || p > kMaxExcerptP || first_step > last_step) return out;
  const AlgorithmInfo* a = find_algorithm(algorithm);
  if (!a) return out;
  const VariantInfo* v = a->find_variant(variant);
  if (!v || !v->make) return out;
  auto ip = parse_params(params, p);
  if (!ip) return out;
  try {
    if (v->violates && v->violates(*ip)) return out;
    auto s = v->make(*ip);
    RankStep rs;
    for (int st = first_step; st <= last_step && st < s->num_steps(); ++st)
      for (Rank r = 0; r < p; ++r) {
        s->rank_step(r, st, rs);
        for (const Transfer& t : rs.sends) out.push_back({st, r, t.peer, t.blocks.to_string(), false});
      }
  } catch (...) {
    out.clear();  // a diagram is an illustration; never fail the report for it
  }
  return out;
}

void svg_counterexample(std::ostream& o, const Counterexample& cx, std::vector<DiagramTransfer> excerpt, int id) {
  const std::string arrow = "arrow" + std::to_string(id), bad = "arrow-bad" + std::to_string(id);
  const uint64_t p = std::max<uint64_t>(cx.p, 1);
  const auto [first, last_step] = diagram_steps(cx);
  const int last = std::max(first, last_step);
  // Rows: every rank for small p, else the counterexample's neighbourhood.
  std::set<uint64_t> rows;
  auto add = [&](int64_t r) {
    if (r >= 0 && static_cast<uint64_t>(r) < p) rows.insert(static_cast<uint64_t>(r));
  };
  if (p <= kMaxRows) {
    for (uint64_t r = 0; r < p; ++r) rows.insert(r);
  } else {
    add(0);
    add(static_cast<int64_t>(p) - 1);
    if (cx.rank) for (int d = -1; d <= 1; ++d) add(static_cast<int64_t>(*cx.rank) + d);
    if (cx.peer) for (int d = -1; d <= 1; ++d) add(static_cast<int64_t>(*cx.peer) + d);
  }
  // The offending transfer: between rank and peer at the counterexample's step.
  bool marked = false;
  for (DiagramTransfer& t : excerpt)
    if (cx.rank && cx.peer && cx.step && t.step == *cx.step &&
        ((t.from == *cx.rank && t.to == *cx.peer) || (t.from == *cx.peer && t.to == *cx.rank))) {
      t.offending = true;
      marked = true;
    }
  if (!marked && cx.rank && cx.peer) {
    std::string label = cx.block ? "block " + std::to_string(*cx.block) : "(counterexample)";
    excerpt.push_back({cx.step ? *cx.step : first, *cx.rank, *cx.peer, label, true});
    marked = true;
  }
  // Keep transfers whose both ends are shown; add rows for the offending one.
  for (const DiagramTransfer& t : excerpt)
    if (t.offending) add(t.from), add(t.to);
  std::vector<DiagramTransfer> shown;
  for (const DiagramTransfer& t : excerpt)
    if (rows.count(t.from) && rows.count(t.to) && t.step >= first && t.step <= last) shown.push_back(t);
  std::stable_sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) { return !a.offending && b.offending; });

  const std::vector<uint64_t> row_list(rows.begin(), rows.end());
  std::map<uint64_t, int> row_of;
  for (size_t i = 0; i < row_list.size(); ++i) row_of[row_list[i]] = static_cast<int>(i);
  constexpr int kLeft = 80, kCol = 110, kRow = 28, kTop = 34;
  const int cols = last - first + 1;
  const int width = kLeft + kCol * cols + 20, height = kTop + kRow * static_cast<int>(row_list.size()) + 24;
  auto Y = [&](uint64_t r) { return kTop + kRow * row_of[r] + kRow / 2; };
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cx-diagram\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"counterexample at "
    << esc(cx.location()) << ": ranks as rows, steps as columns\">\n";
  o << "<defs><marker id=\"" << arrow << "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
       "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head\"/></marker>"
       "<marker id=\"" << bad << "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
       "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head-bad\"/></marker></defs>\n";
  for (int c = 0; c < cols; ++c) {
    const int x = kLeft + kCol * c;
    o << "<rect class=\"col\" x=\"" << x << "\" y=\"" << kTop - 4 << "\" width=\"" << kCol - 6 << "\" height=\""
      << kRow * static_cast<int>(row_list.size()) + 8 << "\"/>";
    o << "<text x=\"" << x + (kCol - 6) / 2 << "\" y=\"" << kTop - 10 << "\" text-anchor=\"middle\">"
      << (cx.step ? "step " + std::to_string(first + c) : std::string("end")) << "</text>\n";
  }
  uint64_t prev = UINT64_MAX;
  for (uint64_t r : row_list) {
    const bool gap = prev != UINT64_MAX && r != prev + 1;
    o << "<text x=\"" << kLeft - 10 << "\" y=\"" << Y(r) + 4 << "\" text-anchor=\"end\" class=\"rank"
      << (cx.rank && *cx.rank == r ? " cx-rank" : "") << "\">" << (gap ? "… " : "") << "rank " << r << "</text>";
    o << "<line class=\"lane\" x1=\"" << kLeft << "\" y1=\"" << Y(r) << "\" x2=\"" << kLeft + kCol * cols - 6
      << "\" y2=\"" << Y(r) << "\"/>\n";
    prev = r;
  }
  for (const DiagramTransfer& t : shown) {
    const int x = kLeft + kCol * (t.step - first);
    const int y1 = Y(t.from), y2 = Y(t.to);
    const bool up = y2 < y1;
    o << "<g class=\"transfer" << (t.offending ? " offending" : "") << "\"><title>step " << t.step << ": rank " << t.from
      << " → rank " << t.to << " " << esc(t.label) << (t.offending ? " (offending transfer)" : "") << "</title>";
    o << "<line x1=\"" << x + 16 << "\" y1=\"" << y1 << "\" x2=\"" << x + kCol - 26 << "\" y2=\"" << y2
      << "\" marker-end=\"url(#" << (t.offending ? bad : arrow) << ")\"/>";
    if (t.offending || shown.size() <= 24)
      o << "<text x=\"" << x + kCol / 2 - 4 << "\" y=\"" << (y1 + y2) / 2 + (up ? -4 : 12) << "\" text-anchor=\"middle\""
        << " class=\"label\">" << esc(t.label) << "</text>";
    o << "</g>\n";
  }
  if (!marked && cx.rank && rows.count(*cx.rank)) {
    const int x = kLeft + kCol * ((cx.step ? *cx.step : first) - first) + (kCol - 6) / 2;
    o << "<g class=\"offending\"><title>" << esc(cx.location()) << "</title><circle cx=\"" << x << "\" cy=\""
      << Y(*cx.rank) << "\" r=\"11\"/><text x=\"" << x + 16 << "\" y=\"" << Y(*cx.rank) + 4 << "\" class=\"label\">"
      << (cx.block ? "block " + std::to_string(*cx.block) : std::string("here")) << "</text></g>\n";
  }
  o << "</svg>\n";
}

}  // namespace collcheck::reports_detail
