#include "smt/query_registry.hpp"

namespace collcheck::smt {

std::vector<Query> translation_queries() { return {}; }

}  // namespace collcheck::smt
