#include "properties/tra/tra_formulas.hpp"

#include <string>

#include "properties/catalog.hpp"
#include "schedules/int_math.hpp"

namespace collcheck {
namespace a2a {
namespace {

bool is_power(uint64_t m, uint64_t r) { return m >= 1 && r >= 2 && ipow(r, digits(m, r)) == m; }

}  // namespace

std::optional<uint64_t> prop1_K(uint64_t p, uint64_t r) {
  if (p < 2 || r < 2 || r >= p || !is_power(p, r)) return std::nullopt;
  return static_cast<uint64_t>(digits(p, r)) * (r - 1);
}

std::optional<uint64_t> prop2_D(uint64_t p, uint64_t r) {
  if (p < 2 || r < 2 || r > p || !is_power(p, r)) return std::nullopt;
  const int w = digits(p, r);
  return static_cast<uint64_t>(w) * (r - 1) * ipow(r, w - 1);
}

std::optional<uint64_t> prop3_K(uint64_t p, uint64_t r) {
  if (p < 2 || r < 2 || r > p || is_power(p, r)) return std::nullopt;
  const int w = digits(p, r);
  const uint64_t rw = ipow(r, w), rw1 = ipow(r, w - 1);
  return static_cast<uint64_t>(w) * (r - 1) - (rw - p) / rw1;
}

std::optional<uint64_t> prop4_h(uint64_t p, uint64_t r, int x, uint64_t z) {
  if (p < 2 || r < 2 || r > p || is_power(p, r)) return std::nullopt;
  const uint64_t rx = ipow(r, x), rx1 = rx * r;
  const uint64_t lgc = p % rx1;
  const int64_t t = static_cast<int64_t>(lgc) - static_cast<int64_t>(z * rx);
  const uint64_t lc = (p / rx1) * rx;
  if (t <= 0) return lc;                                       // 1)
  if (static_cast<uint64_t>(t) / rx > 0) return lc + rx;       // 2) floor(t / r^x) > 0
  return lc + static_cast<uint64_t>(t) % rx;                   // 3)
}

std::optional<uint64_t> prop4_D(uint64_t p, uint64_t r) {
  if (p < 2 || r < 2 || r > p || is_power(p, r)) return std::nullopt;
  const int w = digits(p, r);
  uint64_t d = 0;
  for (int x = 0; x < w; ++x)
    for (uint64_t z = 1; z < r; ++z) d += *prop4_h(p, r, x, z);
  return d;
}

std::optional<uint64_t> prop4_D_fast(uint64_t p, uint64_t r) {
  if (p < 2 || r < 2 || r > p || is_power(p, r)) return std::nullopt;
  const int w = digits(p, r);
  uint64_t d = 0, rx = 1;
  for (int x = 0; x < w; ++x, rx *= r) {
    const uint64_t lgc = p % (rx * r), lc = (p / (rx * r)) * rx;
    d += (r - 1) * lc + (lgc > rx ? lgc - rx : 0);
  }
  return d;
}

int64_t tra2_rounds_formula(uint64_t m, uint64_t r, uint64_t c) {
  const int w = digits(m, r);
  const int64_t top = static_cast<int64_t>(ipow(r, w - 1)), ri = static_cast<int64_t>(r);
  // floor(r - c / r^(w-1)) = floor((r r^(w-1) - c) / r^(w-1))
  return static_cast<int64_t>(w) * (ri - 1) - floor_div(ri * top - static_cast<int64_t>(c), top);
}

}  // namespace a2a

namespace {

std::string round_name(int x, uint64_t z) { return "(x=" + std::to_string(x) + ", z=" + std::to_string(z) + ")"; }

void disagree(Verdict& v, const a2a::Instance& in, std::optional<int> step, const std::string& what,
              const std::string& formula, const std::string& measured) {
  Counterexample c = Counterexample::at(in.p, std::nullopt, step);
  c.expected = formula;
  c.actual = measured;
  c.message = in.describe() + ": " + what + " disagrees with the simulation's count";
  v.fail(std::move(c));
}

// Compares one formula value with the count; the description is built only on
// a disagreement (this runs for every round of every instance of a sweep).
template <class Name>
void compare(Verdict& v, const a2a::Instance& in, std::optional<int> step, Name&& what, uint64_t formula,
             uint64_t measured) {
  ++v.checks;
  if (formula == measured) return;
  const std::string w = what();
  disagree(v, in, step, w, w + " = " + std::to_string(formula), std::to_string(measured) + " measured");
}

void check_tra(Verdict& v, const a2a::Simulation& sim) {
  const a2a::Instance& in = sim.instance;
  const a2a::PhaseCounts& c = sim.phases.at(0);
  const uint64_t P = in.p, r = in.r;
  const auto k1 = a2a::prop1_K(P, r), k3 = a2a::prop3_K(P, r);
  const auto d2 = a2a::prop2_D(P, r), d4 = a2a::prop4_D(P, r);
  v.stats["propositions_histogram"] = "1:" + std::to_string(k1.has_value()) + " 2:" + std::to_string(d2.has_value()) +
                                      " 3:" + std::to_string(k3.has_value()) + " 4:" + std::to_string(d4.has_value());
  v.stats["measured_K"] = std::to_string(c.K);
  v.stats["measured_D"] = std::to_string(c.D);
  // K
  if (k1) {
    v.stats["K_source"] = "Prop. 1";
    v.stats["claimed_K"] = std::to_string(*k1);
    compare(v, in, std::nullopt, [] { return std::string("Prop. 1 K = w(r-1)"); }, *k1, c.K);
  } else if (k3) {
    v.stats["K_source"] = "Prop. 3";
    v.stats["claimed_K"] = std::to_string(*k3);
    compare(v, in, std::nullopt, [] { return std::string("Prop. 3 K = w(r-1) - floor((r^w - P)/r^(w-1))"); }, *k3,
            c.K);
  } else {
    v.stats["K_source"] = "none: r = P (Prop. 1 is stated for 2 <= r < P, Prop. 3 for P < r^w)";
  }
  // D, per round and in total
  const uint64_t per_x = r - 1;
  if (d2) {
    v.stats["D_source"] = "Prop. 2 (per round: Proof 2's r^(w-1))";
    v.stats["claimed_D"] = std::to_string(*d2);
    const uint64_t per_round = *d2 / (static_cast<uint64_t>(c.w) * per_x);
    for (size_t k = 0; k < c.per_round.size(); ++k)
      compare(
          v, in, static_cast<int>(k),
          [&] { return "Proof 2 round " + round_name(static_cast<int>(k / per_x), k % per_x + 1) + " r^(w-1)"; },
          per_round, c.per_round[k]);
    compare(v, in, std::nullopt, [] { return std::string("Prop. 2 D = w(r-1) r^(w-1)"); }, *d2, c.D);
  } else if (d4) {
    v.stats["D_source"] = "Prop. 4 (per round h and the sum)";
    v.stats["claimed_D"] = std::to_string(*d4);
    for (size_t k = 0; k < c.per_round.size(); ++k) {
      const int x = static_cast<int>(k / per_x);
      const uint64_t z = k % per_x + 1;
      compare(v, in, static_cast<int>(k), [&] { return "Prop. 4 h" + round_name(x, z); }, *a2a::prop4_h(P, r, x, z),
              c.per_round[k]);
    }
    compare(v, in, std::nullopt, [] { return std::string("Prop. 4 D = sum h"); }, *d4, c.D);
  }
  // Sec. III-A: log2 P <= K <= P.
  ++v.checks;
  const bool low = c.K >= 64 || (uint64_t{1} << c.K) >= P;
  if (!low || c.K > P)
    disagree(v, in, std::nullopt, "Sec. III-A's bound log2 P <= K <= P", "log2 P <= K <= P",
             "K = " + std::to_string(c.K));
}

void check_tra2(Verdict& v, const a2a::Simulation& sim) {
  const a2a::Instance& in = sim.instance;
  const a2a::PhaseCounts& intra = sim.phases.at(0);
  const a2a::PhaseCounts& inter = sim.phases.at(1);
  int printed_wrong = 0;
  std::string where;
  auto phase = [&](const std::string& name, const a2a::PhaseCounts& c, const std::string& mname) {
    v.stats["measured_" + name] = std::to_string(c.K);
    if (c.m < 2) {
      v.stats[name + "_source"] = "none: " + mname + " = 1, the phase is empty";
      return;
    }
    const int64_t meant = a2a::tra2_rounds_formula(c.m, c.radix, c.m);
    const int64_t printed = a2a::tra2_rounds_formula(c.m, c.radix, in.p);
    v.stats[name + "_source"] = "Sec. IV " + name + " with " + mname + " (printed with P)";
    v.stats["claimed_" + name] = std::to_string(meant);
    v.stats["printed_" + name] = std::to_string(printed);
    ++v.checks;
    if (meant != static_cast<int64_t>(c.K))
      disagree(v, in, std::nullopt, "Sec. IV " + name + " (read with " + mname + ")",
               name + " = " + std::to_string(meant), std::to_string(c.K) + " measured");
    if (printed != static_cast<int64_t>(c.K)) {
      ++printed_wrong;
      where += (where.empty() ? "" : "; ") + name + " printed (with P) " + std::to_string(printed) + " vs measured " +
               std::to_string(c.K);
    }
  };
  phase("K1", intra, "Q");
  phase("K2", inter, "N");
  v.stats["printed_formula_disagrees_at"] = where.empty() ? "none" : in.describe() + ": " + where;
  v.stats["max_printed_formula_disagreements"] = std::to_string(printed_wrong);
  v.stats["printed_formula_disagreement_histogram"] = std::to_string(printed_wrong) + ":1";
  // Sec. IV: r = r1 = r2 and Q, N, P powers of r => K1 + K2 = K of TRA.
  if (in.q >= 2 && in.n >= 2 && in.r1 == in.r2) {
    const uint64_t r = in.r1;
    if (a2a::prop2_D(in.q, r) && a2a::prop2_D(in.n, r) && a2a::prop2_D(in.p, r)) {
      const uint64_t k_tra = a2a::count_phase(in.p, r).K;
      ++v.checks;
      v.stats["same_rounds_as_tra"] = "K1 + K2 = " + std::to_string(intra.K + inter.K) + ", TRA(P, r=" +
                                      std::to_string(r) + ") K = " + std::to_string(k_tra);
      if (intra.K + inter.K != k_tra)
        disagree(v, in, std::nullopt, "Sec. IV's K = K1 + K2 (r = r1 = r2, all logarithms integers)",
                 "K1 + K2 = " + std::to_string(k_tra), std::to_string(intra.K + inter.K) + " measured");
    }
  }
}

}  // namespace

Verdict tra_formulas(const a2a::Simulation& sim) {
  Verdict v;
  v.property = prop::tra_formulas;
  v.mode = "exact integer arithmetic, formulas as printed";
  const a2a::Instance& in = sim.instance;
  if (in.p < 2) {
    v.status = Status::skipped;
    v.stats["reason"] = "P = 1: no rounds; the propositions are stated for 2 <= r <= P";
    return v;
  }
  if (in.two_layer) check_tra2(v, sim);
  else check_tra(v, sim);
  return v;
}

}  // namespace collcheck
