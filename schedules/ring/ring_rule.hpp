#pragma once
// The ring allreduce's rule (ring_allreduce.hpp), written once over an
// arithmetic policy A so that the same code is both the generator and the
// object of its parametric certificate:
//   A = rule::Concrete (schedules/parametric/rule_arith.hpp): 64-bit
//       integers; RingAllreduce::rank_step and num_steps call it;
//   A = the Z3 policy of smt/parametric/z3_rule_arith.hpp: p, r and s are
//       symbolic, and smt/ring/ring_certificate.cpp proves the schedule's
//       properties for every p of an interval at once from this very code.
// A provides Int, Bool, mod(x, p) (the least non-negative residue) and
// pick(c, a, b) (c ? a : b); +, -, * and < are the types' own.
//
// Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters
// of workstations", JPDC 2009; Swing NSDI'24 Sec. 2.3.1.
namespace collcheck::ring_rule {

// Rank r's one send and one receive at step s: `give` to `right`, `take`
// from `left`, both reduce (the reduce-scatter) or both copy (the allgather).
template <class A>
struct Step {
  typename A::Int right, left, give, take;
  typename A::Bool reduce;
};

template <class A>
typename A::Int num_steps(A& a, const typename A::Int& p) {
  return a.pick(p > 1, 2 * (p - 1), p - p);  // p - p: a zero of A's Int
}

template <class A>
typename A::Int num_blocks(A&, const typename A::Int& p) {
  return p;
}

// RS step s (0..p-2): rank r sends block (r - s) mod p to r+1 (reduce) and
// receives block (r - s - 1) mod p from r-1. AG step p-1+t: rank r sends
// block (r + 1 - t) mod p to r+1 (copy) and receives (r - t) mod p. r is read
// only through r + c (mod p): the translation certificate of
// ring_allreduce.hpp.
template <class A>
Step<A> step(A& a, const typename A::Int& p, const typename A::Int& r, const typename A::Int& s) {
  using Int = typename A::Int;
  const typename A::Bool rs = s < p - 1;
  const Int t = a.pick(rs, s, s - (p - 1));
  return Step<A>{a.mod(r + 1, p), a.mod(r - 1, p), a.pick(rs, a.mod(r - t, p), a.mod(r + 1 - t, p)),
                 a.pick(rs, a.mod(r - t - 1, p), a.mod(r - t, p)), rs};
}

}  // namespace collcheck::ring_rule
