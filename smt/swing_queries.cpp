#include "smt/query_registry.hpp"

namespace collcheck::smt {

std::vector<Query> swing_queries() { return {}; }  // TODO(prove plumbing): wrap swing_proofs.hpp

}  // namespace collcheck::smt
