#include "smt/query_registry.hpp"

namespace collcheck::smt {

std::vector<Query> lower_bound_queries() { return {}; }

}  // namespace collcheck::smt
