// What README.md, docs/ and `collcheck list` say about the Swing paper's
// rules, against the registry:
//
//  * every Listing 1 / de-duplication reading says in `list` whether it is
//    the printed text or collcheck's reading, and only the printed call says
//    "as printed";
//  * "verbatim" appears nowhere: not in `list`, README.md or any page under
//    docs/ (it was false: the variant so described was not the printed code);
//  * the README's brief algorithms table and the full one in
//    docs/algorithms.md each have a row for every Swing variant, and
//    docs/findings/swing.md names every refuted Swing variant with its
//    minimal p (the known_failure's "minimal p = N").
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

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

// README.md and every Markdown page under docs/ (guide/, findings/, ...).
std::vector<std::string> documentation_pages() {
  namespace fs = std::filesystem;
  std::vector<std::string> out = {"README.md"};
  const fs::path root = COLLCHECK_SOURCE_DIR;
  for (const auto& e : fs::recursive_directory_iterator(root / "docs"))
    if (e.is_regular_file() && e.path().extension() == ".md")
      out.push_back(fs::relative(e.path(), root).generic_string());
  return out;
}

TEST(PaperWording, NothingClaimsToBeVerbatim) {
  Outcome r = run("list");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lower(r.out).find("verbatim"), std::string::npos);
  const std::vector<std::string> docs = documentation_pages();
  // The pages this test was written for, and the guide and findings pages.
  for (const char* must : {"docs/design.md", "docs/schedule-format.md", "docs/deployment-report.md",
                           "docs/results-store.md", "docs/msccl-xml.md", "docs/algorithms.md", "docs/properties.md",
                           "docs/findings/swing.md", "docs/guide/verify.md"})
    EXPECT_TRUE(std::find(docs.begin(), docs.end(), must) != docs.end()) << must << " not found under docs/";
  for (const std::string& doc : docs) EXPECT_EQ(lower(source(doc)).find("verbatim"), std::string::npos) << doc;
}

TEST(PaperWording, ReadmeListsEverySwingVariantAndEveryRefutedOneWithItsMinimalP) {
  // README.md's brief table and docs/algorithms.md's full one; the findings
  // page from its title to the end.
  const std::string brief = section(source("README.md"), "\n## Algorithms and properties\n");
  const std::string full = section(source("docs/algorithms.md"), "\n## Every algorithm and variant\n");
  const std::string found = source("docs/findings/swing.md");
  ASSERT_FALSE(brief.empty()) << "README.md has no \"## Algorithms and properties\" section";
  ASSERT_FALSE(full.empty()) << "docs/algorithms.md has no \"## Every algorithm and variant\" section";
  ASSERT_EQ(found.rfind("# What collcheck found in the Swing paper\n", 0), 0u) << "docs/findings/swing.md's title";
  const std::regex minimal("minimal p = ([0-9]+)");
  for (const VariantInfo& v : find_algorithm("swing")->variants) {
    // A table row "| swing | ... NAME ... |" (bold for the default).
    const std::regex row("\\n\\| swing \\| [^|]*\\b" + std::regex_replace(v.name, std::regex("-"), "\\-") +
                         "\\b[^|]*\\|");
    EXPECT_TRUE(std::regex_search(brief, row)) << "no row for swing/" << v.name << " in README.md's table";
    EXPECT_TRUE(std::regex_search(full, row)) << "no row for swing/" << v.name << " in docs/algorithms.md's table";
    if (v.expected_to_hold) continue;
    EXPECT_NE(found.find("`" + v.name + "`"), std::string::npos) << v.name << " missing from the findings";
    for (std::sregex_iterator it(v.known_failure.begin(), v.known_failure.end(), minimal), end; it != end; ++it)
      // The whole number: "p = 4" is not found in "p = 48".
      EXPECT_TRUE(std::regex_search(found, std::regex("p = " + (*it)[1].str() + "(?![0-9])")))
          << v.name << ": " << (*it)[0];
  }
}

}  // namespace
}  // namespace collcheck
