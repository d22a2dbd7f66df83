#pragma once
// The one list of SMT queries `collcheck prove` can pose. Every query is a
// property over one instance (algorithm, variant, InstanceParams): Z3 answers
// holds (unsat violation query), violated (sat, with a counterexample that is
// replayed concretely before it is reported) or unknown (timeout, too large,
// solver error; stats["reason_unknown"]). Nothing else in the tool knows which
// queries exist; each group lives in its own file and contributes a list.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/registry.hpp"

namespace collcheck::smt {

struct QueryContext {
  unsigned timeout_ms = 60000;  // wall-clock budget of the whole query, minimisation included
  std::string smt2_dir;         // non-empty: also write every solver query there as SMT-LIB2
                                // (smt/smt2_dump.hpp: Smt2Scope + dump_smt2 do it for you)
};

struct Query {
  std::string name;     // Verdict::property, e.g. "smt-trivance-peers"
  std::string summary;  // one line, with the paper's lemma/theorem
  // Does the query speak about this (algorithm, variant)?
  std::function<bool(const std::string& algorithm, const std::string& variant)> applies;
  // Why this instance is beyond the encoding (p too large, p not a power of
  // three, ...): prove reports it as bad input (exit 2), never hangs on it.
  std::function<std::optional<std::string>(const InstanceParams&)> unsupported;
  // Optional, for limits that depend on the variant too (TRA: bruck r = 2,
  // spread-out r = P); empty = none. Checked after `unsupported`.
  std::function<std::optional<std::string>(const std::string& algorithm, const std::string& variant,
                                           const InstanceParams&)>
      unsupported_variant;
  std::function<Verdict(const std::string& algorithm, const std::string& variant, const InstanceParams&,
                        const QueryContext&)>
      run;
  // false: only run when named (prove --query NAME), e.g. the symbolic-p
  // queries that quantify over every p up to the instance's p.
  bool by_default = true;
};

// Every query, grouped by file: swing_queries.cpp, parametric_proofs.cpp,
// step_lower_bounds.cpp, translation_validation.cpp.
const std::vector<Query>& queries();

std::vector<Query> swing_queries();
std::vector<Query> parametric_queries();
std::vector<Query> lower_bound_queries();
std::vector<Query> translation_queries();

}  // namespace collcheck::smt
