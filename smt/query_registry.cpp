#include "smt/query_registry.hpp"

namespace collcheck::smt {

const std::vector<Query>& queries() {
  static const std::vector<Query> all = [] {
    std::vector<Query> q;
    for (auto group : {swing_queries, parametric_queries, lower_bound_queries, translation_queries})
      for (auto& x : group()) q.push_back(std::move(x));
    return q;
  }();
  return all;
}

}  // namespace collcheck::smt
