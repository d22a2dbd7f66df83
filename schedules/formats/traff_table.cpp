// Träff's receive and send tables as text: the writer (traff_table) and
// the reader (parse_traff_table) of `dump --format traff-table` and
// `check-file --schedule-format traff-table`.
#include "schedules/formats/traff_table.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <string_view>

#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {

void check_traff_table_p(uint64_t p) {
  if (p > (uint64_t{1} << 20)) throw InputError("traff-table prints one line per rank; p must be <= 2^20");
}

std::string traff_table(uint64_t p) {
  check_traff_table_p(p);
  const auto skip = traff::skips(p);
  const size_t q = skip.size() - 1;
  std::string out = "# traff-table p=" + std::to_string(p) + " q=" + std::to_string(q) +
                    ": rank baseblock recvblock[0.." + std::to_string(q) + ") sendblock[0.." + std::to_string(q) +
                    "); a sendblock marked * is a send-schedule violation (Theorem 3: Algorithm 6 took it from "
                    "RECVSCHEDULE of the to-processor)\n";
  for (uint64_t r = 0; r < p; ++r) {
    traff::RankSchedule rs = traff::rank_schedule(r, skip);
    out += std::to_string(r) + " " + std::to_string(rs.baseblock);
    for (int64_t b : rs.recvblock) out += " " + std::to_string(b);
    for (size_t k = 0; k < rs.sendblock.size(); ++k)
      out += " " + std::to_string(rs.sendblock[k]) + (rs.violation_rounds >> k & 1 ? "*" : "");
    out += "\n";
  }
  return out;
}

std::vector<traff::RankSchedule> parse_traff_table(const std::string& text, const std::string& source,
                                                   uint64_t max_memory) {
  // A rank line is kept as its place in `text` and its token count (no
  // copies: whitespace and long lines cost nothing); its tokens are read when
  // the line is judged. What is kept is estimated against max_memory.
  struct Row {
    size_t line;
    size_t count = 0;       // tokens on the line
    size_t begin = 0, end = 0;  // the line in `text`
  };
  std::vector<Row> rows;
  uint64_t used = text.size();
  auto charge = [&](uint64_t bytes, size_t line, const std::string& what) {
    used += bytes;
    if (max_memory && used > max_memory)
      throw refused_while_reading(source + ", at line " + std::to_string(line), "the text with " + what, used, max_memory);
  };
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  // The tokens of text[begin, end): each passed to `take` (false: stop).
  const auto tokens = [&](size_t begin, size_t end, const auto& take) {
    for (size_t i = begin; i < end;) {
      while (i < end && space(text[i])) ++i;
      const size_t b = i;
      while (i < end && !space(text[i])) ++i;
      if (i == b || !take(std::string_view(text).substr(b, i - b))) return;
    }
  };
  // The header traff_table writes, "# traff-table p=P q=Q: ...": optional
  // (other '#' lines are comments), but if present, P and Q are checked
  // against the rank lines below.
  struct Header {
    size_t line = 0;
    uint64_t p = 0, q = 0;
  };
  std::optional<Header> header;
  const auto read_header = [&](size_t begin, size_t end, size_t line) {
    const std::string at = source + ":" + std::to_string(line) + ": ";
    if (header)
      throw InputError(at + "a second '# traff-table' header (the first is on line " + std::to_string(header->line) +
                       ")");
    std::optional<uint64_t> p, q;
    tokens(begin, end, [&](std::string_view t) {
      for (auto [name, value] : {std::pair{"p=", &p}, std::pair{"q=", &q}}) {
        if (!t.starts_with(name) || *value) continue;
        std::string_view digits = t.substr(2);
        if (digits.ends_with(':')) digits.remove_suffix(1);
        uint64_t v = 0;
        const auto [e, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (!digits.empty() && ec == std::errc() && e == digits.data() + digits.size()) *value = v;
      }
      return !(p && q);
    });
    if (!p || !q) {
      const size_t shown = std::min<size_t>(end - begin, 80);
      throw InputError(at + "malformed '# traff-table' header: expected '# traff-table p=P q=Q: ...' (as dump --format "
                            "traff-table writes it), got " +
                       quote_input(std::string_view(text).substr(begin, shown)) + (shown < end - begin ? "..." : ""));
    }
    header = Header{line, *p, *q};
  };
  size_t no = 0;
  for (size_t at = 0; at < text.size();) {
    ++no;
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    Row row{no, 0, at, end};
    // A line whose first token starts with '#' is a comment; "# traff-table"
    // (or "#traff-table") is the header.
    bool comment = false, is_header = false;
    tokens(at, end, [&](std::string_view t) {
      if (row.count++ == 0) {
        comment = t[0] == '#';
        is_header = t == "#traff-table";
        return !comment || t == "#";  // a comment's second token only: it may make it the header
      }
      if (comment) is_header = t == "traff-table";
      return !comment;
    });
    // The header comes first: without it a table's p and q are only what its
    // line count implies, and a mistyped header would pass as a comment.
    if (row.count > 0 && !header && !is_header) {
      const size_t shown = std::min<size_t>(end - at, 80);
      throw InputError(source + ":" + std::to_string(no) +
                       ": expected the header '# traff-table p=P q=Q: ...' (as dump --format traff-table writes it) "
                       "before anything else, got " +
                       quote_input(std::string_view(text).substr(at, shown)) + (shown < end - at ? "..." : ""));
    }
    if (is_header) read_header(at, end, no);
    at = end + 1;
    if (row.count == 0 || comment) continue;
    const size_t before = rows.capacity();
    rows.push_back(row);
    if (rows.capacity() > before)
      charge((rows.capacity() - before) * sizeof(Row), no, "the " + std::to_string(rows.size()) + " rank lines read so far");
    if (rows.size() > (uint64_t{1} << 20)) throw InputError(source + ": more than 2^20 rank lines");
  }
  if (!header) throw InputError(source + ": no '# traff-table p=P q=Q: ...' header and no rank lines");
  if (rows.empty()) throw InputError(source + ": no rank lines (expected 'rank baseblock recvblock[0..q-1] sendblock[0..q-1]')");
  const uint64_t p = rows.size();
  const int64_t q = static_cast<int64_t>(traff::skips(p).size()) - 1;
  if (header && header->p != p)
    throw InputError(source + ":" + std::to_string(header->line) + ": the header says p=" + std::to_string(header->p) +
                     ", but the table has " + std::to_string(p) + " rank lines");
  if (header && header->q != static_cast<uint64_t>(q))
    throw InputError(source + ":" + std::to_string(header->line) + ": the header says q=" + std::to_string(header->q) +
                     ", but p = " + std::to_string(p) + " has q = " + std::to_string(q) + " (ceil(log2 p))");
  const size_t cols = 2 + 2 * static_cast<size_t>(q);
  charge(p * (sizeof(traff::RankSchedule) + 2 * (q * sizeof(int64_t) + 16)), rows.back().line,
         "the tables of its " + std::to_string(p) + " rank lines");
  std::vector<traff::RankSchedule> out(p);
  for (uint64_t r = 0; r < p; ++r) {
    const Row& row = rows[r];
    const std::string at = source + ":" + std::to_string(row.line) + ": ";
    if (row.count != cols)
      throw InputError(at + "expected " + std::to_string(cols) + " columns (rank baseblock recvblock[0.." +
                       std::to_string(q) + ") sendblock[0.." + std::to_string(q) + ") for p = " + std::to_string(p) +
                       " rank lines, q = " + std::to_string(q) + "), got " + std::to_string(row.count));
    std::vector<int64_t> v(cols);
    uint64_t marked = 0;  // sendblock[k] marked '*' (a violation) sets bit k
    size_t col = 0;
    tokens(row.begin, row.end, [&](const std::string_view token) {
      std::string_view t = token;
      const bool send_column = col >= 2 + static_cast<size_t>(q);
      if (send_column && t.size() > 1 && t.back() == '*') {
        t.remove_suffix(1);
        marked |= uint64_t{1} << (col - 2 - static_cast<size_t>(q));
      }
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v[col]);
      if (ec != std::errc() || end != t.data() + t.size())
        throw InputError(at + "column " + std::to_string(col + 1) + ": '" + std::string(token) + "' is not an integer" +
                         (send_column ? " (a sendblock may end in * for a violation)" : ""));
      return ++col < cols;
    });
    if (v[0] != static_cast<int64_t>(r))
      throw InputError(at + "expected rank " + std::to_string(r) + " (rank lines must be 0..p-1 in order), got " +
                       std::to_string(v[0]));
    if (v[1] < 0 || v[1] > q)
      throw InputError(at + "baseblock " + std::to_string(v[1]) + " of rank " + std::to_string(r) + " is outside 0.." +
                       std::to_string(q));
    for (size_t c = 2; c < cols; ++c)
      if (v[c] < -q || v[c] > q - 1) {
        const bool recv = c < 2 + static_cast<size_t>(q);
        const size_t k = recv ? c - 2 : c - 2 - static_cast<size_t>(q);
        throw InputError(at + (recv ? "recvblock[" : "sendblock[") + std::to_string(k) + "] = " + std::to_string(v[c]) +
                         " of rank " + std::to_string(r) + " is outside [-q, q-1] = [" + std::to_string(-q) + ", " +
                         std::to_string(q - 1) + "]");
      }
    out[r].baseblock = v[1];
    out[r].recvblock.assign(v.begin() + 2, v.begin() + 2 + q);
    out[r].sendblock.assign(v.begin() + 2 + q, v.end());
    out[r].violation_rounds = marked;
    out[r].violations = std::popcount(marked);
  }
  return out;
}

}  // namespace collcheck
