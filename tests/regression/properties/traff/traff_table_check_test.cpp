// `collcheck check-file --schedule-format traff-table` end to end with the real
// binary (COLLCHECK_BINARY): tables written by `dump --algo traff --format
// traff-table` for p = 9, 17, 18 (the paper's Tables 2, 1, 3) and p = 100 check
// (exit 0); a corrupted cell gives exit 1 with the traff-conditions
// counterexample at the corrupted rank and round; malformed files give exit 2
// with a one-line error; the dump's violation marks ('*') are read back.
#include <gtest/gtest.h>

#include "schedules/formats/traff_table.hpp"
#include "schedules/traff/traff_circulant.hpp"
#include "tests/support/run_binary.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

using collcheck::test::Outcome;
using collcheck::test::lines;
using collcheck::test::run;
using collcheck::test::temp_path;
using collcheck::parse_traff_table;
namespace test = collcheck::test;
namespace traff = collcheck::traff;


void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

// The table of `dump --algo traff --p P --format traff-table`, written to a file.
std::string dumped_table(uint64_t p) {
  const std::string path = temp_path("p" + std::to_string(p) + ".txt");
  Outcome d = run("dump --algo traff --p " + std::to_string(p) + " --format traff-table --out " + path);
  EXPECT_EQ(d.code, 0) << d.err;
  return path;
}

std::vector<std::vector<std::string>> read_rows(const std::string& path, std::string* header) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(f, line);) {
    if (!line.empty() && line[0] == '#') {
      *header = line;
      continue;
    }
    std::istringstream ls(line);
    std::vector<std::string> row;
    for (std::string t; ls >> t;) row.push_back(t);
    if (!row.empty()) rows.push_back(row);
  }
  return rows;
}

std::string join(const std::string& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out = header + "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i ? " " : "") + row[i];
    out += "\n";
  }
  return out;
}

nlohmann::json check_json(const std::string& path, int want_code, const std::string& extra = "") {
  Outcome r = run("check-file --schedule-format traff-table " + path + " --quiet --format json " + extra);
  EXPECT_EQ(r.code, want_code) << r.out << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

const nlohmann::json* verdict(const nlohmann::json& report, const std::string& property) {
  if (!report.is_object() || !report.contains("instances") || report["instances"].empty()) return nullptr;
  for (const auto& v : report["instances"][0]["verdicts"])
    if (v["property"] == property) return &v;
  return nullptr;
}

TEST(TraffTableCheck, DumpedTablesHold) {
  for (uint64_t p : {9, 17, 18, 100}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const std::string path = dumped_table(p);
    nlohmann::json j = check_json(path, 0);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["kind"], "check-file");
    ASSERT_EQ(j["instances"].size(), 1u);
    EXPECT_EQ(j["instances"][0]["p"], p);
    for (const char* prop : {"matching", "ports", "causality", "exactly-once", "postcondition", "cost", "traff-conditions"}) {
      const nlohmann::json* v = verdict(j, prop);
      ASSERT_NE(v, nullptr) << prop;
      EXPECT_EQ((*v)["status"], "holds") << prop;
    }
    // Other block counts and roots drive Algorithm 1 with the same tables.
    Outcome r = run("check-file --schedule-format traff-table " + path + " --quiet --n 13 --root " + std::to_string(p - 1));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("RESULT: holds"), std::string::npos) << r.out;
  }
}

TEST(TraffTableCheck, SwappedRecvblocksAreViolated) {
  // p = 17, rank 1: recvblock = 0 -4 -2 -3 -1 (Table 1). Swapping rounds 1 and 2
  // breaks condition 1 at rank 1 in round 1 (its from-processor 1 - 2 = 16
  // sends -4 there); every other failure is at a larger (rank, round).
  std::string header;
  auto rows = read_rows(dumped_table(17), &header);
  ASSERT_EQ(rows.size(), 17u);
  ASSERT_EQ(rows[1].size(), 12u);
  ASSERT_EQ(rows[1][3], "-4");
  ASSERT_EQ(rows[1][4], "-2");
  std::swap(rows[1][3], rows[1][4]);
  const std::string path = temp_path("swapped.txt");
  write_file(path, join(header, rows));
  nlohmann::json j = check_json(path, 1);
  const nlohmann::json* v = verdict(j, "traff-conditions");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ((*v)["status"], "violated");
  const auto& cx = (*v)["counterexample"];
  EXPECT_EQ(cx["rank"], 1);
  EXPECT_EQ(cx["step"], 1);
  EXPECT_EQ(cx["expected"], "recvblock[1]_1 = -4 (sendblock[k] of the from-processor 16)");
  EXPECT_EQ(cx["actual"], "recvblock[1]_1 = -2");
  Outcome text = run("check-file --schedule-format traff-table " + path + " --quiet");
  EXPECT_EQ(text.code, 1);
  EXPECT_NE(text.out.find("traff-conditions violated at p=17"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Träff condition 1 fails for rank 1 in round k = 1"), std::string::npos) << text.out;
}

TEST(TraffTableCheck, ChangedSendblockIsViolated) {
  // p = 18, rank 2 sends sendblock[3] = 1 to 2 + skip[3] = 7 in round 3
  // (Table 3); make it -3 (its recvblock[2], so condition 4 still holds):
  // condition 2 fails at rank 2, round 3, and the broadcast breaks too.
  std::string header;
  auto rows = read_rows(dumped_table(18), &header);
  ASSERT_EQ(rows.size(), 18u);
  const size_t q = 5, col = 2 + q + 3;
  ASSERT_EQ(rows[2][col], "1");
  ASSERT_EQ(rows[2][2 + 2], "-3");
  rows[2][col] = "-3";
  const std::string path = temp_path("sendblock.txt");
  write_file(path, join(header, rows));
  nlohmann::json j = check_json(path, 1);
  const nlohmann::json* v = verdict(j, "traff-conditions");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ((*v)["status"], "violated");
  const auto& cx = (*v)["counterexample"];
  EXPECT_EQ(cx["rank"], 2);
  EXPECT_EQ(cx["step"], 3);
  EXPECT_EQ(cx["peer"], 7);
  EXPECT_EQ(cx["actual"], "sendblock[3]_2 = -3");
  EXPECT_EQ(j["instances"][0]["status"], "violated");
}

// dump marks the send-schedule violations (Theorem 3) with '*': Table 1's
// p = 17 has 22 (1 rank with none, 10 with one, 6 with two), among them
// rank 3's in round 2 and rank 8's in round 4 (the paper's prose says round 3;
// traff_circulant_test derives both by hand). The reader takes the marks back
// (the same rounds as Algorithm 6), check-file accepts the marked dump and the
// unmarked table alike.
TEST(TraffTableCheck, DumpMarksViolationsAndReadsThemBack) {
  std::string header;
  const std::string path = dumped_table(17);
  const auto rows = read_rows(path, &header);
  ASSERT_EQ(rows.size(), 17u);
  EXPECT_NE(header.find("a sendblock marked * is a send-schedule violation"), std::string::npos) << header;
  const size_t q = 5;
  size_t marks = 0;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      if (row[c].back() == '*') {
        ++marks;
        EXPECT_GE(c, 2 + q) << "only sendblock cells are marked";
      }
  EXPECT_EQ(marks, 22u);
  EXPECT_EQ(rows[3][2 + q + 2], "-4*");
  EXPECT_EQ(rows[8][2 + q + 4], "-3*");
  EXPECT_EQ(rows[8][2 + q + 3], "-2") << "round 3 of rank 8 is no violation";

  const auto read = parse_traff_table(test::read_file(path), path);
  const auto skip = traff::skips(17);
  ASSERT_EQ(read.size(), 17u);
  for (uint64_t r = 0; r < 17; ++r) {
    const auto rs = traff::rank_schedule(r, skip);
    EXPECT_EQ(read[r].violation_rounds, rs.violation_rounds) << r;
    EXPECT_EQ(read[r].violations, rs.violations) << r;
    EXPECT_EQ(read[r].sendblock, rs.sendblock) << r;
  }

  EXPECT_EQ(check_json(path, 0).at("status"), "holds");
  auto unmarked = rows;
  for (auto& row : unmarked)
    for (auto& cell : row)
      if (cell.back() == '*') cell.pop_back();
  const std::string plain = temp_path("p17_unmarked.txt");
  write_file(plain, join(header, unmarked));
  EXPECT_EQ(check_json(plain, 0).at("status"), "holds");
  for (const auto& row : parse_traff_table(test::read_file(plain), plain)) EXPECT_EQ(row.violation_rounds, 0u);
}

void expect_bad_file(const std::string& name, const std::string& text, const std::string& needle,
                     const std::string& extra = "") {
  SCOPED_TRACE(name);
  const std::string path = temp_path(name);
  write_file(path, text);
  Outcome r = run("check-file --schedule-format traff-table " + path + " --quiet " + extra);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("collcheck: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Reading the tables is under --max-memory (the text up
// front, the rows as they are read), and whitespace costs nothing.
TEST(TraffTableCheck, ReadingIsGuardedAndWhitespaceIsFree) {
  const std::string path = temp_path("traff_big.txt"), table9 = collcheck::test::read_file(dumped_table(9));
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string(8 << 20, '\n') << std::string(8 << 20, ' ') << "\n" << table9;
  }
  EXPECT_EQ(run("check-file " + path + " --schedule-format traff-table -q").code, 0);
  auto r = run("check-file " + path + " --schedule-format traff-table --max-memory 8M -q");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err, "collcheck: refused by the memory guard while reading " + path +
                       ": its text takes an estimated 16 MiB, more than --max-memory 8 MiB\n");
  {
    std::ofstream f(path, std::ios::binary);
    f << collcheck::test::read_file(dumped_table(70000));
  }
  // 8.1 MiB of text, 2.1 MiB of rank lines, 21 MiB of tables.
  r = run("check-file " + path + " --schedule-format traff-table --max-memory 10M -q");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err.rfind("collcheck: refused by the memory guard while reading " + path + ", at line ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" rank lines read so far takes an estimated "), std::string::npos) << r.err;
  r = run("check-file " + path + " --schedule-format traff-table --max-memory 16M -q");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(", at line 70001: the text with the tables of its 70000 rank lines takes "), std::string::npos)
      << r.err;
  std::remove(path.c_str());
}

TEST(TraffTableCheck, MalformedFilesAreBadInput) {
  std::string header;
  const auto good = read_rows(dumped_table(9), &header);  // q = 4: 10 columns
  ASSERT_EQ(good.size(), 9u);
  {
    auto rows = good;
    rows[5].pop_back();
    expect_bad_file("missing_column.txt", join(header, rows), ":7: expected 10 columns");
  }
  {
    auto rows = good;
    rows[3][4] = "4";  // recvblock[2] of rank 3; q - 1 = 3 is the largest
    expect_bad_file("recv_range.txt", join(header, rows), "recvblock[2] = 4 of rank 3 is outside [-q, q-1] = [-4, 3]");
  }
  {
    auto rows = good;
    rows[2][9] = "-5";
    expect_bad_file("send_range.txt", join(header, rows), "sendblock[3] = -5 of rank 2 is outside [-q, q-1]");
  }
  {
    auto rows = good;
    rows[1][1] = "5";
    expect_bad_file("baseblock_range.txt", join(header, rows), "baseblock 5 of rank 1 is outside 0..4");
  }
  {
    auto rows = good;
    rows[4][6] = "two";
    expect_bad_file("text.txt", join(header, rows), ":6: column 7: 'two' is not an integer");
  }
  {
    auto rows = good;
    rows[4][6] = "1.5";
    expect_bad_file("fraction.txt", join(header, rows), "'1.5' is not an integer");
  }
  {
    auto rows = good;
    std::swap(rows[3], rows[4]);
    expect_bad_file("order.txt", join(header, rows), "expected rank 3 (rank lines must be 0..p-1 in order), got 4");
  }
  {
    auto rows = good;
    rows.pop_back();  // p = 8: q = 3, so every line has two columns too many
    expect_bad_file("p8.txt", join("# traff-table p=8 q=3: rank ...", rows), "expected 8 columns");
  }
  // The header comes first: a table without it, or with a mistyped one (read
  // as a comment before), is malformed.
  expect_bad_file("no_header.txt", join("", good),
                  ":2: expected the header '# traff-table p=P q=Q: ...' (as dump --format traff-table writes it) "
                  "before anything else, got '0 4 -2 -3 -1 -4 0 1 2 3'");
  {
    std::string h = header;
    h.replace(h.find("traff-table"), 11, "traf-table");
    expect_bad_file("header_mistyped.txt", join(h, good),
                    ":1: expected the header '# traff-table p=P q=Q: ...' (as dump --format traff-table writes it) "
                    "before anything else, got '# traf-table p=9 q=4: rank baseblock");
  }
  expect_bad_file("comment_first.txt", join("# my table\n" + header, good), ":1: expected the header");
  expect_bad_file("blank.txt", "\n \n", "no '# traff-table p=P q=Q: ...' header and no rank lines");
  // The header (traff_table writes "# traff-table p=9 q=4: ...") is checked
  // against the rank lines (the outside audit: any p= and q= were taken).
  {
    auto rows = good;
    rows.pop_back();
    expect_bad_file("header_p.txt", join(header, rows), ":1: the header says p=9, but the table has 8 rank lines");
  }
  {
    std::string h = header;
    h.replace(h.find("q=4"), 3, "q=3");
    expect_bad_file("header_q.txt", join(h, good), ":1: the header says q=3, but p = 9 has q = 4 (ceil(log2 p))");
  }
  expect_bad_file("header_malformed.txt", join("# traff-table p=nine q=4: rank ...", good),
                  ":1: malformed '# traff-table' header: expected '# traff-table p=P q=Q: ...'");
  expect_bad_file("header_twice.txt", join(header + "\n" + header, good),
                  ":2: a second '# traff-table' header (the first is on line 1)");
  expect_bad_file("header_nospace.txt", join("#traff-table p=10 q=4", good),
                  ":1: the header says p=10, but the table has 9 rank lines");
  {
    auto rows = good;
    rows[3][4] = "2*";  // a violation mark on recvblock[2] of rank 3 (= 2)
    expect_bad_file("recv_mark.txt", join(header, rows), ":5: column 5: '2*' is not an integer\n");
  }
  {
    auto rows = good;
    rows[3][8] = "-3**";  // sendblock[2] of rank 3 is -3*, a violation
    expect_bad_file("double_mark.txt", join(header, rows),
                    "'-3**' is not an integer (a sendblock may end in * for a violation)");
  }
  {
    auto rows = good;
    rows[3][8] = "*";
    expect_bad_file("lone_mark.txt", join(header, rows), "column 9: '*' is not an integer");
  }
  {
    auto rows = good;
    rows[2].resize(100000, "0");  // counted, not kept: the message says how many
    expect_bad_file("wide.txt", join(header, rows), ":4: expected 10 columns (rank baseblock recvblock[0..4) "
                                                    "sendblock[0..4) for p = 9 rank lines, q = 4), got 100000");
  }
  expect_bad_file("empty.txt", header + "\n", "no rank lines");
  expect_bad_file("root.txt", join(header, good), "root must be in 0..p-1", "--root 9");
}

}  // namespace
