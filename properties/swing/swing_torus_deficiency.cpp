#include "properties/swing/swing_torus_deficiency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "properties/catalog.hpp"

namespace collcheck {

namespace {

std::string fixed(double x, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

TorusDeficiencies measure_torus_deficiencies(const Schedule& s, const SwingTorus& t) {
  const std::vector<uint32_t>& dims = t.dims();
  const int D = static_cast<int>(dims.size());
  const uint64_t p = s.p();
  const std::vector<uint64_t> stride = torus_strides(dims);
  // links[(node * D + d) * 2 + (dir > 0)]: load on the link leaving node along
  // d; sent[node]: what the node sends in the step.
  std::vector<double> links(p * D * 2), sent(p);
  double sum_p = 0, sum_l = 0;
  RankStep rs;
  for (int step = 0; step < s.num_steps(); ++step) {
    std::fill(links.begin(), links.end(), 0.0);
    std::fill(sent.begin(), sent.end(), 0.0);
    const int j = t.plan_index(step);
    for (Rank r = 0; r < p; ++r) {
      s.rank_step(r, step, rs);
      for (size_t i = 0; i < rs.sends.size(); ++i) {
        const Transfer& x = rs.sends[i];
        const double load = static_cast<double>(x.blocks.size()) / s.num_blocks();
        // The one dimension the send moves along (the first that differs;
        // swing-torus-ports judges that there is exactly one).
        int d = 0;
        while (d < D && (r / stride[d]) % dims[d] == (x.peer / stride[d]) % dims[d]) ++d;
        if (d == D) continue;  // a send to itself loads no link
        const uint64_t n = dims[d], xa = (r / stride[d]) % n, xb = (x.peer / stride[d]) % n;
        const int c = static_cast<int>(i) < t.collectives() ? static_cast<int>(i) : 0;
        const int dir = torus_hop_direction(xa, xb, n, t.signed_offset(r, c, j));
        const uint64_t hops = torus_hop_distance(xa, xb, n);
        sent[r] += load;
        uint64_t at = xa;
        for (uint64_t h = 0; h < hops; ++h) {
          const Rank node = static_cast<Rank>(r - xa * stride[d] + at * stride[d]);
          links[(node * D + d) * 2 + (dir > 0)] += load;
          at = (at + n + static_cast<uint64_t>(dir > 0 ? 1 : n - 1)) % n;
        }
      }
    }
    sum_p += *std::max_element(sent.begin(), sent.end()) / (2 * D);  // spread evenly over the 2D ports
    sum_l += *std::max_element(links.begin(), links.end());
  }
  TorusDeficiencies out;
  const double lg = std::log2(static_cast<double>(p));
  out.lambda = lg > 0 ? s.num_steps() / lg : 0;
  out.psi = D * sum_p;
  out.xi = sum_p > 0 ? sum_l / sum_p : 1;
  return out;
}

Verdict swing_torus_deficiency(const Schedule& s) {
  Verdict v;
  v.property = prop::swing_torus_deficiency;
  v.mode = "exact";
  const auto* t = dynamic_cast<const SwingTorus*>(&s);
  if (!t) {
    v.stats["applies"] = "no (not a Swing torus schedule)";
    return v;
  }
  if (s.p() < 2) return v;
  const TorusDeficiencies m = measure_torus_deficiencies(s, *t);
  const std::vector<uint32_t>& dims = t->dims();
  const int D = static_cast<int>(dims.size());
  const bool square = std::all_of(dims.begin(), dims.end(), [&](uint32_t d) { return d == dims[0]; });
  const double lg = std::log2(static_cast<double>(s.p()));
  v.stats["lambda"] = fixed(m.lambda);
  v.stats["psi"] = fixed(m.psi);
  v.stats["xi"] = fixed(m.xi);
  auto judge = [&](const std::string& what, bool ok, const std::string& expected, const std::string& actual) {
    ++v.checks;
    if (ok) return;
    Counterexample c = Counterexample::at(s.p(), std::nullopt);
    c.expected = what + " " + expected;
    c.actual = actual;
    v.fail(std::move(c));
  };
  if (t->kind() == SwingTorus::Kind::bandwidth) {
    v.stats["table2_row"] = "SWING (B)";
    judge("Lambda", std::abs(m.lambda - 2) < 1e-9, "= 2 (Table 2)", fixed(m.lambda));
    judge("Psi", m.psi <= 1 + 1e-9, "<= 1 (Table 2: 1; Sec. 4.2: also on non-square tori)", fixed(m.psi));
    static const double printed[] = {0, 0, 1.19, 1.03, 1.008};
    static const double half_unit[] = {0, 0, 0.005, 0.005, 0.0005};
    if (square && D >= 2 && D <= 4) {
      v.stats["xi_table"] = fixed(printed[D], D == 4 ? 3 : 2) + " (p -> infinity)";
      judge("Xi", m.xi <= printed[D] + half_unit[D],
            "<= " + fixed(printed[D], D == 4 ? 3 : 2) + " (Table 2, D = " + std::to_string(D) +
                ", the limit as p grows; + half a printed unit)",
            fixed(m.xi));
    } else {
      v.stats["xi_table"] = "none (Table 2 prints D = 2, 3, 4 on square tori)";
    }
  } else {
    v.stats["table2_row"] = "SWING (L)";
    judge("Lambda", std::abs(m.lambda - 1) < 1e-9, "= 1 (Table 2)", fixed(m.lambda));
    const double bound = 4.0 / 3.0 * D * std::pow(static_cast<double>(s.p()), 1.0 / D);
    v.stats["xi_table"] = fixed(bound) + " ((4/3) D p^(1/D); not judged, see swing_torus_deficiency.hpp)";
    v.stats["psi_table"] = fixed(D * lg) + " (D log2 p; not judged: one port carrying the whole vector, where Sec. "
                           "4.1's 2D-way split measures log2 p / 2 = " + fixed(lg / 2) + ")";
  }
  return v;
}

}  // namespace collcheck
