// Every command the README and docs/ show in a ```sh block parses: each
// line whose program is collcheck or collcheck-mpi (directly, after
// environment assignments, or under mpirun / mpiexec / scripts/smpi) runs with --dry-run,
// which validates the whole command line as the command would (algorithm,
// variant, p-range, option values, formats) and runs nothing, and must exit
// 0. A renamed option, algorithm or variant in the documentation fails here.
// Lines of other programs (scripts/..., cmake, sudo apt-get) are not run.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = COLLCHECK_SOURCE_DIR;

struct DocCommand {
  std::string where;     // "README.md:42"
  std::string program;   // "collcheck" or "collcheck-mpi"
  std::string args;      // the rest of the command, shell-quoted as written
};

// The line up to its first unquoted comment, pipe, redirection, ';' or '&&'.
std::string command_part(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '|' || c == '>' || c == '<' || c == ';' || (c == '&' && i + 1 < line.size() && line[i + 1] == '&'))
      return line.substr(0, i);
    else if (c == '#' && (i == 0 || line[i - 1] == ' ')) return line.substr(0, i);
  }
  return line;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size()) break;
    size_t j = i;
    char quote = 0;
    while (j < s.size() && (quote || s[j] != ' ')) {
      if (!quote && (s[j] == '\'' || s[j] == '"')) quote = s[j];
      else if (quote && s[j] == quote) quote = 0;
      ++j;
    }
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// The collcheck command of one shell line, if it has one.
std::optional<DocCommand> doc_command(const std::string& line, const std::string& where) {
  const std::vector<std::string> w = words(command_part(line));
  size_t i = 0;
  while (i < w.size() && w[i].find('=') != std::string::npos && w[i][0] != '-') ++i;  // VAR=value
  if (i < w.size() && (w[i] == "mpirun" || w[i] == "mpiexec")) {
    ++i;
    while (i < w.size() && fs::path(w[i]).filename() != "collcheck" && fs::path(w[i]).filename() != "collcheck-mpi") ++i;
  }
  // scripts/smpi [-np P] [its options] ARGS: collcheck-mpi's arguments, unless
  // a program is named first.
  if (i < w.size() && w[i] == "scripts/smpi") {
    ++i;
    auto with_value = [&](const std::string& o) {
      return o == "-np" || o == "--privatization" || o == "--library-copies" || o == "--wall";
    };
    while (i < w.size()) {
      if (w[i].rfind("--cfg=", 0) == 0) ++i;
      else if (with_value(w[i]) && i + 1 < w.size()) i += 2;
      else break;
    }
    if (i >= w.size() || w[i][0] != '-') return std::nullopt;
    std::string args;
    for (size_t k = i; k < w.size(); ++k) args += (args.empty() ? "" : " ") + w[k];
    return DocCommand{where, "collcheck-mpi", args};
  }
  if (i >= w.size()) return std::nullopt;
  const std::string program = fs::path(w[i]).filename();
  if (program != "collcheck" && program != "collcheck-mpi") return std::nullopt;
  std::string args;
  for (size_t k = i + 1; k < w.size(); ++k) args += (args.empty() ? "" : " ") + w[k];
  return DocCommand{where, program, args};
}

// Every such command of every ```sh / ```bash block of README.md and docs/**/*.md.
std::vector<DocCommand> documented_commands() {
  std::vector<fs::path> pages{kRoot / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "docs"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::vector<DocCommand> out;
  for (const fs::path& page : pages) {
    std::istringstream in(read_file(page.string()));
    std::string line, pending;
    bool in_sh = false, in_block = false;
    int n = 0, start = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.rfind("```", 0) == 0) {
        if (!in_block) {
          const std::string info = line.substr(3);
          in_sh = info == "sh" || info == "bash" || info == "shell";
        }
        in_block = !in_block;
        continue;
      }
      if (!in_block || !in_sh) continue;
      if (pending.empty()) start = n;
      if (!line.empty() && line.back() == '\\') {  // continued on the next line
        pending += line.substr(0, line.size() - 1) + " ";
        continue;
      }
      pending += line;
      const std::string where = fs::relative(page, kRoot).string() + ":" + std::to_string(start);
      if (auto c = doc_command(pending, where)) out.push_back(*c);
      pending.clear();
    }
  }
  return out;
}

std::string binary_of(const std::string& program) {
  if (program == "collcheck") return COLLCHECK_BINARY;
#ifdef COLLCHECK_MPI_BINARY
  return COLLCHECK_MPI_BINARY;
#else
  return "";
#endif
}

// The dry run of one documented command, from the source tree (the paths
// the documentation names are relative to it).
Outcome dry_run(const DocCommand& c) {
  const std::vector<std::string> w = words(c.args);
  // The top-level flags (--help, --version, --man-page, --bash-completion) run as they are.
  const bool top_level = !w.empty() && w.front().rfind("--", 0) == 0 && c.program == "collcheck";
  return run_command("cd '" + kRoot.string() + "' && " + binary_of(c.program) + " " + c.args +
                     (top_level ? "" : " --dry-run") + " >/dev/null");
}

TEST(DocCommands, EveryDocumentedCommandParses) {
  const std::vector<DocCommand> commands = documented_commands();
  // The README's tour and the user guide show many: a scan that finds few is broken.
  ASSERT_GE(commands.size(), 60u) << "too few collcheck commands found in ```sh blocks";
  size_t checked = 0;
  for (const DocCommand& c : commands) {
    if (binary_of(c.program).empty()) continue;  // built without MPI
    const Outcome r = dry_run(c);
    EXPECT_EQ(r.code, 0) << c.where << ": " << c.program << " " << c.args << "\n" << r.err;
    ++checked;
  }
  EXPECT_GE(checked, 60u);
  std::cout << checked << " documented commands parsed\n";
}

TEST(DocCommands, ReadmeShowsBothPrograms) {
  bool collcheck = false, mpi = false;
  for (const DocCommand& c : documented_commands())
    if (c.where.rfind("README.md:", 0) == 0) (c.program == "collcheck" ? collcheck : mpi) = true;
  EXPECT_TRUE(collcheck);
  EXPECT_TRUE(mpi);
}

// The check can fail: a misspelt option, an unknown algorithm or variant, a
// malformed p-range is exit 2 under --dry-run, for both programs.
TEST(DocCommands, TheCheckCanFail) {
  for (const std::string line : {"collcheck verify --algo swing --p 1..64 --propertys cost",
                                 "collcheck verify --algo swingg --p 1..64",
                                 "collcheck verify --algo swing --variant nope --p 1..64",
                                 "collcheck verify --algo swing --p 64..1", "collcheck dump --algo ring --p 8 --format yaml",
                                 "collcheck check-file x.json --schedule-format yaml",
                                 "mpirun -np 4 collcheck-mpi --native allreduce --payloads one-hot",
                                 "mpirun -np 4 collcheck-mpi --algo swingg",
                                 "mpirun -np 4 collcheck-mpi --native allreduce --payload one-hott"}) {
    const std::optional<DocCommand> c = doc_command(line, "test");
    ASSERT_TRUE(c) << line;
    if (binary_of(c->program).empty()) continue;
    EXPECT_EQ(dry_run(*c).code, 2) << line;
  }
  // What the scan takes from a line.
  EXPECT_EQ(doc_command("collcheck verify --algo ring --p 1..8   # a comment", "t")->args, "verify --algo ring --p 1..8");
  EXPECT_EQ(doc_command("mpirun --oversubscribe -np 8 collcheck-mpi --algo swing", "t")->args, "--algo swing");
  EXPECT_EQ(doc_command("collcheck dump --algo swing --p 4 | head", "t")->args, "dump --algo swing --p 4");
  EXPECT_EQ(doc_command("collcheck fuzz --schedule-cmd 'python3 g.py {p} | x' --seconds 5", "t")->args,
            "fuzz --schedule-cmd 'python3 g.py {p} | x' --seconds 5");
  EXPECT_FALSE(doc_command("scripts/sweep --algo swing", "t"));
  EXPECT_EQ(doc_command("scripts/smpi -np 4096 --cfg=smpi/allreduce:rab1 --native allreduce", "t")->args, "--native allreduce");
  EXPECT_EQ(doc_command("scripts/smpi -np 4 --library-copies one --function ./l.so:f --collective allreduce", "t")->program,
            "collcheck-mpi");
  EXPECT_FALSE(doc_command("scripts/smpi -np 4 ./hello", "t"));  // a program of its own
}

}  // namespace
}  // namespace collcheck::test
