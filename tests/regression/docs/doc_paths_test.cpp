// The architecture page (docs/architecture.md), docs/design.md and the README must
// name files and folders that exist: every repository path they mention
// (schedules/..., properties/..., checker/..., tests/..., docs/..., ...) is
// checked against the source tree. Patterns with a placeholder (<family>,
// *) are checked with every family folder substituted, and must match at
// least one.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = COLLCHECK_SOURCE_DIR;
const std::vector<std::string> kFamilies = {"swing", "recursive_doubling", "ring", "bruck", "traff", "tra", "trivance"};

// The repository paths a text mentions.
std::set<std::string> mentioned_paths(const std::string& text) {
  static const std::regex path(
      R"((?:^|[\s`(\[|])((?:schedules|properties|smt|runtime|reports|checker|tests|bench|scripts|docs|cmake)/[A-Za-z0-9_./<>*-]*))");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), path); it != std::sregex_iterator(); ++it) {
    std::string p = (*it)[1];
    while (!p.empty() && (p.back() == '.' || p.back() == ',' || p.back() == ':')) p.pop_back();
    out.insert(p);
  }
  return out;
}

bool exists_somehow(std::string p) {
  // "<name>" placeholders other than <family> and "*" stand for any file.
  if (p.find("<family>") != std::string::npos) {
    for (const std::string& f : kFamilies) {
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

void expect_paths_exist(const std::string& doc) {
  const std::string text = read_file((kRoot / doc).string());
  ASSERT_FALSE(text.empty()) << doc;
  const auto paths = mentioned_paths(text);
  EXPECT_GT(paths.size(), 10u) << "the page names few paths: is the pattern still right?";
  for (const std::string& p : paths) EXPECT_TRUE(exists_somehow(p)) << doc << " names " << p << ", which does not exist";
}

TEST(DocPaths, ArchitecturePageNamesExistingFiles) { expect_paths_exist("docs/architecture.md"); }
TEST(DocPaths, DesignPageNamesExistingFiles) { expect_paths_exist("docs/design.md"); }
TEST(DocPaths, ReadmeNamesExistingFiles) { expect_paths_exist("README.md"); }

TEST(DocPaths, TheCheckCanFail) {
  EXPECT_TRUE(exists_somehow("schedules/registry.cpp"));
  EXPECT_TRUE(exists_somehow("schedules/<family>/"));
  EXPECT_FALSE(exists_somehow("schedules/registry_old.cpp"));
  EXPECT_FALSE(exists_somehow("importers/msccl_xml.cpp"));
  EXPECT_TRUE(exists_somehow("properties/flow/flow_interval.*"));
  EXPECT_FALSE(exists_somehow("properties/flow_interval.*"));
  EXPECT_EQ(mentioned_paths("see `checker/sweep/sweep.cpp`, and schedules/family.hpp."),
            (std::set<std::string>{"checker/sweep/sweep.cpp", "schedules/family.hpp"}));
}

}  // namespace
}  // namespace collcheck::test
