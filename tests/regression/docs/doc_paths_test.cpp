// The README and every page under docs/ (the architecture and design pages,
// the user guide in docs/guide/, the findings in docs/findings/, ...) must
// name files and folders that exist: every repository path they mention
// (schedules/..., properties/..., checker/..., tests/..., docs/..., ...) is
// checked against the source tree. Patterns with a placeholder (<family>,
// *) are checked with every family folder substituted (the families of the
// registry, schedules/registry.hpp), and must match at least one; a brace
// list (`file_io.{hpp,cpp}`) names each of its files.
// Their relative Markdown links ([verify](guide/verify.md)) must resolve
// too, from the page's own folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "schedules/registry.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = COLLCHECK_SOURCE_DIR;

// The folder name of every family of the registry, in registry order: a
// family's folder in each layer is to_string(FamilyId) (schedules/family.hpp),
// so a family added to families() is substituted for <family> at once.
const std::vector<std::string>& family_folders() {
  static const std::vector<std::string> folders = [] {
    std::vector<std::string> out;
    for (const Family& f : families()) out.push_back(to_string(f.id));
    return out;
  }();
  return folders;
}

// The repository paths a text mentions.
std::set<std::string> mentioned_paths(const std::string& text) {
  static const std::regex path(
      R"((?:^|[\s`(\[|])((?:schedules|topology|properties|smt|runtime|reports|checker|tests|bench|scripts|examples|docs|cmake)/(?:[A-Za-z0-9_./<>*-]|\{[A-Za-z0-9_.,]*\})*))");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), path); it != std::sregex_iterator(); ++it) {
    std::string p = (*it)[1];
    while (!p.empty() && (p.back() == '.' || p.back() == ',' || p.back() == ':')) p.pop_back();
    out.insert(p);
  }
  return out;
}

bool exists_somehow(std::string p) {
  // "{a,b}": every alternative must exist.
  if (const size_t lbrace = p.find('{'); lbrace != std::string::npos) {
    const size_t rbrace = p.find('}', lbrace);
    if (rbrace == std::string::npos) return false;
    const std::string alternatives = p.substr(lbrace + 1, rbrace - lbrace - 1);
    size_t from = 0;
    while (true) {
      const size_t comma = alternatives.find(',', from);
      const std::string alt = alternatives.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      if (alt.empty() || !exists_somehow(p.substr(0, lbrace) + alt + p.substr(rbrace + 1))) return false;
      if (comma == std::string::npos) return true;
      from = comma + 1;
    }
  }
  // "<name>" placeholders other than <family> and "*" stand for any file.
  if (p.find("<family>") != std::string::npos) {
    for (const std::string& f : family_folders()) {
      std::string q = std::regex_replace(p, std::regex("<family>"), f);
      if (exists_somehow(q)) return true;
    }
    return false;
  }
  const size_t wild = p.find_first_of("<*");
  if (wild != std::string::npos) {
    // The folder must exist, and a stem before the wildcard ("flow_interval.*")
    // must start some file's name in it.
    const size_t slash = p.rfind('/', wild);
    const fs::path dir = kRoot / p.substr(0, slash + 1);
    if (!fs::is_directory(dir)) return false;
    const std::string stem = p.substr(slash + 1, wild - slash - 1);
    if (stem.empty()) return true;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind(stem, 0) == 0) return true;
    return false;
  }
  return fs::exists(kRoot / p);
}

// `min_paths`: a page known to name many paths must still be found naming
// them (a pattern gone wrong would find none and pass).
void expect_paths_exist(const std::string& doc, size_t min_paths = 11) {
  const std::string text = read_file((kRoot / doc).string());
  ASSERT_FALSE(text.empty()) << doc;
  const auto paths = mentioned_paths(text);
  EXPECT_GE(paths.size(), min_paths) << doc << " names few paths: is the pattern still right?";
  for (const std::string& p : paths) EXPECT_TRUE(exists_somehow(p)) << doc << " names " << p << ", which does not exist";
}

// The targets of a page's relative Markdown links, outside fenced code
// blocks: "[text](target)" without a scheme; "#anchor" parts dropped.
std::vector<std::string> relative_links(const std::string& text) {
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  std::vector<std::string> out;
  bool code = false;
  size_t from = 0;
  while (from < text.size()) {
    const size_t eol = text.find('\n', from);
    const std::string line = text.substr(from, eol == std::string::npos ? std::string::npos : eol - from);
    from = eol == std::string::npos ? text.size() : eol + 1;
    if (line.rfind("```", 0) == 0) {
      code = !code;
      continue;
    }
    if (code) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), link); it != std::sregex_iterator(); ++it) {
      std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      target = target.substr(0, target.find('#'));
      if (!target.empty()) out.push_back(target);
    }
  }
  return out;
}

void expect_links_resolve(const std::string& doc) {
  const std::string text = read_file((kRoot / doc).string());
  ASSERT_FALSE(text.empty()) << doc;
  const fs::path dir = (kRoot / doc).parent_path();
  for (const std::string& target : relative_links(text))
    EXPECT_TRUE(fs::exists(dir / target)) << doc << " links to " << target << ", which does not exist";
}

// README.md and every Markdown page under docs/, as paths from the root.
std::vector<std::string> documentation_pages() {
  std::vector<std::string> out = {"README.md"};
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "docs"))
    if (e.is_regular_file() && e.path().extension() == ".md")
      out.push_back(fs::relative(e.path(), kRoot).generic_string());
  return out;
}

TEST(DocPaths, ArchitecturePageNamesExistingFiles) { expect_paths_exist("docs/architecture.md"); }
TEST(DocPaths, DesignPageNamesExistingFiles) { expect_paths_exist("docs/design.md"); }
TEST(DocPaths, ReadmeNamesExistingFiles) { expect_paths_exist("README.md"); }
TEST(DocPaths, PropertiesPageNamesExistingFiles) { expect_paths_exist("docs/properties.md"); }

TEST(DocPaths, EveryPageNamesExistingFilesAndLinksExistingPages) {
  const std::vector<std::string> pages = documentation_pages();
  // The guide (one page per subcommand) and the findings are there.
  EXPECT_GE(pages.size(), 20u);
  for (const char* must : {"docs/guide/verify.md", "docs/guide/check-file.md", "docs/guide/mpi.md",
                           "docs/findings/swing.md", "docs/algorithms.md", "docs/performance.md"})
    EXPECT_TRUE(std::find(pages.begin(), pages.end(), must) != pages.end()) << must;
  for (const std::string& doc : pages) {
    SCOPED_TRACE(doc);
    expect_paths_exist(doc, 0);
    expect_links_resolve(doc);
  }
}

// The families substituted for <family> are the registry's, each with its
// folder under schedules/.
TEST(DocPaths, FamilyFoldersAreTheRegistrys) {
  ASSERT_EQ(family_folders().size(), families().size());
  for (const std::string& f : family_folders())
    EXPECT_TRUE(fs::is_directory(kRoot / "schedules" / f)) << "no folder schedules/" << f << "/";
  // bucket_torus.hpp is in the bucket family's folder only.
  EXPECT_TRUE(exists_somehow("schedules/<family>/bucket_torus.hpp"));
}

// docs/architecture.md is the one map of the source: every folder of the
// tree appears in it (tests/ down to its labels: below them the folders
// mirror the source).
TEST(DocPaths, TheArchitectureMapNamesEveryFolder) {
  const std::string map = read_file((kRoot / "docs" / "architecture.md").string());
  for (const char* top : {"schedules", "topology", "properties", "smt", "runtime", "reports", "checker", "bench",
                          "scripts", "examples", "cmake", "tests"}) {
    const int depth = std::string(top) == "tests" ? 1 : 8;
    for (auto it = fs::recursive_directory_iterator(kRoot / top); it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_directory()) continue;
      if (it.depth() >= depth) {
        it.disable_recursion_pending();
        continue;
      }
      const std::string rel = fs::relative(it->path(), kRoot).generic_string() + "/";
      EXPECT_NE(map.find(rel), std::string::npos) << "docs/architecture.md does not name " << rel;
    }
  }
}

TEST(DocPaths, TheCheckCanFail) {
  EXPECT_TRUE(exists_somehow("schedules/registry.cpp"));
  EXPECT_TRUE(exists_somehow("schedules/<family>/"));
  EXPECT_FALSE(exists_somehow("schedules/<family>/no_such_file.hpp"));
  EXPECT_FALSE(exists_somehow("schedules/registry_old.cpp"));
  EXPECT_FALSE(exists_somehow("importers/msccl_xml.cpp"));
  EXPECT_TRUE(exists_somehow("properties/flow/flow_interval.*"));
  EXPECT_FALSE(exists_somehow("properties/flow_interval.*"));
  EXPECT_EQ(mentioned_paths("see `checker/sweep/sweep.cpp`, and schedules/family.hpp."),
            (std::set<std::string>{"checker/sweep/sweep.cpp", "schedules/family.hpp"}));
  EXPECT_EQ(mentioned_paths("Code: `checker/sweep/results_store.{hpp,cpp}` (the store)"),
            (std::set<std::string>{"checker/sweep/results_store.{hpp,cpp}"}));
  EXPECT_EQ(mentioned_paths("routed by `topology/link_load.hpp`, see [examples/build-a-schedule/](x)."),
            (std::set<std::string>{"topology/link_load.hpp", "examples/build-a-schedule/"}));
  EXPECT_TRUE(exists_somehow("topology/link_load.hpp"));
  EXPECT_FALSE(exists_somehow("topology/torus_routing.hpp"));
  EXPECT_TRUE(exists_somehow("examples/build-a-schedule/"));
  EXPECT_FALSE(exists_somehow("examples/allreduce/"));
  EXPECT_TRUE(exists_somehow("checker/sweep/results_store.{hpp,cpp}"));
  EXPECT_FALSE(exists_somehow("checker/sweep/results_store.{hpp,txt}"));
  EXPECT_EQ(relative_links("[verify](guide/verify.md#examples), [web](https://example.org)\n```\n[x](no.md)\n```\n"),
            (std::vector<std::string>{"guide/verify.md"}));
  EXPECT_TRUE(fs::exists(kRoot / "docs" / "guide/verify.md"));
}

}  // namespace
}  // namespace collcheck::test
