#include "schedules/formats/schedule_text.hpp"

namespace collcheck {

std::string schedule_text(const Schedule& s, const std::string& title) {
  std::string out = "# " + title + ": " + to_string(s.spec().kind) + ", p = " + std::to_string(s.p()) +
                    ", " + std::to_string(s.num_blocks()) + " blocks, " + std::to_string(s.num_steps()) +
                    " steps, " + std::to_string(s.ports()) + "-port\n";
  RankStep rs;
  for (int st = 0; st < s.num_steps(); ++st) {
    out += "step " + std::to_string(st) + "\n";
    for (Rank r = 0; r < s.p(); ++r) {
      s.rank_step(r, st, rs);
      if (rs.empty()) continue;
      out += "  rank " + std::to_string(r) + ":";
      for (const auto& t : rs.sends)
        out += "  -> " + std::to_string(t.peer) + " " + t.blocks.to_string() + " " + to_string(t.combine);
      for (const auto& t : rs.recvs)
        out += "  <- " + std::to_string(t.peer) + " " + t.blocks.to_string() + " " + to_string(t.combine);
      out += "\n";
    }
  }
  return out;
}

}  // namespace collcheck
