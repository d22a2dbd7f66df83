#pragma once
// The data-driven regression drivers (tests/regression/bad_input_corpus_test,
// tests/regression/regress_cases_test): the case files of a folder, and the
// gtest parameter name of a case.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace collcheck::test {

// The regular files in `dir` whose extension is one of `extensions`, sorted.
inline std::vector<std::filesystem::path> case_files_in(const std::filesystem::path& dir,
                                                        const std::vector<std::string>& extensions) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_regular_file() &&
          std::find(extensions.begin(), extensions.end(), e.path().extension().string()) != extensions.end())
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// A case's name as gtest allows it: every character but letters and digits becomes '_'.
inline std::string case_test_name(std::string name) {
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

}  // namespace collcheck::test
