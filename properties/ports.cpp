#include "properties/ports.hpp"

namespace collcheck {

void check_ports(const StepView& sv, Rank r, Verdict& v) {
  const RankStep& mine = sv.at(r);
  ++v.checks;
  const size_t k = static_cast<size_t>(sv.ports);
  if (mine.sends.size() <= k && mine.recvs.size() <= k) return;
  Counterexample c;
  c.p = sv.p;
  c.rank = r;
  c.step = sv.step;
  c.expected = "<= " + std::to_string(k) + " sends and <= " + std::to_string(k) + " receives";
  c.actual = std::to_string(mine.sends.size()) + " sends, " + std::to_string(mine.recvs.size()) + " receives";
  c.message = "rank exceeds the " + std::to_string(k) + "-port model in one step";
  v.fail(std::move(c));
}

}  // namespace collcheck
