// What README.md, docs/ and `collcheck list` say about the Swing paper's
// rules, against the registry (issue 14, items 1 and 2):
//
//  * every Listing 1 / de-duplication reading says in `list` whether it is
//    the printed text or collcheck's reading, and only the printed call says
//    "as printed";
//  * "verbatim" appears nowhere (it was false: the variant so described was
//    not the printed code);
//  * README's algorithms table has a row for every Swing variant, and its
//    Swing findings section names every refuted Swing variant with its
//    minimal p (the known_failure's "minimal p = N").
#include <gtest/gtest.h>

#include <cctype>
#include <regex>
#include <string>

#include "schedules/registry.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck {
namespace {

using test::Outcome;
using test::read_file;
using test::run;

std::string source(const std::string& rel) {
  std::string text = read_file(std::string(COLLCHECK_SOURCE_DIR) + "/" + rel);
  if (text.empty()) ADD_FAILURE() << "cannot read " << rel;
  return text;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The text between `heading` and the next "## " heading.
std::string section(const std::string& text, const std::string& heading) {
  const size_t a = text.find(heading);
  if (a == std::string::npos) return "";
  const size_t b = text.find("\n## ", a + heading.size());
  return text.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// The summary line `list` prints for swing/NAME.
std::string list_line(const std::string& list, const std::string& name) {
  const std::string key = " " + name + ": ";
  const size_t a = list.find(key);
  if (a == std::string::npos) return "";
  return list.substr(a, list.find('\n', a) - a);
}

TEST(PaperWording, ListSaysWhichSwingReadingIsThePrintedText) {
  Outcome r = run("list");
  ASSERT_EQ(r.code, 0) << r.err;
  int readings = 0;
  for (const VariantInfo& v : find_algorithm("swing")->variants) {
    if (v.reference.find("Listing 1") == std::string::npos || v.expected_to_hold) continue;
    ++readings;
    const std::string line = list_line(r.out, v.name);
    ASSERT_FALSE(line.empty()) << v.name;
    const bool printed = line.find("as printed") != std::string::npos;
    const bool read = line.find("collcheck's") != std::string::npos;
    EXPECT_NE(printed, read) << line;
    EXPECT_EQ(printed, v.name == "paper-listing1-printed") << line;
  }
  EXPECT_EQ(readings, 7);  // Listing 1 twice, the de-duplication five times
  // The default names both of its departures from the text.
  const std::string bw = list_line(r.out, "bandwidth");
  EXPECT_NE(bw.find("last listing"), std::string::npos) << bw;
  EXPECT_NE(bw.find("never the rank's own block"), std::string::npos) << bw;
}

TEST(PaperWording, NothingClaimsToBeVerbatim) {
  Outcome r = run("list");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lower(r.out).find("verbatim"), std::string::npos);
  for (const char* doc : {"README.md", "docs/design.md", "docs/schedule-format.md", "docs/deployment-report.md",
                          "docs/results-store.md", "docs/msccl-xml.md"})
    EXPECT_EQ(lower(source(doc)).find("verbatim"), std::string::npos) << doc;
}

TEST(PaperWording, ReadmeListsEverySwingVariantAndEveryRefutedOneWithItsMinimalP) {
  const std::string readme = source("README.md");
  const std::string table = section(readme, "## Algorithms");
  const std::string found = section(readme, "## What collcheck found in the Swing paper");
  ASSERT_FALSE(table.empty());
  ASSERT_FALSE(found.empty());
  const std::regex minimal("minimal p = ([0-9]+)");
  for (const VariantInfo& v : find_algorithm("swing")->variants) {
    // A table row "| swing | ... NAME ... |" (bold for the default).
    const std::regex row("\\n\\| swing \\| [^|]*\\b" + std::regex_replace(v.name, std::regex("-"), "\\-") +
                         "\\b[^|]*\\|");
    EXPECT_TRUE(std::regex_search(table, row)) << "no README table row for swing/" << v.name;
    if (v.expected_to_hold) continue;
    EXPECT_NE(found.find("`" + v.name + "`"), std::string::npos) << v.name << " missing from the findings";
    for (std::sregex_iterator it(v.known_failure.begin(), v.known_failure.end(), minimal), end; it != end; ++it)
      EXPECT_NE(found.find("p = " + (*it)[1].str()), std::string::npos) << v.name << ": " << (*it)[0];
  }
}

}  // namespace
}  // namespace collcheck
