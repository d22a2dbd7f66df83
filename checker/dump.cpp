#include "checker/dump.hpp"

#include "schedules/input_error.hpp"
#include "schedules/traff_circulant.hpp"

namespace collcheck {

std::string dump_text(const Schedule& s, const std::string& title) {
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

std::string traff_table(uint64_t p) {
  if (p > (uint64_t{1} << 20)) throw InputError("traff-table prints one line per rank; p must be <= 2^20");
  const auto skip = traff::skips(p);
  const size_t q = skip.size() - 1;
  std::string out = "# traff-table p=" + std::to_string(p) + " q=" + std::to_string(q) +
                    ": rank baseblock recvblock[0.." + std::to_string(q) + ") sendblock[0.." + std::to_string(q) + ")\n";
  for (uint64_t r = 0; r < p; ++r) {
    traff::RankSchedule rs = traff::rank_schedule(r, skip);
    out += std::to_string(r) + " " + std::to_string(rs.baseblock);
    for (int64_t b : rs.recvblock) out += " " + std::to_string(b);
    for (int64_t b : rs.sendblock) out += " " + std::to_string(b);
    out += "\n";
  }
  return out;
}

}  // namespace collcheck
