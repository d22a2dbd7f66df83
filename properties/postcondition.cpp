#include "properties/postcondition.hpp"

namespace collcheck {

void postcondition_wrong(Verdict& v, uint64_t p, Rank r, int last_step, Block b, std::string expected,
                         std::string actual) {
  Counterexample c = Counterexample::at(p, r, last_step, b);
  c.expected = std::move(expected);
  c.actual = std::move(actual);
  c.message = "the final value of this block is not the collective's result";
  v.fail(std::move(c));
}

std::string describe_ranks(const std::vector<Rank>& ranks, size_t limit) {
  std::string s = "{";
  for (size_t i = 0; i < ranks.size() && i < limit; ++i) s += (i ? "," : "") + std::to_string(ranks[i]);
  if (ranks.size() > limit) s += ", and " + std::to_string(ranks.size() - limit) + " more";
  return s + "}";
}

}  // namespace collcheck
