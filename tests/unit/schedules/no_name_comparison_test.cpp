// Nothing outside a family's own files compares algorithm or
// variant names as strings. Scans the non-test source tree (every .cpp/.hpp
// outside tests/ and outside schedules/<f>/, properties/<f>/, smt/<f>/ of a
// registered family f) for a comparison with a registered algorithm or
// variant name, the names taken from the registry at test time:
//   == "NAME", != "NAME", "NAME" ==, "NAME" !=, rfind/find/compare/starts_with("NAME".
// One exception, by file and word: the file-format readers
// (schedules/formats/) parse the schedule model's own vocabulary, the
// collective names and the combine mode "reduce", some of which are also
// Träff variant names ("allreduce", "reduce", ...).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "schedules/collective.hpp"
#include "schedules/registry.hpp"

namespace collcheck {
namespace {

namespace fs = std::filesystem;

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// Every comparison of `text` with one of `names`, as "line: text".
std::vector<std::string> comparisons(const std::string& text, const std::set<std::string>& names) {
  std::string alt;
  for (const std::string& n : names) alt += (alt.empty() ? "" : "|") + escape(n);
  const std::string lit = "\"(" + alt + ")\"";
  const std::regex re("(==|!=)\\s*" + lit + "|" + lit + "\\s*(==|!=)|(rfind|find|compare|starts_with)\\(\\s*" + lit);
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no)
    if (std::regex_search(line, re)) out.push_back(std::to_string(no) + ": " + line);
  return out;
}

std::set<std::string> registered_names() {
  std::set<std::string> out;
  for (const AlgorithmInfo& a : registry()) {
    out.insert(a.name);
    for (const VariantInfo& v : a.variants) out.insert(v.name);
  }
  return out;
}

// The schedule model's vocabulary the format readers parse.
std::set<std::string> model_vocabulary() {
  std::set<std::string> out = {"reduce", "copy"};
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather, Collective::broadcast,
                       Collective::reduce, Collective::alltoall})
    out.insert(to_string(c));
  return out;
}

TEST(NoNameComparison, TheScanFindsWhatItLooksFor) {
  const std::set<std::string> names = {"tra", "traff", "paper-literal"};
  EXPECT_EQ(comparisons("if (algo == \"tra\") x();", names).size(), 1u);
  EXPECT_EQ(comparisons("if (\"paper-literal\" != v) x();", names).size(), 1u);
  EXPECT_EQ(comparisons("return algo.rfind(\"traff\", 0) == 0;", names).size(), 1u);
  EXPECT_EQ(comparisons("if (algo == \"tra2\") x();", names).size(), 0u);  // not a listed name
  EXPECT_EQ(comparisons("std::string s = \"tra\";", names).size(), 0u);    // not a comparison
}

TEST(NoNameComparison, NoneOutsideTheFamiliesFiles) {
  const fs::path root = COLLCHECK_SOURCE_DIR;
  std::set<std::string> family_dirs;
  for (const Family& f : families())
    for (const char* layer : {"schedules", "properties", "smt"})
      family_dirs.insert((root / layer / to_string(f.id)).lexically_normal().string() + "/");
  const std::set<std::string> names = registered_names();
  std::set<std::string> reader_names;  // for schedules/formats/: the names that are not model vocabulary
  for (const std::string& n : names)
    if (!model_vocabulary().count(n)) reader_names.insert(n);
  const std::string formats = (root / "schedules" / "formats").lexically_normal().string() + "/";

  int files = 0;
  std::vector<std::string> found;
  for (const char* top : {"checker", "schedules", "properties", "smt", "runtime", "reports", "bench"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      const std::string path = e.path().lexically_normal().string();
      bool own = false;
      for (const std::string& d : family_dirs) own = own || path.rfind(d, 0) == 0;
      if (own) continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      const bool reader = path.rfind(formats, 0) == 0;
      for (const std::string& hit : comparisons(text.str(), reader ? reader_names : names))
        found.push_back(fs::relative(e.path(), root).string() + ":" + hit);
    }
  }
  EXPECT_GT(files, 50) << "the scan saw too few files; is COLLCHECK_SOURCE_DIR right?";
  std::string all;
  for (const std::string& f : found) all += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "algorithm or variant names compared as strings outside their family's files:" << all;
}

}  // namespace
}  // namespace collcheck
