#include "smt/ring/ring_certificate.hpp"

#include "schedules/parametric/rule_arith.hpp"
#include "schedules/ring/ring_rule.hpp"

namespace collcheck::smt::parametric {
namespace {

template <class A>
typename A::Int reduce_steps(A&, const typename A::Int& p) {
  return p - 1;
}

SingleTransferAllreduce make_rule() {
  SingleTransferAllreduce rule;
  rule.name = "the ring allreduce's rule (schedules/ring/ring_rule.hpp)";
  rule.num_steps = [](Z3Arith& a, const z3::expr& p) { return ring_rule::num_steps(a, p); };
  rule.num_blocks = [](Z3Arith& a, const z3::expr& p) { return ring_rule::num_blocks(a, p); };
  rule.reduce_steps = [](Z3Arith& a, const z3::expr& p) { return reduce_steps(a, p); };
  rule.step = [](Z3Arith& a, const z3::expr& p, const z3::expr& r, const z3::expr& s) {
    const ring_rule::Step<Z3Arith> st = ring_rule::step(a, p, r, s);
    return SymbolicStep{st.right, st.left, st.give, st.take, st.reduce};
  };
  rule.invariant = [](Z3Arith& a, const z3::expr& p, const z3::expr& r, const z3::expr& b, const z3::expr& s) {
    const z3::expr d = a.mod(r - b, p), e = a.mod(r + 1 - b, p), u = s - (p - 1);
    const z3::expr rs_start = z3::ite(d <= s, b, r), rs_len = z3::ite(d <= s, d + 1, a.c.int_val(1));
    const z3::expr ag_start = z3::ite(e <= u, a.c.int_val(0), b), ag_len = z3::ite(e <= u, p, d + 1);
    return Run{z3::ite(s < p - 1, rs_start, ag_start), z3::ite(s < p - 1, rs_len, ag_len)};
  };
  rule.certificate_source = "invariant: smt/ring/ring_certificate.hpp; obligations: "
                            "smt/parametric/single_transfer_certificate.hpp";
  rule.num_steps_at = [](int64_t p) {
    rule::Concrete a;
    return ring_rule::num_steps(a, p);
  };
  rule.num_blocks_at = [](int64_t p) {
    rule::Concrete a;
    return ring_rule::num_blocks(a, p);
  };
  rule.reduce_steps_at = [](int64_t p) {
    rule::Concrete a;
    return reduce_steps(a, p);
  };
  return rule;
}

}  // namespace

const SingleTransferAllreduce& ring_allreduce_rule() {
  static const SingleTransferAllreduce rule = make_rule();
  return rule;
}

}  // namespace collcheck::smt::parametric
