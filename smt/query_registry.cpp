#include "smt/query_registry.hpp"

namespace collcheck::smt {

namespace {

// One line per family that has queries, in the order prove lists them.
struct FamilyQueries {
  FamilyId family;
  std::vector<Query> (*list)();
};
const FamilyQueries kFamilies[] = {
    {FamilyId::swing, swing_queries},
    {FamilyId::trivance, trivance_queries},
    {FamilyId::tra, tra_queries},
    {FamilyId::traff, traff_queries},
};

}  // namespace

const std::vector<Query>& queries() {
  static const std::vector<Query> all = [] {
    std::vector<Query> q;
    for (const FamilyQueries& f : kFamilies)
      for (Query& x : f.list()) {
        // A family's query speaks about its family's algorithms only.
        x.applies = [id = f.family, inner = std::move(x.applies)](const AlgorithmInfo& a, const VariantInfo& v) {
          return a.family == id && (!inner || inner(a, v));
        };
        q.push_back(std::move(x));
      }
    for (auto group : {lower_bound_queries, translation_queries})
      for (auto& x : group()) q.push_back(std::move(x));
    return q;
  }();
  return all;
}

}  // namespace collcheck::smt
