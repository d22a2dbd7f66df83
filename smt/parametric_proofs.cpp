#include "smt/query_registry.hpp"

namespace collcheck::smt {

std::vector<Query> parametric_queries() { return {}; }

}  // namespace collcheck::smt
