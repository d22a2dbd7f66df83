#pragma once
// Shared plumbing of the parametric proofs (trivance_proofs.cpp,
// tra_proofs.cpp, traff_proofs.cpp, swing_queries.cpp): one wall-clock budget
// per property, solver calls that dump themselves as SMT-LIB2 (smt2_dump.hpp),
// lexicographic minimisation of counterexamples, and the guarantee that no Z3
// error escapes (it becomes Status::unknown with stats["error"]).
//
// Conventions (as in swing_proofs.hpp): every query asks Z3 for a violation;
// unsat = holds for every value of the symbolic variables, sat = a model
// that is minimised (smallest first variable, then the next, ...) and then
// replayed with the concrete generator code before it is reported; a model
// that does not replay is an encoding bug, reported as unknown with
// stats["error"], never as a violation. Verdict::mode is "z3"; stats hold
// "solver_seconds", "solver_calls", "query", "encoding", "instances" (how many
// concrete cases an unsat answer covers), "z3_version" and, for unknown,
// "reason_unknown" or "error".
#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict.hpp"

namespace collcheck::smt::support {

std::string z3_version();
unsigned bits_for(uint64_t v);  // smallest w >= 1 with v < 2^w (v < 2^63)

class Budget {
 public:
  Budget(z3::context& c, unsigned timeout_ms);
  z3::context& ctx() { return c_; }
  // Checks s within what is left of the budget; dumps it (label) when an
  // Smt2Scope is active. unknown when the budget is used up.
  z3::check_result check(z3::solver& s, const std::string& label, bool dump = true);
  // After a sat check(s): the lexicographically smallest values of `vars`
  // over all models of s (binary search under push/pop); `complete` false if
  // the budget ran out (the values are then those of a real model).
  std::vector<uint64_t> minimise(z3::solver& s, const std::vector<z3::expr>& vars, bool& complete);
  // Checks `assertion` alone with a solver made from tactic t (wrapped in
  // try_for with what is left of the budget, so the caller keeps its own
  // pipeline, e.g. Swing's simplify + bit-blast + sat); dumps it (label).
  // seconds: this call's solver time. unknown when the budget is used up.
  z3::check_result check_tactic(const z3::tactic& t, const z3::expr& assertion, const std::string& label,
                                double& seconds);
  // A solver for an assertion set.
  z3::solver solver() { return z3::solver(c_); }
  void fill_stats(Verdict& v) const;
  const std::string& reason() const { return reason_; }

 private:
  std::optional<unsigned> remaining();
  z3::context& c_;
  unsigned timeout_ms_;
  std::chrono::steady_clock::time_point start_;
  double seconds_ = 0;
  uint64_t calls_ = 0;
  std::string reason_;
};

// Runs body with a fresh context; fills property, mode, z3_version; turns
// every exception into Status::unknown with stats["error"].
Verdict guarded(const std::string& property, const std::function<void(z3::context&, Verdict&)>& body);

// A Verdict with Status::skipped and stats["reason"].
Verdict skipped(const std::string& property, const std::string& reason);

// Asserts `violation` in a fresh solver and checks it. unsat: holds (the
// verdict is left untouched, returns true). sat: minimises `vars`, calls
// explain(values) which must replay them concretely and return the
// counterexample (nullopt: not a real violation, i.e. an encoding bug ->
// unknown with stats["error"]). unknown: status unknown. Returns false
// unless unsat.
using Explain = std::function<std::optional<Counterexample>(const std::vector<uint64_t>&)>;
bool refute(Budget& b, Verdict& v, const std::string& label, const z3::expr& violation,
            const std::vector<z3::expr>& vars, const Explain& explain);

// Bit-vector helpers.
z3::expr bv(z3::context& c, uint64_t v, unsigned w);
// Lookup table as an if-then-else chain: values[i] at index x (x < size).
z3::expr select(z3::context& c, const z3::expr& x, const std::vector<uint64_t>& values, unsigned w);
// The same as a balanced multiplexer over the bits of x (depth = x's width,
// ~2 * 2^width nodes): for large tables, where an ite chain would be too deep.
z3::expr table(z3::context& c, const z3::expr& x, const std::vector<uint64_t>& values, unsigned w);
std::string u128_string(unsigned __int128 v);

}  // namespace collcheck::smt::support
