// The JSON exchange format of a materialized schedule (schedules/schedule_json.hpp,
// docs/schedule-format.md):
//
//  * round trip: materialize -> to_json (compact and indented) ->
//    schedule_from_json gives back the same schedule, for registry schedules
//    of every algorithm (even, odd, folded, 2-port, p = 1, zero steps), and
//    the re-read schedule checks exactly like the original;
//  * tolerated input: optional root/ports/sends/recvs, unsorted or
//    overlapping block ranges (canonicalized);
//  * malformed input (not JSON, missing fields, wrong types, peer out of
//    range, bad combine, block range beyond nblocks, wrong rank count, ...)
//    throws InputError with a one-line message that says where and what.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule_json.hpp"

namespace collcheck {
namespace {

using nlohmann::json;

MaterializedSchedule from_registry(const char* algo, const char* variant, uint64_t p) {
  const AlgorithmInfo* a = find_algorithm(algo);
  if (!a || !a->find_variant(variant)) throw std::logic_error("no such variant");
  return materialize(*a->find_variant(variant)->make(InstanceParams{p, 0}));
}

::testing::AssertionResult same(const MaterializedSchedule& a, const MaterializedSchedule& b) {
  if (a.spec.kind != b.spec.kind || a.spec.p != b.spec.p || a.spec.nblocks != b.spec.nblocks ||
      a.spec.root != b.spec.root)
    return ::testing::AssertionFailure() << "specs differ";
  if (a.ports != b.ports) return ::testing::AssertionFailure() << "ports " << a.ports << " vs " << b.ports;
  if (a.num_steps() != b.num_steps())
    return ::testing::AssertionFailure() << "steps " << a.num_steps() << " vs " << b.num_steps();
  for (size_t s = 0; s < a.steps.size(); ++s) {
    if (a.steps[s].size() != b.steps[s].size()) return ::testing::AssertionFailure() << "rank count at step " << s;
    for (size_t r = 0; r < a.steps[s].size(); ++r)
      if (!(a.steps[s][r] == b.steps[s][r])) return ::testing::AssertionFailure() << "step " << s << " rank " << r;
  }
  return ::testing::AssertionSuccess();
}

struct Case {
  const char* algo;
  const char* variant;
  uint64_t p;
};

const std::vector<Case> kRoundTrip = {
    {"swing", "bandwidth", 1},          {"swing", "bandwidth", 2},       {"swing", "bandwidth", 8},
    {"swing", "bandwidth", 12},         {"swing", "bandwidth", 7},       {"swing", "latency", 12},
    {"swing", "paper-odd", 7},          {"swing", "paper-latency", 3},   {"recursive-doubling", "bandwidth", 8},
    {"recursive-doubling", "latency", 5}, {"ring", "bandwidth", 5},
};

TEST(ScheduleJsonRoundTrip, RegistrySchedulesSurviveCompactAndIndented) {
  for (const Case& c : kRoundTrip) {
    SCOPED_TRACE(std::string(c.algo) + "/" + c.variant + " p=" + std::to_string(c.p));
    MaterializedSchedule m = from_registry(c.algo, c.variant, c.p);
    for (int indent : {-1, 2}) {
      std::string text = to_json(m, indent);
      MaterializedSchedule back = schedule_from_json(text);
      EXPECT_TRUE(same(m, back)) << "indent " << indent;
      EXPECT_EQ(to_json(back, indent), text) << "writing the re-read schedule gives the same text";
    }
  }
}

TEST(ScheduleJsonRoundTrip, DocumentedShape) {
  MaterializedSchedule m = from_registry("swing", "bandwidth", 4);
  json j = json::parse(to_json(m));
  EXPECT_EQ(j.at("format"), "collcheck-schedule/1");
  EXPECT_EQ(j.at("collective"), "allreduce");
  EXPECT_EQ(j.at("p"), 4);
  EXPECT_EQ(j.at("nblocks"), 4);
  EXPECT_EQ(j.at("root"), 0);
  EXPECT_EQ(j.at("ports"), 1);
  ASSERT_EQ(j.at("steps").size(), 4u);
  const json& r0 = j.at("steps")[0][0];
  EXPECT_EQ(r0.at("rank"), 0);
  // Rank 0 sends blocks {1,2} to rank 1 at step 0 (Swing, p = 4): one range [1, 3).
  EXPECT_EQ(r0.at("sends"), json::parse(R"([{"peer": 1, "blocks": [[1, 3]], "combine": "reduce"}])"));
  EXPECT_EQ(j.at("steps")[3][0].at("sends")[0].at("combine"), "copy");
}

TEST(ScheduleJsonRoundTrip, ReReadScheduleChecksLikeTheOriginal) {
  for (const Case& c : kRoundTrip) {
    MaterializedSchedule m = from_registry(c.algo, c.variant, c.p);
    MaterializedView original(m), reread(schedule_from_json(to_json(m)));
    CheckOptions o;
    o.exactness = Exactness::exact;
    InstanceCheck a = check_schedule(original, nullptr, {}, o), b = check_schedule(reread, nullptr, {}, o);
    ASSERT_EQ(a.verdicts.size(), b.verdicts.size());
    for (size_t i = 0; i < a.verdicts.size(); ++i) {
      EXPECT_EQ(a.verdicts[i].status, b.verdicts[i].status) << c.algo << "/" << c.variant << " " << a.verdicts[i].property;
      EXPECT_EQ(a.verdicts[i].counterexample.has_value(), b.verdicts[i].counterexample.has_value());
      if (a.verdicts[i].counterexample && b.verdicts[i].counterexample) {
        EXPECT_EQ(a.verdicts[i].counterexample->location(), b.verdicts[i].counterexample->location());
      }
    }
  }
}

TEST(ScheduleJsonRoundTrip, OtherCollectivesAndRoots) {
  MaterializedSchedule m;
  m.spec = {Collective::broadcast, 3, 1, 2};
  m.ports = 3;
  m.steps.resize(1, std::vector<RankStep>(3));
  m.steps[0][2].sends = {{0, BlockSet::single(0), Combine::copy}, {1, BlockSet::single(0), Combine::copy}};
  m.steps[0][0].recvs = {{2, BlockSet::single(0), Combine::copy}};
  m.steps[0][1].recvs = {{2, BlockSet::single(0), Combine::copy}};
  EXPECT_TRUE(same(m, schedule_from_json(to_json(m))));
  MaterializedSchedule a;
  a.spec = {Collective::alltoall, 2, 4, 0};
  a.steps.resize(1, std::vector<RankStep>(2));
  a.steps[0][0].sends = {{1, BlockSet::single(1), Combine::copy}};
  a.steps[0][1].recvs = {{0, BlockSet::single(1), Combine::copy}};
  a.steps[0][1].sends = {{0, BlockSet::single(2), Combine::copy}};
  a.steps[0][0].recvs = {{1, BlockSet::single(2), Combine::copy}};
  EXPECT_TRUE(same(a, schedule_from_json(to_json(a))));
}

// A small valid document to break in one place at a time.
json valid() {
  return json::parse(R"({
    "format": "collcheck-schedule/1", "collective": "allreduce",
    "p": 2, "nblocks": 2, "root": 0, "ports": 1,
    "steps": [[
      {"rank": 0, "sends": [{"peer": 1, "blocks": [[1, 2]], "combine": "reduce"}],
                  "recvs": [{"peer": 1, "blocks": [[0, 1]], "combine": "reduce"}]},
      {"rank": 1, "sends": [{"peer": 0, "blocks": [[0, 1]], "combine": "reduce"}],
                  "recvs": [{"peer": 0, "blocks": [[1, 2]], "combine": "reduce"}]}
    ]]})");
}

TEST(ScheduleJsonInput, TheValidDocumentParses) {
  MaterializedSchedule m = schedule_from_json(valid().dump());
  EXPECT_EQ(m.spec.p, 2u);
  ASSERT_EQ(m.num_steps(), 1);
  EXPECT_EQ(m.steps[0][0].sends[0].blocks, BlockSet::single(1));
  EXPECT_EQ(m.steps[0][1].recvs[0].peer, Rank{0});
}

TEST(ScheduleJsonInput, OptionalFieldsDefault) {
  json j = valid();
  j.erase("root");
  j.erase("ports");
  j["steps"][0][0].erase("recvs");
  j["steps"][0][1].erase("sends");
  MaterializedSchedule m = schedule_from_json(j.dump());
  EXPECT_EQ(m.spec.root, Rank{0});
  EXPECT_EQ(m.ports, 1);
  EXPECT_TRUE(m.steps[0][0].recvs.empty());
  EXPECT_TRUE(m.steps[0][1].sends.empty());
  json none = valid();
  none["steps"] = json::array();
  EXPECT_EQ(schedule_from_json(none.dump()).num_steps(), 0);
}

TEST(ScheduleJsonInput, BlockRangesAreCanonicalized) {
  json j = valid();
  j["nblocks"] = 10;
  j["steps"][0][0]["sends"][0]["blocks"] = json::parse("[[5, 7], [0, 2], [1, 3], [7, 8]]");
  MaterializedSchedule m = schedule_from_json(j.dump());
  EXPECT_EQ(m.steps[0][0].sends[0].blocks.to_string(), "{0-2,5-7}");
}

// Throws InputError, with a one-line message containing `needle`.
void expect_bad(const std::string& text, const std::string& needle) {
  try {
    schedule_from_json(text);
    ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("malformed schedule: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << "'" << needle << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-InputError: " << e.what() << " for " << text.substr(0, 200);
  }
}

void expect_bad(const std::function<void(json&)>& edit, const std::string& needle) {
  json j = valid();
  edit(j);
  SCOPED_TRACE(needle);
  expect_bad(j.dump(), needle);
}

TEST(ScheduleJsonMalformed, NotJson) {
  expect_bad("", "not JSON");
  expect_bad("not json", "not JSON");
  expect_bad("{\"format\": \"collcheck-schedule/1\",\n\n \"p\": ", "not JSON");
  expect_bad("{\"a\":\n\n x}", "not JSON");
  expect_bad("[1, 2", "not JSON");
}

TEST(ScheduleJsonMalformed, TopLevel) {
  expect_bad("[]", "top level: must be an object");
  expect_bad("42", "top level: must be an object");
  expect_bad([](json& j) { j.erase("format"); }, "\"format\"");
  expect_bad([](json& j) { j["format"] = "collcheck-schedule/2"; }, "\"format\"");
  expect_bad([](json& j) { j.erase("collective"); }, "missing \"collective\"");
  expect_bad([](json& j) { j["collective"] = 3; }, "missing \"collective\"");
  expect_bad([](json& j) { j["collective"] = "allreduc"; }, "unknown collective \"allreduc\"");
  expect_bad([](json& j) { j.erase("p"); }, "missing \"p\"");
  expect_bad([](json& j) { j["p"] = -2; }, "\"p\" must be a non-negative integer");
  expect_bad([](json& j) { j["p"] = 2.5; }, "\"p\" must be a non-negative integer");
  expect_bad([](json& j) { j["p"] = "2"; }, "\"p\" must be a non-negative integer");
  expect_bad([](json& j) { j["p"] = 0; }, "p must be in 1..2^24");
  expect_bad([](json& j) { j["p"] = 16777217; }, "p must be in 1..2^24");
  expect_bad([](json& j) { j.erase("nblocks"); }, "missing \"nblocks\"");
  expect_bad([](json& j) { j["nblocks"] = 0; }, "nblocks must be in 1..2^30");
  expect_bad([](json& j) { j["root"] = 2; }, "root 2 out of range");
  expect_bad([](json& j) { j["ports"] = 0; }, "ports must be in 1..1024");
  expect_bad([](json& j) { j.erase("steps"); }, "\"steps\" must be an array");
  expect_bad([](json& j) { j["steps"] = json::object(); }, "\"steps\" must be an array");
}

TEST(ScheduleJsonMalformed, CollectiveShapes) {
  expect_bad([](json& j) { j["collective"] = "allgather"; j["p"] = 2; j["nblocks"] = 3; }, "multiple of p");
  expect_bad([](json& j) { j["collective"] = "reduce-scatter"; j["nblocks"] = 3; }, "multiple of p");
  expect_bad([](json& j) { j["collective"] = "alltoall"; j["nblocks"] = 2; }, "nblocks = p*p");
}

TEST(ScheduleJsonMalformed, WrongRankCountOrOrder) {
  expect_bad([](json& j) { j["steps"][0].erase(1); }, "step 0: must list exactly p = 2 ranks");
  expect_bad([](json& j) { j["steps"][0].push_back(j["steps"][0][1]); }, "step 0: must list exactly p = 2 ranks");
  expect_bad([](json& j) { j["steps"].push_back(json::array()); }, "step 1: must list exactly p = 2 ranks");
  expect_bad([](json& j) { j["steps"][0] = json::object(); }, "step 0: must list exactly p = 2 ranks");
  expect_bad([](json& j) { std::swap(j["steps"][0][0], j["steps"][0][1]); }, "ranks must be listed in order");
  expect_bad([](json& j) { j["steps"][0][1].erase("rank"); }, "step 0, rank 1: missing \"rank\"");
}

TEST(ScheduleJsonMalformed, Transfers) {
  auto send0 = [](json& j) -> json& { return j["steps"][0][0]["sends"][0]; };
  expect_bad([&](json& j) { send0(j)["peer"] = 2; }, "step 0, rank 0: peer 2 out of range 0..1");
  expect_bad([&](json& j) { send0(j)["peer"] = 1000000; }, "peer 1000000 out of range");
  expect_bad([&](json& j) { send0(j)["peer"] = -1; }, "\"peer\" must be a non-negative integer");
  expect_bad([&](json& j) { send0(j).erase("peer"); }, "missing \"peer\"");
  expect_bad([&](json& j) { send0(j)["combine"] = "sum"; }, "\"combine\" must be \"copy\" or \"reduce\", not \"sum\"");
  expect_bad([&](json& j) { send0(j).erase("combine"); }, "missing \"combine\"");
  expect_bad([&](json& j) { send0(j)["combine"] = 1; }, "missing \"combine\"");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[1, 3]]"); }, "block range [1, 3) is empty or exceeds nblocks 2");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[1, 1]]"); }, "block range [1, 1) is empty");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[2, 1]]"); }, "block range [2, 1) is empty");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[0]]"); }, "each block range must be [lo, hi)");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[0, 1, 2]]"); }, "each block range must be [lo, hi)");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[-1, 1]]"); }, "each block range must be [lo, hi)");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[0, 1.5]]"); }, "each block range must be [lo, hi)");
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[1]"); }, "each block range must be [lo, hi)");
  expect_bad([&](json& j) { send0(j)["blocks"] = 1; }, "\"blocks\" must be an array");
  expect_bad([&](json& j) { send0(j).erase("blocks"); }, "\"blocks\" must be an array");
  expect_bad([](json& j) { j["steps"][0][0]["sends"] = json::object(); }, "\"sends\" must be an array");
  expect_bad([](json& j) { j["steps"][0][1]["recvs"] = 5; }, "step 0, rank 1: \"recvs\" must be an array");
  expect_bad([](json& j) { j["steps"][0][1]["recvs"] = json::parse("[7]"); }, "step 0, rank 1: missing \"peer\"");
}

// Regression: "root" and "ports" used to be truncated to 32 bits before the
// range checks, so root = 2^32 was read as 0 and ports = 2^32 + 1 as 1,
// silently (DESIGN.md: "Nothing is silently clamped").
TEST(ScheduleJsonMalformed, HugeRootAndPortsAreRejectedNotTruncated) {
  expect_bad([](json& j) { j["root"] = 4294967296ULL; }, "root 4294967296 out of range");
  expect_bad([](json& j) { j["ports"] = 4294967297ULL; }, "ports");
}

}  // namespace
}  // namespace collcheck
