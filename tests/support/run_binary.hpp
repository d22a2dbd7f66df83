#pragma once
// Runs the real collcheck binary (COLLCHECK_BINARY) for the CLI regression
// tests: exit code, stdout and stderr. Temp files are per process, because
// ctest runs every test in its own process, in parallel.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace collcheck::test {

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// A path in the test temp dir, unique to this process.
inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + std::to_string(::getpid()) + "_collcheck_" + name;
}

inline Outcome run(const std::string& args) {
  static int counter = 0;
  std::string err_path = temp_path("err_" + std::to_string(counter++));
  std::string cmd = std::string(COLLCHECK_BINARY) + " " + args + " 2>" + err_path;
  Outcome r;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  int status = pclose(f);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_path);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

inline size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace collcheck::test
