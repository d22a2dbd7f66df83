#pragma once
// SMT-LIB2 dumps of the solver queries behind `collcheck prove --smt2-dir
// DIR`, so that another solver (or Z3's own parser) can re-check them.
//
// Each property runs inside an Smt2Scope naming the directory and a file stem
// (e.g. "smt-trivance-coverage-p27"); every dump_smt2() call in that scope, on
// the same thread, writes one file DIR/<stem>-<NNN>[-<label>].smt2 holding
// z3::solver::to_smt2() (declarations, assertions, (check-sat)) after a
// comment header:
//   ; collcheck prove: <stem> <label>
//   ; answer: unsat|sat|unknown   (Z3's answer to this script; unsat = the
//   ;                               lemma / property holds)
// An empty directory (the default) makes every call a no-op. Minimisation
// queries (counterexample search under extra bounds) are not dumped: the
// dumped sat query already shows the violation.
#include <z3++.h>

#include <string>

namespace collcheck::smt {

class Smt2Scope {
 public:
  Smt2Scope(const std::string& dir, const std::string& stem);
  ~Smt2Scope();
  Smt2Scope(const Smt2Scope&) = delete;
  Smt2Scope& operator=(const Smt2Scope&) = delete;

 private:
  bool active_ = false;
};

// Writes `s` as described above if an Smt2Scope with a directory is active
// on this thread. Throws InputError if the file cannot be written.
void dump_smt2(z3::solver& s, const std::string& label, z3::check_result answer);

// The answer recorded in a dump's header ("unsat", "sat", "unknown"), or ""
// if there is none.
std::string recorded_answer(const std::string& smt2_text);

}  // namespace collcheck::smt
