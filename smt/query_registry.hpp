#pragma once
// The one list of SMT queries `collcheck prove` can pose. Every query is a
// property over one instance (algorithm, variant, InstanceParams): Z3 answers
// holds (unsat violation query), violated (sat, with a counterexample that is
// replayed concretely before it is reported) or unknown (timeout, too large,
// solver error; stats["reason_unknown"]). Nothing else in the tool knows which
// queries exist. A family's queries live in smt/<family>/ and its list is one
// function (below), joined in query_registry.cpp's list, one line per family,
// keyed by FamilyId: the registry restricts them to the family's algorithms
// (typed, no name compared); a query narrows further by the family-local
// kind if it must. The generic queries (step lower bound, translation
// validation) apply to every algorithm and read what they need from the
// family's declarations (AlgorithmInfo::capabilities, the variant's schedule).
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
  // Does the query speak about this (algorithm, variant)? Empty: every
  // variant (of its family, for a family's query).
  std::function<bool(const AlgorithmInfo& algorithm, const VariantInfo& variant)> applies;
  bool applies_to(const AlgorithmInfo& a, const VariantInfo& v) const { return !applies || applies(a, v); }
  // Why this instance is beyond the encoding (p too large, p not a power of
  // three, ...): prove reports it as bad input (exit 2), never hangs on it.
  std::function<std::optional<std::string>(const InstanceParams&)> unsupported;
  // Optional, for limits that depend on the variant too (TRA: bruck r = 2,
  // spread-out r = P); empty = none. Checked after `unsupported`.
  std::function<std::optional<std::string>(const AlgorithmInfo& algorithm, const VariantInfo& variant,
                                           const InstanceParams&)>
      unsupported_variant;
  // Does the query model this instance's schedule? A statement about Eq. 2
  // on all p ranks says nothing about a variant that folds p onto a smaller
  // ring there; a statement that needs every path sent says nothing about a
  // variant that de-duplicates. The reason it does not (prove reports a
  // skipped verdict "not applicable: REASON", never a violation and never bad
  // input); nullopt (or empty): it models every instance it applies_to.
  // Checked before `unsupported`.
  std::function<std::optional<std::string>(const AlgorithmInfo& algorithm, const VariantInfo& variant,
                                           const InstanceParams&)>
      not_applicable;
  std::function<Verdict(const AlgorithmInfo& algorithm, const VariantInfo& variant, const InstanceParams&,
                        const QueryContext&)>
      run;
  // false: only run when named (prove --query NAME), e.g. the symbolic-p
  // queries that quantify over every p up to the instance's p.
  bool by_default = true;
};

// Every query: the families' (swing, trivance, tra, traff), then the generic
// ones (step_lower_bounds.cpp, translation_validation.cpp).
const std::vector<Query>& queries();

// The families' lists (smt/<family>/<family>_queries.cpp or _proofs.cpp).
std::vector<Query> swing_queries();
std::vector<Query> trivance_queries();
std::vector<Query> tra_queries();
std::vector<Query> traff_queries();
// The generic lists.
std::vector<Query> lower_bound_queries();
std::vector<Query> translation_queries();

}  // namespace collcheck::smt
