#include "checker/cli/analyze.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/p_range.hpp"
#include "collcheck_version.hpp"
#include "properties/tra/alltoall_delivery.hpp"
#include "properties/tra/tra_formulas.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"

namespace po = boost::program_options;

namespace collcheck {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string num(double v) { return fmt("%.4g", v); }
std::string exact(double v) { return fmt("%.9g", v); }

uint64_t ceil_sqrt(uint64_t x) {
  uint64_t s = static_cast<uint64_t>(std::sqrt(static_cast<long double>(x)));
  while (s * s < x) ++s;
  while (s > 0 && (s - 1) * (s - 1) >= x) --s;
  return s;
}

void fill_formulas(RadixRow& row, uint64_t p, bool literal_sum) {
  const uint64_t r = row.r;
  row.w = a2a::digits(p, r);
  if (auto k = a2a::prop1_K(p, r)) {
    row.K_prop = k;
    row.K_source = "Prop. 1";
  } else if (auto k3 = a2a::prop3_K(p, r)) {
    row.K_prop = k3;
    row.K_source = "Prop. 3";
  } else {
    row.K_source = "none (r = P: Prop. 1 needs r < P)";
  }
  if (auto d = a2a::prop2_D(p, r)) {
    row.D_prop = d;
    row.D_source = "Prop. 2";
  } else if (literal_sum) {
    row.D_prop = a2a::prop4_D(p, r);
    row.D_source = "Prop. 4";
  } else {
    row.D_prop = a2a::prop4_D_fast(p, r);
    row.D_source = "Prop. 4 (sum over z in closed form)";
  }
}

void measure(RadixRow& row, uint64_t p) {
  const a2a::Totals t = a2a::count_totals(p, row.r);
  row.K = t.K;
  row.D = t.D;
  row.measured = true;
}

// The radices a table shows: all for small P, else a sample with the
// optimum and the sqrt(P) rows.
std::vector<uint64_t> table_radices(const Analysis& a, uint64_t all_up_to) {
  std::set<uint64_t> s;
  const uint64_t P = a.p;
  if (P <= all_up_to) {
    for (uint64_t r = 2; r <= P; ++r) s.insert(r);
  } else {
    for (uint64_t r = 2; r <= std::min<uint64_t>(8, P); ++r) s.insert(r);
    for (uint64_t r = 16; r <= P; r *= 2) s.insert(r);
    for (int k = 0; k <= 24; ++k) {
      const double r = 2.0 * std::pow(static_cast<double>(P) / 2.0, k / 24.0);
      s.insert(std::clamp<uint64_t>(static_cast<uint64_t>(std::llround(r)), 2, P));
    }
    for (uint64_t r : {a.sqrt_floor, a.sqrt_ceil, a.optimum, P - 1, P})
      if (r >= 2 && r <= P) s.insert(r);
  }
  return {s.begin(), s.end()};
}

void add_statement(Analysis& a, std::string statement, bool holds, std::string detail) {
  a.statements.push_back({std::move(statement), holds, std::move(detail)});
}

void paper_statements(Analysis& a) {
  const uint64_t P = a.p;
  // Trend (Sec. III-B: "when radix increases, K exhibits an increasing trend, and D exhibits a decreasing trend").
  uint64_t k_down = 0, d_up = 0, first_k = 0, first_d = 0;
  for (uint64_t r = 3; r <= P; ++r) {
    if (a.row(r).K < a.row(r - 1).K && !k_down++) first_k = r;
    if (a.row(r).D > a.row(r - 1).D && !d_up++) first_d = r;
  }
  add_statement(a, "Sec. III-B: as r increases K increases and D decreases", k_down == 0 && d_up == 0,
                k_down + d_up == 0 ? "K never decreases and D never increases from r to r+1"
                                   : "K decreases at " + std::to_string(k_down) + " radices (first r = " +
                                         std::to_string(first_k) + "), D increases at " + std::to_string(d_up) +
                                         " (first r = " + std::to_string(first_d) + ")");
  // r = 2: smallest K (log2 P), largest D (w 2^(w-1)).
  uint64_t min_k = UINT64_MAX, max_d = 0;
  for (const RadixRow& row : a.rows) {
    min_k = std::min(min_k, row.K);
    max_d = std::max(max_d, row.D);
  }
  const int w2 = a2a::digits(P, 2);
  add_statement(a, "Sec. III-B: r = 2 has the smallest K, log2 P", a.row(2).K == min_k && a.row(2).K == uint64_t(w2),
                "K(2) = " + std::to_string(a.row(2).K) + ", ceil(log2 P) = " + std::to_string(w2) +
                    ", smallest K over all r = " + std::to_string(min_k));
  const uint64_t wd = static_cast<uint64_t>(w2) << (w2 - 1);
  add_statement(a, "Sec. III-B: r = 2 has the largest D", a.row(2).D == max_d,
                "D(2) = " + std::to_string(a.row(2).D) + ", largest D over all r = " + std::to_string(max_d));
  add_statement(a, "Sec. III-B: D at r = 2 is w 2^(w-1) (w = ceil(log2 P))", a.row(2).D == wd,
                "D(2) = " + std::to_string(a.row(2).D) + ", w 2^(w-1) = " + std::to_string(wd) +
                    (a.row(2).D != wd ? " (Prop. 2's value; for P < 2^w Prop. 4 gives less)" : ""));
  // Beyond sqrt(P): "decreasing at max by 1 with every increasing value of r".
  uint64_t dk = 0, dd = 0;
  for (uint64_t r = std::max<uint64_t>(a.sqrt_ceil, 2); r < P; ++r) {
    const RadixRow &u = a.row(r), &v = a.row(r + 1);
    dk = std::max(dk, u.K > v.K ? u.K - v.K : v.K - u.K);
    dd = std::max(dd, u.D > v.D ? u.D - v.D : v.D - u.D);
  }
  add_statement(a, "Sec. III-B: from r = sqrt(P) on, K and D change by at most 1 per radix step", dk <= 1 && dd <= 1,
                "largest |K(r+1) - K(r)| = " + std::to_string(dk) + ", |D(r+1) - D(r)| = " + std::to_string(dd) +
                    " for r >= " + std::to_string(a.sqrt_ceil));
  if (a.sqrt_floor == a.sqrt_ceil && a.sqrt_ceil >= 2) {
    const uint64_t s = a.sqrt_ceil;
    add_statement(a, "Sec. III-B: at r = sqrt(P), K = w(r-1) = 2 sqrt(P) - 2", a.row(s).K == 2 * s - 2,
                  "K(" + std::to_string(s) + ") = " + std::to_string(a.row(s).K) + ", 2 sqrt(P) - 2 = " +
                      std::to_string(2 * s - 2));
  }
  add_statement(a, "Sec. III-B: at r = P, K = P (\"K (= 16,384) at r = P\" for P = 16,384)", a.row(P).K == P,
                "K(P) = " + std::to_string(a.row(P).K) + " (P - 1 rounds, one per peer; Prop. 1's w(r-1) at r = P)");
  if (P >= 3)
    add_statement(a, "Sec. III-B: r = P - 1 has the largest K, <= P - 1",
                  a.row(P - 1).K <= P - 1 && [&] {
                    for (const RadixRow& row : a.rows)
                      if (row.K > a.row(P - 1).K) return false;
                    return true;
                  }(),
                  "K(P-1) = " + std::to_string(a.row(P - 1).K));
  if (P == 16384) {
    add_statement(a, "Sec. III-B: K = 254 at r = sqrt(P) = 128", a.row(128).K == 254,
                  "K(128) = " + std::to_string(a.row(128).K));
    add_statement(a, "Sec. III-B: D = 32,512 at r = sqrt(P) = 128", a.row(128).D == 32512,
                  "D(128) = " + std::to_string(a.row(128).D));
    add_statement(a, "Sec. III-B: D = 114,688 at r = 2", a.row(2).D == 114688, "D(2) = " + std::to_string(a.row(2).D));
  }
}

}  // namespace

Analysis analyze_tra(uint64_t p, double alpha, double beta, double block_bytes) {
  if (p < 2 || p > kAnalyzeMaxP)
    throw InputError("analyze: --p must be in 2..2^20 (" + std::to_string(kAnalyzeMaxP) + "), not " +
                     std::to_string(p));
  for (double v : {alpha, beta, block_bytes})
    if (!std::isfinite(v) || v < 0) throw InputError("analyze: alpha, beta and the block size must be finite and >= 0");
  Analysis a;
  a.p = p;
  a.alpha = alpha;
  a.beta = beta;
  a.block_bytes = block_bytes;
  a.sqrt_p = std::sqrt(static_cast<double>(p));
  a.sqrt_ceil = ceil_sqrt(p);
  a.sqrt_floor = a.sqrt_ceil * a.sqrt_ceil > p ? a.sqrt_ceil - 1 : a.sqrt_ceil;
  a.rows.resize(p - 1);
  const bool all = p <= kMeasureAllMaxP;
  a.all_measured = all;
  tbb::parallel_for(tbb::blocked_range<uint64_t>(2, p + 1, 16), [&](const tbb::blocked_range<uint64_t>& range) {
    for (uint64_t r = range.begin(); r != range.end(); ++r) {
      RadixRow& row = a.rows[r - 2];
      row.r = r;
      fill_formulas(row, p, all);
      if (all) {
        measure(row, p);
      } else {  // the propositions until measured below (r = P has no K proposition: P - 1 rounds, measured below)
        row.K = row.K_prop.value_or(p - 1);
        row.D = row.D_prop.value_or(0);
      }
    }
  });
  // A cost that overflows (alpha = 1e308: inf, and inf/inf a NaN ratio) has
  // no optimum and no chart: refused, as is a model where every radix costs 0.
  auto cost = [&](RadixRow& row) {
    row.cost = alpha * static_cast<double>(row.K) + beta * static_cast<double>(row.D) * block_bytes;
    if (!std::isfinite(row.cost))
      throw InputError("analyze: the cost alpha*K + beta*D*S is not a finite number at r = " + std::to_string(row.r) +
                       " (alpha = " + num(alpha) + ", beta = " + num(beta) + ", S = " + num(block_bytes) +
                       "): choose smaller values");
  };
  auto optimum = [&] {
    uint64_t best = 2;
    for (RadixRow& row : a.rows) {
      cost(row);
      if (row.cost < a.row(best).cost) best = row.r;
    }
    return best;
  };
  a.optimum = optimum();
  if (!all) {
    // Measure what is shown and the optimum; repeat while the optimum moves to an unmeasured radix.
    std::vector<uint64_t> todo = table_radices(a, 0);
    for (uint64_t r = 2; r <= std::min<uint64_t>(64, p); ++r) todo.push_back(r);
    for (int guard = 0; guard < 8; ++guard) {
      for (int64_t d = -3; d <= 3; ++d) {
        const int64_t r = static_cast<int64_t>(a.optimum) + d;
        if (r >= 2 && r <= static_cast<int64_t>(p)) todo.push_back(static_cast<uint64_t>(r));
      }
      tbb::parallel_for(size_t{0}, todo.size(), [&](size_t i) {
        RadixRow& row = a.rows[todo[i] - 2];
        if (!row.measured) measure(row, p);
      });
      todo.clear();
      a.optimum = optimum();
      if (a.row(a.optimum).measured) break;
    }
  }
  for (RadixRow& row : a.rows) cost(row);
  if (std::all_of(a.rows.begin(), a.rows.end(), [](const RadixRow& row) { return row.cost == 0; }))
    throw InputError("analyze: every radix costs 0 (alpha = " + num(alpha) + ", beta*S = " + num(beta * block_bytes) +
                     "), so none is optimal: give alpha > 0 or beta * block bytes > 0");
  const double sc = a.row(a.sqrt_ceil).cost;
  a.sqrt_cost_rank = 1;
  for (const RadixRow& row : a.rows) a.sqrt_cost_rank += row.cost < sc;
  uint64_t n_dis = 0;
  for (const RadixRow& row : a.rows) {
    if (!row.measured) continue;
    auto note = [&](const char* what, uint64_t m, const std::optional<uint64_t>& f, const std::string& src) {
      if (!f || *f == m) return;
      if (++n_dis <= 50)
        a.disagreements.push_back("r = " + std::to_string(row.r) + ": " + what + " measured " + std::to_string(m) +
                                  ", " + src + " " + std::to_string(*f));
    };
    note("K", row.K, row.K_prop, row.K_source);
    note("D", row.D, row.D_prop, row.D_source);
  }
  if (n_dis > 50) a.disagreements.push_back("... " + std::to_string(n_dis - 50) + " more");
  paper_statements(a);
  return a;
}

// ---- text ---------------------------------------------------------------

namespace {

std::string header_lines(const Analysis& a) {
  std::ostringstream o;
  o << "cost model: alpha*K + beta*D*S with alpha = " << num(a.alpha) << " s, beta = " << num(a.beta)
    << " s/byte, S = " << num(a.block_bytes) << " bytes\n";
  o << "K, D: measured = counted from the blocks every round (x, z) sends, "
    << (a.all_measured ? "for every radix" : "for the radices shown, the optimum and r <= 64 (others: the propositions)")
    << "; Prop. = Propositions 1-4 as printed (1, 2: P = r^w; 3, 4: P < r^w)\n";
  const RadixRow& o_row = a.row(a.optimum);
  o << "optimum: r = " << a.optimum << " (K = " << o_row.K << ", D = " << o_row.D << ", cost " << num(o_row.cost)
    << " s)\n";
  const RadixRow& s_row = a.row(a.sqrt_ceil);
  o << "sqrt(P) = " << fmt("%.3f", a.sqrt_p) << ": r = " << a.sqrt_ceil
    << (a.sqrt_floor != a.sqrt_ceil ? " (ceil; floor " + std::to_string(a.sqrt_floor) + ")" : "") << " has K = "
    << s_row.K << ", D = " << s_row.D << ", cost " << num(s_row.cost) << " s = "
    << fmt("%.3f", o_row.cost > 0 ? s_row.cost / o_row.cost : 1.0) << " x the optimum (rank " << a.sqrt_cost_rank
    << " of " << a.rows.size() << " radices by cost)\n";
  return o.str();
}

std::string prop_cell(const std::optional<uint64_t>& v, const std::string& src) {
  if (!v) return "-";
  return std::to_string(*v) + " (" + src.substr(6, 1) + ")";  // "Prop. 1" -> "(1)"
}

}  // namespace

std::string analysis_text(const Analysis& a) {
  std::ostringstream o;
  o << "collcheck analyze: TRA (Fan et al., Sec. III), P = " << a.p << ", radices 2.." << a.p << "\n";
  o << header_lines(a);
  const std::vector<uint64_t> shown = table_radices(a, 64);
  if (shown.size() < a.rows.size())
    o << "table: " << shown.size() << " of " << a.rows.size() << " radices (use --format json for every radix)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%8s %3s %9s %13s %10s %14s %11s  %s\n", "r", "w", "K", "K Prop.", "D", "D Prop.",
                "cost [s]", "");
  o << line;
  for (uint64_t r : shown) {
    const RadixRow& row = a.row(r);
    std::string mark;
    if (r == a.sqrt_floor || r == a.sqrt_ceil) mark += " <- sqrt(P)";
    if (r == a.optimum) mark += " <- optimum";
    if (!row.measured) mark += " (Prop. values, not measured)";
    std::snprintf(line, sizeof line, "%8llu %3d %9llu %13s %10llu %14s %11s %s\n", static_cast<unsigned long long>(r),
                  row.w, static_cast<unsigned long long>(row.K), prop_cell(row.K_prop, row.K_source).c_str(),
                  static_cast<unsigned long long>(row.D), prop_cell(row.D_prop, row.D_source).c_str(),
                  num(row.cost).c_str(), mark.c_str());
    o << line;
  }
  o << "paper statements (Sec. III-B) at P = " << a.p << ":\n";
  for (const PaperStatement& s : a.statements)
    o << "  [" << (s.holds ? "holds" : "differs") << "] " << s.statement << ": " << s.detail << "\n";
  o << "measured vs propositions: "
    << (a.disagreements.empty() ? std::string("no disagreement") : std::to_string(a.disagreements.size()) + " disagreements")
    << "\n";
  for (const std::string& d : a.disagreements) o << "  " << d << "\n";
  return o.str();
}

// ---- JSON ---------------------------------------------------------------

namespace {

std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* hex = "0123456789abcdef";
      o += "\\u00";
      o += hex[(c >> 4) & 15];
      o += hex[c & 15];
    }
    else o += c;
  }
  return o + "\"";
}
std::string jopt(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "null"; }

}  // namespace

std::string analysis_json(const Analysis& a, const std::string& command) {
  std::string o;
  o.reserve(a.rows.size() * 160 + 4096);
  auto row_json = [&](const RadixRow& row) {
    return "{\"r\": " + std::to_string(row.r) + ", \"w\": " + std::to_string(row.w) + ", \"K\": " +
           std::to_string(row.K) + ", \"D\": " + std::to_string(row.D) +
           ", \"measured\": " + (row.measured ? "true" : "false") + ", \"K_prop\": " + jopt(row.K_prop) +
           ", \"K_prop_source\": " + jstr(row.K_source) + ", \"D_prop\": " + jopt(row.D_prop) +
           ", \"D_prop_source\": " + jstr(row.D_source) + ", \"cost_seconds\": " + exact(row.cost) + "}";
  };
  o += "{\n  \"tool_version\": " + jstr(COLLCHECK_VERSION) + ",\n  \"command\": " + jstr(command) +
       ",\n  \"algorithm\": \"tra\",\n  \"p\": " + std::to_string(a.p) + ",\n  \"alpha_seconds\": " + exact(a.alpha) +
       ",\n  \"beta_seconds_per_byte\": " + exact(a.beta) + ",\n  \"block_bytes\": " + exact(a.block_bytes) +
       ",\n  \"cost_formula\": \"alpha*K + beta*D*S\",\n  \"all_measured\": " + (a.all_measured ? "true" : "false") +
       ",\n  \"sqrt_p\": " + exact(a.sqrt_p) + ",\n  \"sqrt_floor\": " + std::to_string(a.sqrt_floor) +
       ",\n  \"sqrt_ceil\": " + std::to_string(a.sqrt_ceil) + ",\n  \"sqrt_cost_rank\": " +
       std::to_string(a.sqrt_cost_rank) + ",\n  \"optimum\": " + row_json(a.row(a.optimum)) +
       ",\n  \"sqrt_rows\": [" + row_json(a.row(a.sqrt_floor < 2 ? 2 : a.sqrt_floor)) +
       (a.sqrt_ceil != a.sqrt_floor ? ", " + row_json(a.row(a.sqrt_ceil)) : "") + "],\n  \"paper_statements\": [";
  for (size_t i = 0; i < a.statements.size(); ++i)
    o += std::string(i ? "," : "") + "\n    {\"statement\": " + jstr(a.statements[i].statement) +
         ", \"holds\": " + (a.statements[i].holds ? "true" : "false") + ", \"detail\": " + jstr(a.statements[i].detail) +
         "}";
  o += "\n  ],\n  \"disagreements\": [";
  for (size_t i = 0; i < a.disagreements.size(); ++i) o += (i ? ", " : "") + jstr(a.disagreements[i]);
  o += "],\n  \"radices\": [";
  for (size_t i = 0; i < a.rows.size(); ++i) o += std::string(i ? ",\n    " : "\n    ") + row_json(a.rows[i]);
  o += "\n  ]\n}\n";
  return o;
}

// ---- HTML ---------------------------------------------------------------

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

struct Series {
  std::string name, color;
  std::vector<std::pair<uint64_t, double>> points;  // (r, value > 0)
};

// A log-log chart of value against r, with vertical markers.
std::string chart(const Analysis& a, const std::vector<Series>& series, const std::string& title,
                  const std::string& y_label) {
  constexpr double W = 860, H = 420, L = 80, R = 170, T = 30, B = 50;
  const double pw = W - L - R, ph = H - T - B;
  const double x0 = std::log(2.0), x1 = std::log(std::max<double>(3.0, static_cast<double>(a.p)));
  double vmin = 1e300, vmax = 0;
  for (const Series& s : series)
    for (const auto& [r, v] : s.points)
      if (v > 0 && std::isfinite(v)) vmin = std::min(vmin, v), vmax = std::max(vmax, v);
  if (vmax <= 0) vmin = 1, vmax = 10;
  const double y0 = std::floor(std::log10(vmin)), y1 = std::max(y0 + 1, std::ceil(std::log10(vmax)));
  auto X = [&](double r) { return L + (std::log(r) - x0) / (x1 - x0) * pw; };
  auto Y = [&](double v) { return T + ph - (std::log10(v) - y0) / (y1 - y0) * ph; };
  auto f1 = [](double v) { return fmt("%.1f", v); };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" role=\"img\" aria-label=\"" << esc(title) << "\">\n";
  o << "<title>" << esc(title) << "</title>\n";
  o << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#8c959f\"/>\n";
  for (double e = y0; e <= y1; ++e) {  // horizontal grid at powers of 10
    const double y = Y(std::pow(10.0, e));
    o << "<line x1=\"" << L << "\" y1=\"" << f1(y) << "\" x2=\"" << L + pw << "\" y2=\"" << f1(y)
      << "\" stroke=\"#eaeef2\"/><text x=\"" << L - 6 << "\" y=\"" << f1(y + 4) << "\" text-anchor=\"end\">1e"
      << static_cast<int>(e) << "</text>\n";
  }
  for (uint64_t r = 2; r <= a.p; r *= 2) {  // vertical grid at powers of 2
    const double x = X(static_cast<double>(r));
    o << "<line x1=\"" << f1(x) << "\" y1=\"" << T << "\" x2=\"" << f1(x) << "\" y2=\"" << T + ph
      << "\" stroke=\"#eaeef2\"/><text x=\"" << f1(x) << "\" y=\"" << T + ph + 16 << "\" text-anchor=\"middle\">" << r
      << "</text>\n";
    if (r > a.p / 2) break;
  }
  o << "<text x=\"" << L + pw / 2 << "\" y=\"" << H - 10 << "\" text-anchor=\"middle\">radix r (log scale)</text>\n";
  o << "<text x=\"16\" y=\"" << T + ph / 2 << "\" transform=\"rotate(-90 16 " << T + ph / 2
    << ")\" text-anchor=\"middle\">" << esc(y_label) << "</text>\n";
  int legend = 0;
  for (const Series& s : series) {
    o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.8\" points=\"";
    double last_x = -1;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const auto& [r, v] = s.points[i];
      if (!(v > 0 && std::isfinite(v))) continue;  // log scale; a non-finite value would stretch the axis forever
      const double x = X(static_cast<double>(r));
      if (x - last_x < 0.5 && i + 1 < s.points.size()) continue;  // one point per half pixel
      last_x = x;
      o << f1(x) << "," << f1(Y(v)) << " ";
    }
    o << "\"><title>" << esc(s.name) << "</title></polyline>\n";
    o << "<line x1=\"" << L + pw + 12 << "\" y1=\"" << T + 10 + 20 * legend << "\" x2=\"" << L + pw + 36 << "\" y2=\""
      << T + 10 + 20 * legend << "\" stroke=\"" << s.color << "\" stroke-width=\"3\"/><text x=\"" << L + pw + 42
      << "\" y=\"" << T + 14 + 20 * legend << "\">" << esc(s.name) << "</text>\n";
    ++legend;
  }
  auto marker = [&](uint64_t r, const std::string& color, const std::string& label, int slot) {
    const double x = X(static_cast<double>(r));
    o << "<line x1=\"" << f1(x) << "\" y1=\"" << T << "\" x2=\"" << f1(x) << "\" y2=\"" << T + ph << "\" stroke=\""
      << color << "\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"><title>" << esc(label) << "</title></line>\n";
    for (const Series& s : series)
      for (const auto& [rr, v] : s.points)
        if (rr == r && v > 0 && std::isfinite(v))
          o << "<circle cx=\"" << f1(x) << "\" cy=\"" << f1(Y(v)) << "\" r=\"5\" fill=\"none\" stroke=\"" << color
            << "\" stroke-width=\"2\"/>\n";
    o << "<text x=\"" << f1(x + 4) << "\" y=\"" << T + 14 + 14 * slot << "\" fill=\"" << color << "\">" << esc(label)
      << "</text>\n";
  };
  marker(a.sqrt_ceil, "#1a7f37", "sqrt(P) (r = " + std::to_string(a.sqrt_ceil) + ")", 0);
  marker(a.optimum, "#cf222e", "optimum (r = " + std::to_string(a.optimum) + ")", 1);
  o << "</svg>\n";
  return o.str();
}

}  // namespace

std::string analysis_html(const Analysis& a, const std::string& command) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>collcheck analyze: TRA, P = "
    << a.p << "</title>\n<style>\n"
    << "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:72em;padding:0 1em;"
       "color:#1f2328}\ntable{border-collapse:collapse;margin:1em 0}\nth,td{border:1px solid #d0d7de;padding:.3em .7em;"
       "text-align:right}\nth{background:#f6f8fa}\ntd.l{text-align:left}\ntr.sqrt td{background:#dafbe1}\n"
       "tr.opt td{background:#ffebe9}\ncode{font-family:ui-monospace,Menlo,monospace;font-size:90%}\n"
       ".holds{color:#1a7f37}\n.differs{color:#cf222e;font-weight:bold}\n"
       "svg text{font-family:ui-monospace,Menlo,monospace;font-size:12px;fill:#1f2328}\n"
    << "</style>\n</head>\n<body>\n";
  o << "<h1>TRA: K and D against the radix, P = " << a.p << "</h1>\n";
  o << "<p>Tunable-radix all-to-all (Fan et al., <i>Configurable Algorithms for All-to-all Collectives</i>, Sec. III; "
       "the paper's Fig. 4). Command: <code>"
    << esc(command) << "</code> (collcheck " << esc(COLLCHECK_VERSION) << ").</p>\n<pre>" << esc(header_lines(a))
    << "</pre>\n";
  std::vector<Series> kd = {{"K (rounds)", "#e8710a", {}}, {"D (blocks)", "#0969da", {}}};
  std::vector<Series> cs = {{"cost [s]", "#6639ba", {}}};
  for (const RadixRow& row : a.rows) {
    kd[0].points.push_back({row.r, static_cast<double>(row.K)});
    kd[1].points.push_back({row.r, static_cast<double>(row.D)});
    cs[0].points.push_back({row.r, row.cost});
  }
  o << "<h2>K and D</h2>\n" << chart(a, kd, "K and D against r, P = " + std::to_string(a.p), "rounds K, blocks D");
  o << "<h2>Cost alpha*K + beta*D*S</h2>\n" << chart(a, cs, "cost against r", "seconds");
  o << "<h2>Radices</h2>\n<table>\n<tr><th>r</th><th>w</th><th>K</th><th>K (Prop.)</th><th>D</th><th>D (Prop.)</th>"
       "<th>cost [s]</th><th>note</th></tr>\n";
  for (uint64_t r : table_radices(a, 256)) {
    const RadixRow& row = a.row(r);
    std::string note, cls;
    if (r == a.sqrt_floor || r == a.sqrt_ceil) note += "sqrt(P) ", cls = "sqrt";
    if (r == a.optimum) note += "optimum ", cls = "opt";
    if (!row.measured) note += "Prop. values (not measured)";
    o << "<tr" << (cls.empty() ? "" : " class=\"" + cls + "\"") << "><td>" << r << "</td><td>" << row.w << "</td><td>"
      << row.K << "</td><td>" << esc(prop_cell(row.K_prop, row.K_source)) << "</td><td>" << row.D << "</td><td>"
      << esc(prop_cell(row.D_prop, row.D_source)) << "</td><td>" << num(row.cost) << "</td><td class=\"l\">"
      << esc(note) << "</td></tr>\n";
  }
  o << "</table>\n<h2>Sec. III-B's statements at this P</h2>\n<ul>\n";
  for (const PaperStatement& s : a.statements)
    o << "<li><span class=\"" << (s.holds ? "holds" : "differs") << "\">" << (s.holds ? "holds" : "differs")
      << "</span> " << esc(s.statement) << ": " << esc(s.detail) << "</li>\n";
  o << "</ul>\n<h2>Measured against the propositions</h2>\n";
  if (a.disagreements.empty()) {
    o << "<p>No disagreement.</p>\n";
  } else {
    o << "<ul>\n";
    for (const std::string& d : a.disagreements) o << "<li>" << esc(d) << "</li>\n";
    o << "</ul>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

// ---- CLI ----------------------------------------------------------------

namespace {

double parse_nonneg(const std::string& name, const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (text.empty() || end != s + text.size() || !std::isfinite(v) || v < 0)
    throw InputError("--" + name + " must be a finite number >= 0, not '" + text + "'");
  return v;
}

}  // namespace

int cmd_analyze(const std::vector<std::string>& args, const Invocation& inv) {
  po::options_description desc(
      "collcheck analyze: K and D of the tunable-radix all-to-all for every radix r = 2..P, the paper's "
      "Propositions 1-4 next to them, the cost alpha*K + beta*D*S, its minimising radix and where sqrt(P) "
      "falls (Fan et al. Sec. III-A/B, Fig. 4).\nK and D are measured: counted from the blocks each round (x, z) "
      "sends (every radix for P <= 65536; above, the radices shown, the optimum and r <= 64, the rest from the "
      "propositions); 'Prop.' columns are the closed formulas as printed.\noptions");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm: tra")
      ("p", po::value<std::string>(), "process count P, 2..2^20 (e.g. 16384 or 2^14)")
      ("alpha", po::value<std::string>()->default_value("2e-6"), "latency per round, seconds (default 2e-6 s)")
      ("beta", po::value<std::string>()->default_value("1e-10"), "time per byte, seconds (default 1e-10 s/byte)")
      ("block-bytes", po::value<std::string>()->default_value("1024"), "block size S in bytes (default 1024)")
      ("format", po::value<std::string>()->default_value("text"), "text | json | html")
      ("out", po::value<std::string>()->default_value("-"), "output file ('-' = stdout)");
  auto vm = parse_args(desc, args);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (!vm.count("algo")) throw InputError("analyze needs --algo tra");
  const std::string algo = vm["algo"].as<std::string>();
  if (algo != "tra") throw InputError("analyze: unknown algorithm '" + algo + "' (known: tra)");
  if (!vm.count("p")) throw InputError("analyze needs --p P");
  const std::vector<uint64_t> ps = parse_p_range(vm["p"].as<std::string>());
  if (ps.size() != 1) throw InputError("analyze: --p must be one value, not '" + vm["p"].as<std::string>() + "'");
  const std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "json" && format != "html")
    throw InputError("analyze: unknown format '" + format + "' (known: text, json, html)");
  const double alpha = parse_nonneg("alpha", vm["alpha"].as<std::string>());
  const double beta = parse_nonneg("beta", vm["beta"].as<std::string>());
  const double bytes = parse_nonneg("block-bytes", vm["block-bytes"].as<std::string>());
  const Analysis a = analyze_tra(ps.front(), alpha, beta, bytes);
  const std::string text = format == "json"   ? analysis_json(a, inv.cmdline)
                           : format == "html" ? analysis_html(a, inv.cmdline)
                                              : analysis_text(a);
  write_output(vm["out"].as<std::string>(), text);
  return 0;
}

}  // namespace collcheck
