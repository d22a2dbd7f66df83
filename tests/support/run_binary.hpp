#pragma once
// Runs the real collcheck binary (COLLCHECK_BINARY) and other commands for
// the CLI, regression and MPI tests: exit code, stdout and stderr; reads files. Temp files are per process, because
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

// The whole file (binary-safe); empty if it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs a shell command: exit code, stdout, stderr (through a temp file).
inline Outcome run_command(const std::string& cmd) {
  static int counter = 0;
  const std::string err_path = temp_path("err_" + std::to_string(counter++));
  Outcome r;
  FILE* f = popen((cmd + " 2>" + err_path).c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  const int status = pclose(f);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_path);
  return r;
}

// collcheck with these arguments.
inline Outcome run(const std::string& args) { return run_command(std::string(COLLCHECK_BINARY) + " " + args); }

inline size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// collcheck with `args` is bad input: exit 2, one line on stderr containing `needle`.
inline void expect_one_line_error(const std::string& args, const std::string& needle) {
  const Outcome r = run(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
}

}  // namespace collcheck::test
