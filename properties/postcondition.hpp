#pragma once
// Property "postcondition": when the schedule ends, every (rank, block) the
// collective requires (CollectiveSpec::required) holds exactly the result:
// all p contributions for the reductions, the origin's block for the
// data-movement collectives.
#include <string>

#include "properties/verdict.hpp"

namespace collcheck {

void postcondition_wrong(Verdict& v, uint64_t p, Rank r, int last_step, Block b, std::string expected,
                         std::string actual);

// "{0,3,7,...}" listing at most `limit` ranks, then "and N more".
std::string describe_ranks(const std::vector<Rank>& ranks, size_t limit = 8);

}  // namespace collcheck
