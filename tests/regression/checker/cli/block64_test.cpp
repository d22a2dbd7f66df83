// 64-bit block indices end to end (schedules/block_set.hpp): a schedule whose
// blocks pass 2^32 goes through every writer and reader of collcheck's format
// (JSON and JSON lines), through check-file (a pass and a violation whose
// counterexample names the block past 2^32 exactly, in text and in JSON), and
// through the threaded executor, which refuses it with the reason before
// allocating; an all-to-all past P = 65535 (P*P blocks past 2^32) is verified.
// The results store keeps such a block too (unit/checker/sweep/results_store_test.cpp).
#include <gtest/gtest.h>

#include "tests/support/run_binary.hpp"

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "schedules/formats/schedule_file.hpp"

namespace collcheck {
namespace {

using nlohmann::json;
using test::run;
using test::temp_path;

constexpr uint64_t kBlocks = (uint64_t{1} << 33) + 3;

// p = 2 allreduce in one step: both ranks exchange every block with reduce;
// `cut` blocks at the top are missing from rank 1's send (and rank 0's receive).
MaterializedSchedule exchange(uint64_t cut) {
  MaterializedSchedule m;
  m.spec = CollectiveSpec{Collective::allreduce, 2, kBlocks, 0};
  m.steps.assign(1, std::vector<RankStep>(2));
  auto add = [](std::vector<Transfer>& l, Rank peer, Block hi) {
    l.push_back(Transfer{peer, BlockSet::range(0, hi), Combine::reduce});
  };
  add(m.steps[0][0].sends, 1, kBlocks);
  add(m.steps[0][0].recvs, 1, kBlocks - cut);
  add(m.steps[0][1].sends, 0, kBlocks - cut);
  add(m.steps[0][1].recvs, 0, kBlocks);
  return m;
}

std::string written(const MaterializedSchedule& m, ScheduleEncoding e) {
  std::ostringstream out;
  const MaterializedView view(m);
  if (e == ScheduleEncoding::json) write_schedule_json(out, view, FileMeta{});
  else write_schedule_jsonl(out, view, FileMeta{});
  return out.str();
}

TEST(Block64, WritersAndReadersKeepBlocksPast2To32) {
  for (uint64_t cut : {0u, 1u}) {
    const MaterializedSchedule m = exchange(cut);
    for (ScheduleEncoding e : {ScheduleEncoding::json, ScheduleEncoding::jsonl}) {
      const std::string text = written(m, e);
      EXPECT_NE(text.find(std::to_string(kBlocks - cut)), std::string::npos) << text;
      const ScheduleDocument back = parse_schedule_text(text, "block64");
      EXPECT_EQ(back.schedule.spec.nblocks, kBlocks);
      EXPECT_EQ(back.schedule.steps, m.steps) << to_string(e);
    }
  }
  // One past nblocks is still out of range, past 2^32 as below it.
  std::string text = written(exchange(0), ScheduleEncoding::json);
  const std::string hi = std::to_string(kBlocks);
  text.replace(text.find("[0," + hi + "]"), 3 + hi.size(), "[0," + std::to_string(kBlocks + 1));
  EXPECT_THROW(parse_schedule_text(text, "block64"), std::exception);
}

TEST(Block64, CheckFileDecidesAndNamesTheBlockPast2To32) {
  for (ScheduleEncoding e : {ScheduleEncoding::json, ScheduleEncoding::jsonl}) {
    const std::string good = temp_path(std::string("block64_good.") + to_string(e));
    const std::string bad = temp_path(std::string("block64_bad.") + to_string(e));
    std::ofstream(good) << written(exchange(0), e);
    std::ofstream(bad) << written(exchange(1), e);
    // The dense exact state cannot hold 2 * (2^33 + 3) cells; intervals can.
    test::Outcome r = run("check-file " + good + " --mode fingerprint --format json");
    ASSERT_EQ(r.code, 0) << r.err << r.out;
    const json held = json::parse(r.out);
    for (const json& v : held.at("instances").at(0).at("verdicts"))
      EXPECT_NE(v.at("status"), "violated") << v.dump();
    r = run("check-file " + bad + " --mode fingerprint --format json");
    ASSERT_EQ(r.code, 1) << r.err << r.out;
    bool named = false;
    const json refuted = json::parse(r.out);
    for (const json& v : refuted.at("instances").at(0).at("verdicts")) {
      if (v.at("status") != "violated") continue;
      const json& cx = v.at("counterexample");
      EXPECT_EQ(cx.at("block").get<uint64_t>(), kBlocks - 1) << v.dump();
      EXPECT_EQ(cx.at("rank").get<uint64_t>(), 0u) << v.dump();
      named = true;
    }
    EXPECT_TRUE(named) << r.out;
    r = run("check-file " + bad + " --mode fingerprint");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("block=" + std::to_string(kBlocks - 1)), std::string::npos) << r.out;
  }
}

TEST(Block64, ExecutorRefusesWhatItCannotHoldWithTheReason) {
  const std::string good = temp_path("block64_run.json");
  std::ofstream(good) << written(exchange(0), ScheduleEncoding::json);
  const test::Outcome r = run("run --schedule " + good);
  EXPECT_EQ(r.code, 3) << r.err << r.out;
  EXPECT_EQ(test::lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("holds every block of every rank"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::to_string(2 * kBlocks * 3)), std::string::npos) << r.err;  // p x nblocks x 3 elements
}

TEST(Block64, AllToAllPastP65535IsVerified) {
  const test::Outcome r = run("verify --algo tra --p 65537 --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json inst = json::parse(r.out).at("instances").at(0);
  EXPECT_EQ(inst.at("p"), 65537);
  EXPECT_EQ(inst.at("status"), "holds");
  for (const json& v : inst.at("verdicts")) EXPECT_EQ(v.at("status"), "holds") << v.dump();
}

}  // namespace
}  // namespace collcheck
