// scripts/bench compares measured figures with bench/figures.tsv; the table
// of docs/performance.md (its "## Figures" section) shows the same figures.
// This keeps the two equal (not a timed test: nothing is measured here):
// every figures.tsv row's command appears in that section on a table row that
// also states the figure ("**<seconds> s**") and when and where it was
// measured.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

struct Figure {
  std::string name, seconds, quick, measured_on, command;
};

std::vector<Figure> figures() {
  std::vector<Figure> out;
  std::istringstream in(read_file(std::string(COLLCHECK_SOURCE_DIR) + "/bench/figures.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::istringstream row(line);
    std::string c;
    while (std::getline(row, c, '\t')) cols.push_back(c);
    EXPECT_EQ(cols.size(), 5u) << line;
    if (cols.size() == 5) out.push_back({cols[0], cols[1], cols[2], cols[3], cols[4]});
  }
  return out;
}

// The "## Figures" section of docs/performance.md, up to the next "## " heading.
std::string performance_section() {
  const std::string page = read_file(std::string(COLLCHECK_SOURCE_DIR) + "/docs/performance.md");
  const size_t a = page.find("\n## Figures\n");
  EXPECT_NE(a, std::string::npos) << "docs/performance.md has no \"## Figures\" section";
  if (a == std::string::npos) return "";
  const size_t b = page.find("\n## ", a + 1);
  return page.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

TEST(BenchFigures, EveryFigureIsThePerformanceTablesFigure) {
  const std::string perf = performance_section();
  const auto rows = figures();
  ASSERT_GE(rows.size(), 5u);
  for (const Figure& f : rows) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(f.quick == "quick" || f.quick == "full") << f.quick;
    EXPECT_GT(std::stod(f.seconds), 0);
    const std::string cmd = "`" + f.command + "`";
    const size_t at = perf.find(cmd);
    ASSERT_NE(at, std::string::npos) << "the table of docs/performance.md does not show " << cmd;
    const size_t row_start = perf.rfind('\n', at) + 1;
    const std::string row = perf.substr(row_start, perf.find('\n', at) - row_start);
    EXPECT_EQ(row.rfind("| ", 0), 0u) << "not a table row: " << row;
    EXPECT_NE(row.find("**" + f.seconds + " s**"), std::string::npos)
        << "the docs/performance.md row does not state the figure **" << f.seconds << " s**: " << row;
    EXPECT_NE(row.find(f.measured_on), std::string::npos)
        << "the docs/performance.md row does not say where and when: " << f.measured_on << "\n" << row;
  }
}

}  // namespace
}  // namespace collcheck::test
