// `collcheck check-file` on MSCCL algorithm XML through the real binary:
// auto-detection by the <algo> root element, exit codes 0 / 1 / 2 / 3, one
// stderr line "collcheck: error: FILE:LINE: ..." for malformed files, one
// instance per declared mode (in place, out of place).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_binary.hpp"

namespace collcheck::test {
namespace {

std::string data(const std::string& name) { return std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/msccl/" + name; }

TEST(MscclCheckFile, CorrectProgramHoldsAutoDetected) {
  const Outcome o = run("check-file " + data("ring_allreduce_8.xml"));
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("/msccl-in-place (allreduce): holds  p=8"), std::string::npos) << o.out;
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

// A file that declares both modes is checked in both, each its own instance:
// the in-place ring allreduce declared out of place too leaves its output
// unwritten out of place.
TEST(MscclCheckFile, EveryDeclaredModeIsItsOwnInstance) {
  const Outcome o = run("check-file " + data("ring_allreduce_4_declared_out_of_place.xml"));
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("/msccl-in-place (allreduce): holds  p=4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("/msccl-out-of-place (allreduce): violated  p=4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("checked in-place and out-of-place (<algo inplace=\"1\" outofplace=\"1\">)"), std::string::npos)
      << o.out;
  const Outcome j = run("check-file " + data("ring_allreduce_4_declared_out_of_place.xml") + " --format json");
  const nlohmann::json report = nlohmann::json::parse(j.out);
  ASSERT_EQ(report.at("instances").size(), 2u);
  EXPECT_EQ(report["instances"][0]["variant"], "msccl-in-place");
  EXPECT_EQ(report["instances"][0]["status"], "holds");
  EXPECT_EQ(report["instances"][1]["variant"], "msccl-out-of-place");
  EXPECT_EQ(report["instances"][1]["status"], "violated");
}

// Two threadblocks on one connection: a violated property (exit 1) naming
// both, not malformed input.
TEST(MscclCheckFile, TwoThreadblocksOnOneConnectionAreViolated) {
  const Outcome o = run("check-file " + data("broken_two_senders_one_channel.xml"));
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.out.find("minimal counterexample: p=4 rank=0 peer=1"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("gpu 0 tb 0 (line 4) and tb 1 (line 9) both send to gpu 1 on channel 0"), std::string::npos)
      << o.out;
}

// coll="custom": matching and causality decided, postcondition and
// exactly-once not judged, which is unknown (exit 3), never holds; a
// violation is still exit 1.
TEST(MscclCheckFile, CustomCollectiveIsNotJudgedWhereItHasNoPostcondition) {
  const Outcome o = run("check-file " + data("custom_ring_allgather_4.xml"));
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("/msccl-out-of-place (custom): unknown  p=4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("postcondition unknown at p=4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("not judged: coll=custom has no postcondition"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("holds for every deployable variant"), std::string::npos) << o.out;
  const Outcome j = run("check-file " + data("custom_ring_allgather_4.xml") + " --format json");
  const nlohmann::json v = nlohmann::json::parse(j.out).at("instances").at(0).at("verdicts");
  EXPECT_EQ(v[0]["status"], "holds");  // matching
  EXPECT_EQ(v[1]["status"], "holds");  // causality
  EXPECT_EQ(v[3]["stats"]["reason_unknown"], "not judged: coll=custom has no postcondition");
  EXPECT_EQ(run("check-file " + data("broken_custom_unmatched_send.xml")).code, 1);
}

// One gpu, `tbs` threadblocks of one step each writing s[0] and one more
// step copying it out; `ordered`: each waits for the previous one
// (depid/deps), else they race.
std::string many_writers(int tbs, bool ordered) {
  std::string t = "<algo name=\"w\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"allreduce\" inplace=\"0\">\n"
                  " <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"1\">\n";
  for (int k = 0; k < tbs; ++k) {
    const bool dep = ordered && k > 0;
    t += "  <tb id=\"" + std::to_string(k) + "\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
         "   <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"s\" dstoff=\"0\" cnt=\"1\" depid=\"" +
         std::to_string(dep ? k - 1 : -1) + "\" deps=\"" + (dep ? "0" : "-1") + "\" hasdep=\"" + (ordered ? "1" : "0") +
         "\"/>\n";
    if (k == tbs - 1)
      t += "   <step s=\"1\" type=\"cpy\" srcbuf=\"s\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" "
           "deps=\"-1\" hasdep=\"0\"/>\n";
    t += "  </tb>\n";
  }
  return t + " </gpu>\n</algo>\n";
}

// The race check's vector clocks stay within --max-memory: beyond it races
// are not checked, and causality is unknown (exit 3), not holds.
TEST(MscclCheckFile, RaceCheckBeyondTheMemoryBudgetIsUnknown) {
  const std::string ordered = temp_path("writers_ordered.xml"), racy = temp_path("writers_racy.xml");
  std::ofstream(ordered) << many_writers(2000, true);  // clocks: 2001 steps x 2000 tbs x 4 bytes = 16 MB
  std::ofstream(racy) << many_writers(2000, false);
  EXPECT_EQ(run("check-file " + ordered).code, 0);
  EXPECT_EQ(run("check-file " + racy).code, 1);
  for (const std::string& f : {ordered, racy}) {
    const Outcome o = run("check-file " + f + " --max-memory 4M");
    EXPECT_EQ(o.code, 3) << o.out << o.err;
    EXPECT_NE(o.out.find("causality unknown at p=1"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("  - out-of-place causality unknown: races not checked on gpu 0: its vector clocks"),
              std::string::npos)
        << o.out;
    const Outcome j = run("check-file " + f + " --max-memory 4M --format json");
    const nlohmann::json c = nlohmann::json::parse(j.out).at("instances").at(0).at("verdicts").at(1);
    EXPECT_EQ(c["status"], "unknown");
    EXPECT_EQ(c["stats"]["reason_unknown"],
              "races not checked on gpu 0: its vector clocks (2001 steps x the gpu's threadblocks x 4 bytes: 16008000 "
              "bytes) exceed the budget of 4194304 bytes");
  }
  std::filesystem::remove(ordered);
  std::filesystem::remove(racy);
}

// An NCCL topology file is XML but no schedule: one line saying what it is
// and what check-file takes (exit 2), not a JSON syntax error.
TEST(MscclCheckFile, NcclTopologyFileIsNamed) {
  const std::string f = temp_path("topo.xml");
  std::ofstream(f) << "<?xml version=\"1.0\"?>\n<system version=\"1\">\n  <cpu numaid=\"0\"/>\n</system>\n";
  const Outcome o = run("check-file " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_EQ(o.err, "collcheck: error: '" + f +
                       "' is an NCCL topology file (root element <system>), not a schedule: check-file takes "
                       "collcheck's schedule JSON or JSON lines, Träff's tables (--schedule-format traff-table) or "
                       "MSCCL algorithm XML (root element <algo>)\n");
  const Outcome forced = run("check-file --schedule-format msccl " + f);
  EXPECT_EQ(forced.code, 2);
  EXPECT_NE(forced.err.find(":2: the root element is <system>, expected <algo> (MSCCL XML): this is an NCCL topology "
                            "file, not an algorithm"),
            std::string::npos)
      << forced.err;
  std::filesystem::remove(f);
}

}  // namespace
}  // namespace collcheck::test
