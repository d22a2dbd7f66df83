// scripts/bench compares measured figures with bench/figures.tsv; the README's
// performance table shows the same figures. This keeps the two equal (not a
// timed test: nothing is measured here): every figures.tsv row's command
// appears in the README's performance section on a table row that also
// states the figure ("**<seconds> s**") and when and where it was measured.
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

std::string performance_section() {
  const std::string readme = read_file(std::string(COLLCHECK_SOURCE_DIR) + "/README.md");
  const size_t a = readme.find("## Performance");
  EXPECT_NE(a, std::string::npos);
  const size_t b = readme.find("\n## ", a + 1);
  return readme.substr(a, b - a);
}

TEST(BenchFigures, EveryFigureIsTheReadmeTablesFigure) {
  const std::string perf = performance_section();
  const auto rows = figures();
  ASSERT_GE(rows.size(), 5u);
  for (const Figure& f : rows) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(f.quick == "quick" || f.quick == "full") << f.quick;
    EXPECT_GT(std::stod(f.seconds), 0);
    const std::string cmd = "`" + f.command + "`";
    const size_t at = perf.find(cmd);
    ASSERT_NE(at, std::string::npos) << "the README's performance table does not show " << cmd;
    const size_t row_start = perf.rfind('\n', at) + 1;
    const std::string row = perf.substr(row_start, perf.find('\n', at) - row_start);
    EXPECT_NE(row.find("**" + f.seconds + " s**"), std::string::npos)
        << "the README row does not state the figure **" << f.seconds << " s**: " << row;
    EXPECT_NE(row.find(f.measured_on), std::string::npos)
        << "the README row does not say where and when: " << f.measured_on << "\n" << row;
  }
}

}  // namespace
}  // namespace collcheck::test
