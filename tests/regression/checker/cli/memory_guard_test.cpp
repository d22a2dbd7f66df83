// The memory guard (verify --max-memory), on the real binary:
//   * an instance whose estimate exceeds the limit is refused BEFORE anything
//     is allocated: the run happens under `ulimit -v` far below what the
//     generic simulation would allocate for it (Swing bandwidth p = 2^16,
//     fingerprint mode: 4 GiB of contribution state in the first chunk alone),
//     so an allocation attempt would end in "out of memory" (also exit 3)
//     instead of the one-line refusal with the estimate;
//   * in a sweep the other instances are still checked, the refused one is
//     reported (skipped, with the reason) and the exit code is 3;
//   * an instance under the limit runs (exit 0);
//   * malformed sizes are bad input (exit 2, one line);
//   * reading a schedule file is guarded too: whitespace
//     costs no memory (64 MiB of it before a valid schedule pass under
//     `ulimit -v 128M`; nlohmann's lexer used to hold all of it, twice over
//     while its buffer grew: out of memory, exit 2); what the reader builds
//     is refused above --max-memory (exit 3, one line with the estimate,
//     for both encodings); and running out of memory while reading says so
//     (exit 3), not "the instance is too large".
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_binary.hpp"

namespace collcheck {
namespace {

using test::run;

test::Outcome run_limited(const std::string& args, uint64_t kib) {
  // ulimit applies to the shell and the binary it starts.
  return run("--help >/dev/null; ulimit -v " + std::to_string(kib) + "; " + COLLCHECK_BINARY + " " + args);
}

TEST(MemoryGuard, RefusesBeforeAllocating) {
  // The 1 GiB ulimit is what shows nothing was allocated (no timing: machines are noisy).
  auto r = run_limited("verify --algo swing --variant bandwidth --p 65536 --mode fingerprint --max-memory 64M -q", 1 << 20);
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("refused by the memory guard before allocating: needs an estimated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("more than --max-memory 0.0625 GiB"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("out of memory"), std::string::npos) << r.err;
  // Control: without the guard the same run under the same ulimit does try
  // to allocate, and fails: the limit above is really below what it needs.
  auto c = run_limited("verify --algo swing --variant bandwidth --p 65536 --mode fingerprint --max-memory none -q", 1 << 20);
  EXPECT_EQ(c.code, 3) << c.out << c.err;
  EXPECT_EQ(c.err, "collcheck: error: out of memory: the instance is too large for this machine (use a smaller p, "
                   "--mode fingerprint, a smaller --memory-gib, or --max-memory to refuse such instances before "
                   "allocating)\n");
}

TEST(MemoryGuard, SweepReportsTheRefusalAndExitsThree) {
  auto r = run("verify --algo trivance --variant bandwidth --p 9,3000 --mode fingerprint --max-memory 100M "
               "--format json -q");
  EXPECT_EQ(r.code, 3) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["instances"].size(), 2u);
  for (const auto& i : j["instances"]) {
    if (i["p"] == 9) {
      EXPECT_EQ(i["status"], "holds");
    } else {
      EXPECT_EQ(i["status"], "skipped");
      const std::string why = i["skip_reason"];
      EXPECT_EQ(why.rfind("refused by the memory guard before allocating: needs an estimated ", 0), 0u) << why;
    }
  }
}

TEST(MemoryGuard, UnderTheLimitRuns) {
  auto r = run("verify --algo trivance --variant bandwidth --p 1500 --mode fingerprint --max-memory 2G -q");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(MemoryGuard, MalformedSizesAreBadInput) {
  for (const char* bad : {"12x", "0", "-5G", "0.5M", "G", "1e3", "1.5.2G", ""}) {
    auto r = run(std::string("verify --algo swing --p 8 -q --max-memory '") + bad + "'");
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("collcheck: error: --max-memory"), std::string::npos) << bad << ": " << r.err;
  }
  for (const char* good : {"1G", "512MiB", "1.5g", "262144k", "1073741824", "none"}) {
    auto r = run(std::string("verify --algo swing --p 8 -q --max-memory ") + good);
    EXPECT_EQ(r.code, 0) << good << ": " << r.err;
  }
}

constexpr uint64_t kReaderUlimitKib = 128 << 10;  // about 60 MiB of it is the process itself

TEST(MemoryGuard, WhitespaceCostsNoMemoryWhileReading) {
  const std::string small = test::temp_path("ring4.json"), big = test::temp_path("ws64.json");
  ASSERT_EQ(run("dump --algo ring --p 4 --format json --out " + small).code, 0);
  {
    std::ofstream f(big, std::ios::binary);
    const std::string chunk(1 << 20, '\n');
    for (int i = 0; i < 64; ++i) f << chunk;
    f << test::read_file(small);
  }
  auto r = run_limited("check-file " + big + " -q", kReaderUlimitKib);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // The lines are counted all the same: an error after them names the real line.
  {
    std::ofstream f(big, std::ios::app);
    f << "x";
  }
  r = run_limited("check-file " + big + " -q", kReaderUlimitKib);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("line " + std::to_string((64 << 20) + test::lines(test::read_file(small)) + 1) + ", column 1"),
            std::string::npos)
      << r.err;
  std::remove(big.c_str());
}

TEST(MemoryGuard, ReadingIsRefusedAboveTheLimit) {
  for (const char* format : {"json", "jsonl"}) {
    const std::string file = test::temp_path(std::string("ring128.") + format);
    ASSERT_EQ(run("dump --algo ring --p 128 --format " + std::string(format) + " --out " + file).code, 0);
    auto r = run("check-file " + file + " --max-memory 2M");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_EQ(r.err.rfind("collcheck: refused by the memory guard while reading " + file + ", at line ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("rank entries"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("more than --max-memory 2 MiB"), std::string::npos) << r.err;
    EXPECT_EQ(test::lines(r.err), 1u) << r.err;
    EXPECT_EQ(run("check-file " + file + " --max-memory 64M -q").code, 0);
  }
}

TEST(MemoryGuard, OutOfMemoryWhileReadingSaysSo) {
  // One step of 2^21 empty rank entries: 34 MiB of text, 96 MiB of entries
  // (and 48 MiB more while the vector grows): more than the ulimit leaves.
  const std::string file = test::temp_path("wide.json");
  {
    std::ofstream f(file, std::ios::binary);
    const uint64_t p = uint64_t{1} << 21;
    f << R"({"format": "collcheck-schedule/2", "collective": "allreduce", "p": )" << p
      << R"(, "nblocks": 1, "steps": [[)";
    for (uint64_t r = 0; r < p; ++r) f << (r ? "," : "") << "{\"rank\":" << r << "}";
    f << "]]}";
  }
  auto r = run_limited("check-file " + file + " --max-memory none", kReaderUlimitKib);
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("collcheck: out of memory while reading " + file + ", at line 1: the schedule read so far (", 0),
            0u)
      << r.err;
  EXPECT_EQ(r.err.find("too large"), std::string::npos) << r.err;
  // With the guard, the same file is refused before the ulimit is reached.
  r = run_limited("check-file " + file + " --max-memory 32M", kReaderUlimitKib);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err.rfind("collcheck: refused by the memory guard while reading " + file, 0), 0u) << r.err;
  std::remove(file.c_str());
}

}  // namespace
}  // namespace collcheck
