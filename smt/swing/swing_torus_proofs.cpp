#include "smt/swing/swing_torus_proofs.hpp"

#include <z3++.h>

#include "smt/proof_support.hpp"

namespace collcheck::smt {

using namespace support;

namespace {

constexpr const char* kName = "smt-swing-torus-peers";

uint64_t step_coordinate(uint64_t x, uint64_t n, int64_t off) {
  const int64_t m = static_cast<int64_t>(n);
  int64_t y = (x % 2 == 0 ? static_cast<int64_t>(x) + off : static_cast<int64_t>(x) - off) % m;
  return static_cast<uint64_t>(y < 0 ? y + m : y);
}

}  // namespace

Verdict prove_swing_torus_peers(const SwingTorus& t, unsigned timeout_ms) {
  return guarded(kName, [&](z3::context& c, Verdict& v) {
    Budget budget(c, timeout_ms);
    const std::vector<uint32_t>& dims = t.dims();
    const int D = static_cast<int>(dims.size());
    const std::vector<uint64_t> strides = torus_strides(dims);
    uint64_t checked = 0;
    for (int j = 0; j < t.plan_steps(); ++j)
      for (int d = 0; d < D; ++d) {
        const uint64_t n = dims[d];
        if (n < 2) continue;
        const unsigned w = bits_for(n - 1);  // n = 2^w: w-bit wrap-around is mod n
        z3::expr x = c.bv_const("x", w);
        auto num = [&](int64_t val) { return bv(c, static_cast<uint64_t>(val) & (n - 1), w); };
        auto odd = [&](const z3::expr& e) { return e.extract(0, 0) == bv(c, 1, 1); };
        auto step = [&](const z3::expr& e, int64_t off) { return z3::ite(odd(e), e - num(off), e + num(off)); };
        auto plus = [&](int64_t off) {
          const z3::expr o = step(x, off) - x;
          const z3::expr half = bv(c, n / 2, w);
          const z3::expr tie = z3::ite(odd(x), c.bool_val(-off > 0), c.bool_val(off > 0));
          return z3::ite(z3::ult(o, half), c.bool_val(true), z3::ite(z3::ugt(o, half), c.bool_val(false), tie));
        };
        std::vector<int> on_d;
        for (int col = 0; col < t.collectives(); ++col)
          if (t.plan(col, j).dim == d) on_d.push_back(col);
        for (int col : on_d) {
          const int64_t off = t.signed_offset(0, col, j);  // rank 0: every coordinate even
          const std::string label = "involution d" + std::to_string(d) + " j" + std::to_string(j) + " c" + std::to_string(col);
          ++checked;
          const bool ok = refute(budget, v, label, step(step(x, off), off) != x, {x}, [&](const std::vector<uint64_t>& val)
                                 -> std::optional<Counterexample> {
            const uint64_t y = step_coordinate(val[0], n, off), back = step_coordinate(y, n, off);
            if (back == val[0]) return std::nullopt;
            const Rank r = static_cast<Rank>(val[0] * strides[d]);
            if (t.peer(t.peer(r, col, j), col, j) == r) return std::nullopt;  // the generator disagrees
            Counterexample cx = Counterexample::at(t.p(), r, j);
            cx.peer = t.peer(r, col, j);
            cx.expected = "collective " + std::to_string(col) + "'s peer of its peer is rank " + std::to_string(r);
            cx.actual = "coordinate " + std::to_string(val[0]) + " -> " + std::to_string(y) + " -> " +
                        std::to_string(back) + " in dimension " + std::to_string(d);
            return cx;
          });
          if (!ok) return;
        }
        if (j >= t.square_phase_steps()) continue;
        for (size_t a = 0; a < on_d.size(); ++a)
          for (size_t b = a + 1; b < on_d.size(); ++b) {
            const int ca = on_d[a], cb = on_d[b];
            const int64_t oa = t.signed_offset(0, ca, j), ob = t.signed_offset(0, cb, j);
            const std::string label = "ports d" + std::to_string(d) + " j" + std::to_string(j) + " c" +
                                      std::to_string(ca) + "/" + std::to_string(cb);
            ++checked;
            const bool ok = refute(budget, v, label, plus(oa) == plus(ob), {x}, [&](const std::vector<uint64_t>& val)
                                   -> std::optional<Counterexample> {
              const uint64_t xa = val[0];
              const int64_t sa = xa % 2 ? -oa : oa, sb = xa % 2 ? -ob : ob;
              const int da = torus_hop_direction(xa, step_coordinate(xa, n, oa), n, sa);
              const int db = torus_hop_direction(xa, step_coordinate(xa, n, ob), n, sb);
              if (da != db) return std::nullopt;
              Counterexample cx = Counterexample::at(t.p(), static_cast<Rank>(xa * strides[d]), j);
              cx.expected = "collectives " + std::to_string(ca) + " and " + std::to_string(cb) +
                            " on different ports (Sec. 4.1)";
              cx.actual = "both leave on port (dimension " + std::to_string(d) + ", " + (da > 0 ? "+" : "-") + ")";
              return cx;
            });
            if (!ok) return;
          }
      }
    v.checks = checked;
    v.stats["solver_checks"] = std::to_string(checked);
    v.stats["encoding"] = "QF_BV, one symbolic coordinate per (dimension, plan step, collective or pair), S-bit "
                          "wrap-around = mod 2^S";
    budget.fill_stats(v);
  });
}

}  // namespace collcheck::smt
