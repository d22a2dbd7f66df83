#pragma once
// The symbolic arithmetic policy of the rules written once for generation
// and for their parametric certificates (schedules/ring/ring_rule.hpp; the
// concrete policy is schedules/parametric/rule_arith.hpp). Int and Bool are
// Z3 integer and Boolean terms (unbounded integers: the concrete policy's
// 64-bit values never overflow for the p a certificate covers).
//
// mod(x, p) is encoded without division, as one conditional addition or
// subtraction of p, which is the least non-negative residue exactly when
// -p <= x < 2p. Every mod records that range in `ranges`; a certificate
// proves each recorded range under the hypotheses of the obligation that
// used it (it is conjoined to the obligation), so an encoding outside its
// range makes the obligation fail, never hold.
#include <z3++.h>

#include <vector>

namespace collcheck::smt::parametric {

struct Z3Arith {
  explicit Z3Arith(z3::context& context) : c(context) {}
  using Int = z3::expr;
  using Bool = z3::expr;
  z3::context& c;
  std::vector<z3::expr> ranges;

  Int mod(const Int& x, const Int& p) {
    ranges.push_back(x >= -p && x < 2 * p);
    return z3::ite(x < 0, x + p, z3::ite(x >= p, x - p, x));
  }
  Int pick(const Bool& b, const Int& x, const Int& y) const { return z3::ite(b, x, y); }
  // The conjunction of the ranges recorded since `from` (true if none).
  z3::expr ranges_since(size_t from) const {
    z3::expr all = c.bool_val(true);
    for (size_t i = from; i < ranges.size(); ++i) all = all && ranges[i];
    return all;
  }
};

}  // namespace collcheck::smt::parametric
