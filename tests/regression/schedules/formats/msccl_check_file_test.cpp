// `collcheck check-file` on MSCCL algorithm XML through the real binary:
// auto-detection by the <algo> root element, exit codes 0 / 1 / 2, one
// stderr line "collcheck: error: FILE:LINE: ..." for malformed files.
#include <gtest/gtest.h>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

std::string data(const std::string& name) { return std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/msccl/" + name; }

TEST(MscclCheckFile, CorrectProgramHoldsAutoDetected) {
  const Outcome o = run("check-file " + data("ring_allreduce_8.xml"));
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("/msccl (allreduce): holds  p=8"), std::string::npos) << o.out;
  EXPECT_EQ(run("check-file --schedule-format msccl " + data("alltoall_8.xml")).code, 0);
}

TEST(MscclCheckFile, BrokenProgramIsViolatedWithStepAndRank) {
  const Outcome o = run("check-file " + data("broken_unmatched_send.xml"));
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("matching violated at p=4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("minimal counterexample: p=4 rank=1 step=0 block=3 peer=3"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("gpu 1 tb 2 step 0 (line 28, s)"), std::string::npos) << o.out;
}

TEST(MscclCheckFile, MalformedIsExitTwoWithFileAndLine) {
  const std::string f = data("malformed_truncated.xml");
  const Outcome o = run("check-file " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(lines(o.err), 1u);
  EXPECT_EQ(o.err.rfind("collcheck: error: " + f + ":21: malformed XML", 0), 0u) << o.err;
  EXPECT_TRUE(o.out.empty());
}

TEST(MscclCheckFile, FormatMismatchesAreBadInput) {
  // A JSON schedule forced through the MSCCL importer, and --n for MSCCL.
  const Outcome json = run("check-file --schedule-format msccl " + std::string(COLLCHECK_SOURCE_DIR) +
                           "/tests/data/msccl/generate.py");
  EXPECT_EQ(json.code, 2);
  EXPECT_NE(json.err.find("malformed XML"), std::string::npos) << json.err;
  const Outcome n = run("check-file --n 3 " + data("ring_allreduce_4.xml"));
  EXPECT_EQ(n.code, 2);
  EXPECT_NE(n.err.find("--n and --root apply only to --schedule-format traff-table"), std::string::npos) << n.err;
}

}  // namespace
}  // namespace collcheck::test
