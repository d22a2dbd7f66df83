// The JSON exchange format of a materialized schedule (schedules/formats/schedule_json.hpp,
// docs/schedule-format.md):
//
//  * round trip: materialize -> to_json (compact and indented) ->
//    schedule_from_json gives back the same schedule, for registry schedules
//    of every algorithm (even, odd, folded, 2-port, p = 1, zero steps), and
//    the re-read schedule checks exactly like the original;
//  * tolerated input: optional root/ports/sends/recvs, unsorted or adjacent
//    block ranges (canonicalized), keys in any order (steps before p);
//  * malformed input (not JSON, missing, unknown or duplicate keys, wrong
//    types, peer out of range, bad combine, empty or overlapping block
//    ranges, block range beyond nblocks, wrong rank count, ...) throws
//    InputError with a one-line message naming the source, the JSON path and
//    what was expected there.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"
#include "schedules/formats/schedule_json.hpp"

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
  EXPECT_FALSE(j.contains("claims")) << "to_json writes the schedule alone";
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
    "format": "collcheck-schedule/2", "collective": "allreduce",
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
  j["steps"][0][0]["sends"][0]["blocks"] = json::parse("[[5, 7], [0, 2], [2, 3], [7, 8]]");
  MaterializedSchedule m = schedule_from_json(j.dump());
  EXPECT_EQ(m.steps[0][0].sends[0].blocks.to_string(), "{0-2,5-7}");
}

TEST(ScheduleJsonInput, KeyOrderDoesNotMatter) {
  // "steps" before "p" and "nblocks": the header-dependent checks run after the document.
  const std::string text = R"({"steps": [[{"sends": [{"combine": "reduce", "blocks": [[1, 2]], "peer": 1}],
    "rank": 0, "recvs": [{"peer": 1, "blocks": [[0, 1]], "combine": "reduce"}]},
    {"rank": 1, "sends": [{"peer": 0, "blocks": [[0, 1]], "combine": "reduce"}],
     "recvs": [{"peer": 0, "blocks": [[1, 2]], "combine": "reduce"}]}]],
    "nblocks": 2, "p": 2, "collective": "allreduce", "format": "collcheck-schedule/1"})";
  EXPECT_TRUE(same(schedule_from_json(valid().dump()), schedule_from_json(text)));
}

// Throws InputError, with a one-line message naming the source and containing every needle.
void expect_bad(const std::string& text, const std::vector<std::string>& needles) {
  try {
    schedule_from_json(text, "doc.json");
    ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("malformed schedule: doc.json: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
    for (const auto& needle : needles) EXPECT_NE(msg.find(needle), std::string::npos) << "'" << needle << "' not in: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-InputError: " << e.what() << " for " << text.substr(0, 200);
  }
}

void expect_bad(const std::function<void(json&)>& edit, const std::vector<std::string>& needles) {
  json j = valid();
  edit(j);
  SCOPED_TRACE(needles.front());
  expect_bad(j.dump(), needles);
}

TEST(ScheduleJsonMalformed, NotJson) {
  expect_bad("", {"not valid JSON"});
  expect_bad("not json", {"line 1, column 2", "not valid JSON"});
  expect_bad("{\"format\": \"collcheck-schedule/2\",\n\n \"p\": ", {"line 3", "in /p", "not valid JSON"});
  expect_bad("{\"a\":\n\n x}", {"unknown key \"a\""});
  expect_bad("[1, 2", {"expected the schedule object"});
  expect_bad(valid().dump() + " trailing", {"not valid JSON", "end of input"});
}

TEST(ScheduleJsonMalformed, TopLevel) {
  expect_bad("[]", {"top level: expected the schedule object", "got an array"});
  expect_bad("42", {"top level: expected the schedule object", "got 42"});
  expect_bad([](json& j) { j.erase("format"); }, {"top level: missing \"format\""});
  expect_bad([](json& j) { j["format"] = "collcheck-schedule/3"; }, {"/format: unknown format version \"collcheck-schedule/3\""});
  expect_bad([](json& j) { j["format"] = "msccl"; }, {"/format: expected \"collcheck-schedule/2\", got \"msccl\""});
  expect_bad([](json& j) { j["format"] = "collcheck-schedule-lines/2"; }, {"/format", "JSON-lines form"});
  expect_bad([](json& j) { j.erase("collective"); }, {"missing \"collective\""});
  expect_bad([](json& j) { j["collective"] = 3; }, {"/collective: expected a collective name", "got 3"});
  expect_bad([](json& j) { j["collective"] = "allreduc"; }, {"/collective: unknown collective \"allreduc\""});
  expect_bad([](json& j) { j.erase("p"); }, {"top level: missing \"p\""});
  expect_bad([](json& j) { j["p"] = -2; }, {"/p: expected the number of ranks", "got -2"});
  expect_bad([](json& j) { j["p"] = 2.5; }, {"/p: expected the number of ranks", "got 2.5 (not an integer)"});
  expect_bad([](json& j) { j["p"] = "2"; }, {"/p: expected the number of ranks", "got the string \"2\""});
  expect_bad([](json& j) { j["p"] = nullptr; }, {"/p: expected the number of ranks", "got null"});
  expect_bad([](json& j) { j["p"] = true; }, {"/p: expected the number of ranks", "got true"});
  expect_bad([](json& j) { j["p"] = 0; }, {"/p: p must be in 1..2^24"});
  expect_bad([](json& j) { j["p"] = 16777217; }, {"/p: p must be in 1..2^24"});
  expect_bad([](json& j) { j.erase("nblocks"); }, {"missing \"nblocks\""});
  expect_bad([](json& j) { j["nblocks"] = 0; }, {"/nblocks: nblocks must be in 1..2^63"});
  expect_bad([](json& j) { j["root"] = 2; }, {"/root: root 2 out of range 0..1"});
  expect_bad([](json& j) { j["ports"] = 0; }, {"/ports: ports must be in 1..1024"});
  expect_bad([](json& j) { j.erase("steps"); }, {"missing \"steps\""});
  expect_bad([](json& j) { j["steps"] = json::object(); }, {"/steps: expected an array of steps", "got an object"});
  expect_bad([](json& j) { j["extra"] = 1; }, {"top level: unknown key \"extra\"", "expected one of: format, collective"});
}

TEST(ScheduleJsonMalformed, DuplicateKeysAreNotSilentlyMerged) {
  // nlohmann's DOM parser would keep the last "p"; the reader refuses.
  expect_bad(R"({"format": "collcheck-schedule/2", "p": 2, "p": 3})", {"/p: duplicate key \"p\""});
  std::string text = valid().dump();
  text.replace(text.find("\"peer\":1"), 8, "\"peer\":1,\"peer\":0");
  expect_bad(text, {"/steps/0/0/recvs/0/peer: duplicate key \"peer\""});
}

TEST(ScheduleJsonMalformed, CollectiveShapes) {
  expect_bad([](json& j) { j["collective"] = "allgather"; j["p"] = 2; j["nblocks"] = 3; }, {"/nblocks", "multiple of p"});
  expect_bad([](json& j) { j["collective"] = "reduce-scatter"; j["nblocks"] = 3; }, {"multiple of p"});
  expect_bad([](json& j) { j["collective"] = "alltoall"; j["nblocks"] = 2; }, {"nblocks = p*p"});
}

TEST(ScheduleJsonMalformed, WrongRankCountOrOrder) {
  expect_bad([](json& j) { j["steps"][0].erase(1); }, {"/steps/0: this step lists 1 rank entries, but the header says p = 2"});
  expect_bad([](json& j) { j["steps"][0].push_back(j["steps"][0][1]); }, {"/steps/0/2: this step lists more than p = 2"});
  expect_bad([](json& j) { j["steps"].push_back(json::array()); }, {"/steps/1: this step lists 0 rank entries"});
  expect_bad([](json& j) { j["steps"][0] = json::object(); }, {"/steps/0: expected an array of the p rank entries"});
  expect_bad([](json& j) { std::swap(j["steps"][0][0], j["steps"][0][1]); }, {"/steps/0/0/rank: rank 0 is missing from this step"});
  expect_bad([](json& j) { j["steps"][0][1] = j["steps"][0][0]; }, {"/steps/0/1/rank: rank 0 listed twice"});
  expect_bad([](json& j) { j["steps"][0][1].erase("rank"); }, {"/steps/0/1: missing \"rank\""});
}

TEST(ScheduleJsonMalformed, Transfers) {
  auto send0 = [](json& j) -> json& { return j["steps"][0][0]["sends"][0]; };
  expect_bad([&](json& j) { send0(j)["peer"] = 2; }, {"/steps/0/0/sends/0/peer: peer 2 out of range 0..1"});
  expect_bad([&](json& j) { send0(j)["peer"] = 1000000; }, {"peer 1000000 out of range"});
  expect_bad([&](json& j) { send0(j)["peer"] = -1; }, {"/steps/0/0/sends/0/peer: expected the peer rank", "got -1"});
  expect_bad([&](json& j) { send0(j).erase("peer"); }, {"/steps/0/0/sends/0: missing \"peer\""});
  expect_bad([&](json& j) { send0(j)["combine"] = "sum"; }, {"/combine: \"combine\" must be \"copy\" or \"reduce\", not \"sum\""});
  expect_bad([&](json& j) { send0(j).erase("combine"); }, {"missing \"combine\""});
  expect_bad([&](json& j) { send0(j)["combine"] = 1; }, {"/combine: expected \"copy\" or \"reduce\", got 1"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[1, 3]]"); }, {"/steps/0/0/sends/0/blocks/0/1: block index 3 out of range"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[1, 1]]"); }, {"/blocks/0: block range [1, 1) is empty"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[2, 1]]"); }, {"block range [2, 1) is empty"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[0]]"); }, {"/blocks/0: a block range is [lo, hi): exactly two integers, got 1"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[0, 1, 2]]"); }, {"/blocks/0/2: a block range is [lo, hi)"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[-1, 1]]"); }, {"/blocks/0/0: expected a block index", "got -1"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[[0, 1.5]]"); }, {"/blocks/0/1: expected a block index", "1.5"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::parse("[1]"); }, {"/blocks/0: expected a block range [lo, hi)"});
  expect_bad([&](json& j) { send0(j)["blocks"] = json::array(); }, {"/blocks: an empty block list"});
  expect_bad([&](json& j) { send0(j)["blocks"] = 1; }, {"/blocks: expected a non-empty array of block ranges"});
  expect_bad([&](json& j) { send0(j).erase("blocks"); }, {"missing \"blocks\""});
  expect_bad([&](json& j) { j["nblocks"] = 9; send0(j)["blocks"] = json::parse("[[0, 3], [5, 7], [2, 4]]"); },
             {"/steps/0/0/sends/0/blocks/2: block range [2, 4) overlaps [0, 3) at blocks/0"});
  expect_bad([](json& j) { j["steps"][0][0]["sends"] = json::object(); }, {"/steps/0/0/sends: expected an array of transfers"});
  expect_bad([](json& j) { j["steps"][0][1]["recvs"] = 5; }, {"/steps/0/1/recvs: expected an array of transfers"});
  expect_bad([](json& j) { j["steps"][0][1]["recvs"] = json::parse("[7]"); }, {"/steps/0/1/recvs/0: expected a transfer"});
  expect_bad([](json& j) { j["steps"][0][1]["recvs"][0]["bytes"] = 7; }, {"/steps/0/1/recvs/0: unknown key \"bytes\""});
}

TEST(ScheduleJsonMalformed, DeferredChecksNameThePathToo) {
  // "steps" first: peer and block ranges are judged once p and nblocks are known.
  json j = valid();
  j["steps"][0][1]["recvs"][0]["peer"] = 5;
  std::string text = j.dump();  // nlohmann sorts keys: "steps" comes after "p"; move it first
  json steps = j["steps"];
  j.erase("steps");
  std::string moved = "{\"steps\":" + steps.dump() + "," + j.dump().substr(1);
  expect_bad(moved, {"/steps/0/1/recvs/0/peer: peer 5 out of range 0..1"});
  expect_bad(text, {"/steps/0/1/recvs/0/peer: peer 5 out of range 0..1"});
}

// Regression: "root" and "ports" used to be truncated to 32 bits before the
// range checks, so root = 2^32 was read as 0 and ports = 2^32 + 1 as 1,
// silently (bad input is refused, never silently clamped: schedules/input_error.hpp).
TEST(ScheduleJsonMalformed, HugeNumbersAreRejectedNotTruncated) {
  expect_bad([](json& j) { j["root"] = 4294967296ULL; }, {"root 4294967296 out of range"});
  expect_bad([](json& j) { j["ports"] = 4294967297ULL; }, {"ports"});
  expect_bad(R"({"p": 123456789012345678901234567890})", {"/p: expected the number of ranks", "(too large)"});
  expect_bad(R"({"p": 1e400})", {"not valid JSON", "number overflow"});
}

TEST(ScheduleJsonMalformed, NonUtf8BytesAreReportedPrintably) {
  std::string text = valid().dump();
  text.replace(text.find("allreduce"), 9, "all\xff\xfe" "duce");
  expect_bad(text, {"/collective", "not valid JSON", "UTF-8"});
  expect_bad(std::string("{\"format\": \x80}"), {"not valid JSON", "\\x80"});
}

TEST(ScheduleJsonMalformed, Version1HasNoClaims) {
  json j = valid();
  j["format"] = "collcheck-schedule/1";
  j["claims"] = json::parse(R"({"steps": 1})");
  expect_bad(j.dump(), {"/claims", "need \"format\": \"collcheck-schedule/2\""});
  j["format"] = "collcheck-schedule/2";
  EXPECT_EQ(schedule_from_json(j.dump()).spec.p, 2u);
}

}  // namespace
}  // namespace collcheck
