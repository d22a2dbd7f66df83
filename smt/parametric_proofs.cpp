// The parametric query group of `collcheck prove`: Trivance, TRA and Träff
// (trivance_proofs.cpp, tra_proofs.cpp, traff_proofs.cpp; Swing's are in
// swing_queries.cpp). Encodings: smt/parametric_proofs.hpp.
#include "smt/query_registry.hpp"

namespace collcheck::smt {

std::vector<Query> trivance_queries();
std::vector<Query> tra_queries();
std::vector<Query> traff_queries();

std::vector<Query> parametric_queries() {
  std::vector<Query> out;
  for (auto group : {trivance_queries, tra_queries, traff_queries})
    for (auto& q : group()) out.push_back(std::move(q));
  return out;
}

}  // namespace collcheck::smt
