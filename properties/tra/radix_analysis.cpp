// TRA's K, D and cost for every radix (see radix_analysis.hpp): the
// numbers and Sec. III-B's statements checked on them; rendered by
// reports/tra/radix_analysis_report.hpp.
#include "properties/tra/radix_analysis.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "properties/tra/alltoall_delivery.hpp"
#include "properties/tra/tra_formulas.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/int_math.hpp"

namespace collcheck {
namespace {

// A number in an error message (as the reports print the model's values).
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
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

InputError every_radix_costs_zero(double alpha, double beta, double block_bytes) {
  return InputError("analyze: every radix costs 0 (alpha = " + num(alpha) + ", beta*S = " + num(beta * block_bytes) +
                    "), so none is optimal: give alpha > 0 or beta * block bytes > 0");
}

}  // namespace

MemoryEstimate tra_analysis_memory(uint64_t p, const std::string& format) {
  // Measured at P = 2^20 (peak RSS less the process): 191 bytes per radix
  // with text output, 234 with html, 511 with json; with some margin.
  const uint64_t row = sizeof(RadixRow) + 96;
  const uint64_t rendered = format == "json" ? 512 : format == "html" ? 96 : 0;
  MemoryEstimate m;
  const uint64_t rows = p * row, out = p * rendered, process = uint64_t{32} << 20;
  m.bytes = rows + out + process;
  m.how = "analyze --algo tra --p " + std::to_string(p) + ": " + std::to_string(p - 1) + " radix rows " + gib(rows) +
          (out ? ", " + format + " output " + gib(out) : std::string()) + ", process 0.0312 GiB";
  return m;
}

bool Analysis::holds() const {
  return disagreements.empty() &&
         std::all_of(statements.begin(), statements.end(), [](const PaperStatement& s) { return s.holds; });
}

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

void check_tra_analysis(uint64_t p, double alpha, double beta, double block_bytes) {
  if (p < 2 || p > kAnalyzeMaxP)
    throw InputError("analyze: --p must be in 2..2^20 (" + std::to_string(kAnalyzeMaxP) + "), not " +
                     std::to_string(p));
  for (double v : {alpha, beta, block_bytes})
    if (!std::isfinite(v) || v < 0) throw InputError("analyze: alpha, beta and the block size must be finite and >= 0");
  // K >= 1 and D >= 1 at every radix: every cost is 0 exactly when both terms
  // are (a product that underflows to 0 is found on the rows, below).
  if (alpha == 0 && (beta == 0 || block_bytes == 0)) throw every_radix_costs_zero(alpha, beta, block_bytes);
}

Analysis analyze_tra(uint64_t p, double alpha, double beta, double block_bytes) {
  check_tra_analysis(p, alpha, beta, block_bytes);
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
    throw every_radix_costs_zero(alpha, beta, block_bytes);
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

}  // namespace collcheck
