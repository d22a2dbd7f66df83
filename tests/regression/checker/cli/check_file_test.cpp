// collcheck's schedule format end to end with the real binary
// (docs/schedule-format.md, docs/schedule.schema.json):
//
//  * round trip: for every registered algorithm (registry(), never a hand
//    list), its default variant at small p, `dump --format json` and
//    `--format jsonl` read back by `check-file` give the same verdicts as
//    `verify` on the same instance (every common property, whole verdict:
//    status, checks, counterexample, stats), the file's claims are judged
//    (cost against the registry's claim, a `claims` verdict) and the
//    encoding is detected by content (files are named with the other
//    extension on purpose);
//  * the JSON Schema: every dump (every algorithm, every variant) validates
//    (python3-jsonschema, Draft 2020-12), and broken documents are rejected
//    by the schema and by the reader alike;
//  * the bad-input list: unknown format version, truncated file,
//    p mismatch between header and body, peer out of range, duplicate step
//    entries, duplicate or missing ranks, empty/overlapping/out-of-range
//    block ranges, non-UTF-8 bytes, wrong JSON types, huge numbers: exit 2,
//    one line naming the file and the JSON path or line;
//  * claims that disagree with the schedule are violations (exit 1).
#include <gtest/gtest.h>

#include "tests/support/run_binary.hpp"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "schedules/registry.hpp"

namespace collcheck {
namespace {

using nlohmann::json;
using test::Outcome;
using test::run;
using test::temp_path;

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// One small instance: p, or a torus shape for the variants that take --dims.
struct Small {
  uint64_t p;
  std::vector<uint32_t> dims;
  std::string args() const {  // "--p 9" or "--dims 3x3"
    if (dims.empty()) return "--p " + std::to_string(p);
    std::string d;
    for (uint32_t n : dims) d += (d.empty() ? "" : "x") + std::to_string(n);
    return "--dims " + d;
  }
  std::string name() const { return args().substr(2); }
};

// The first `want` small instances the variant allows.
std::vector<Small> allowed(const VariantInfo& v, std::initializer_list<uint64_t> candidates, size_t want) {
  std::vector<Small> out;
  if (v.takes("dims")) {
    for (const std::vector<uint32_t>& d : {std::vector<uint32_t>{3, 3}, {2, 3}, {4}, {2, 2, 2}}) {
      uint64_t p = 1;
      for (uint32_t n : d) p *= n;
      InstanceParams ip{p, 0};
      ip.dims = d;
      if (out.size() < want && !v.violates(ip)) out.push_back({p, d});
    }
    return out;
  }
  for (uint64_t p : candidates)
    if (out.size() < want && !v.violates(InstanceParams{p, 0})) out.push_back({p, {}});
  return out;
}

std::map<std::string, json> verdicts_by_property(const json& report) {
  std::map<std::string, json> out;
  for (const json& v : report.at("instances").at(0).at("verdicts")) out[v.at("property").get<std::string>()] = v;
  return out;
}

std::string dump_to(const std::string& algo, const std::string& variant, const Small& inst, const std::string& format,
                    const std::string& path) {
  Outcome d = run("dump --algo " + algo + " --variant " + variant + " " + inst.args() + " --format " + format +
                  " --out " + path);
  EXPECT_EQ(d.code, 0) << algo << " " << inst.name() << " " << d.err;
  return path;
}

TEST(CheckFileRoundTrip, EveryAlgorithmDefaultVariantAgreesWithVerify) {
  const std::set<std::string> generic = {"matching", "ports", "causality", "exactly-once", "postcondition", "cost"};
  size_t instances = 0;
  for (const AlgorithmInfo& a : registry()) {
    const VariantInfo& v = a.default_variant();
    const auto insts = allowed(v, {5, 8, 9, 12, 4, 6, 2, 3, 16}, 2);
    ASSERT_FALSE(insts.empty()) << a.name << ": no small instance allowed";
    for (const Small& inst : insts) {
      SCOPED_TRACE(a.name + "/" + v.name + " " + inst.name());
      Outcome ver = run("verify --algo " + a.name + " " + inst.args() + " --format json --quiet");
      ASSERT_TRUE(ver.code == 0 || ver.code == 1) << ver.err;
      const auto expected = verdicts_by_property(json::parse(ver.out));
      for (const std::string format : {"json", "jsonl"}) {
        // Named with the other encoding's extension: detection is by content.
        const std::string path = dump_to(a.name, "default", inst, format,
                                         temp_path(a.name + std::to_string(inst.p) + (format == "json" ? ".jsonl" : ".json")));
        Outcome chk = run("check-file " + path + " --format json --quiet");
        ASSERT_EQ(chk.code, ver.code) << format << ": " << chk.err << chk.out.substr(0, 2000);
        const json report = json::parse(chk.out);
        EXPECT_EQ(report.at("instances").at(0).at("variant"),
                  format == "json" ? "collcheck-schedule/2" : "collcheck-schedule-lines/2");
        const auto got = verdicts_by_property(report);
        for (const std::string& prop : generic) {
          ASSERT_TRUE(got.count(prop)) << format << ": check-file has no " << prop << " verdict";
          ASSERT_TRUE(expected.count(prop)) << "verify has no " << prop << " verdict";
          EXPECT_EQ(got.at(prop), expected.at(prop)) << format << ": " << prop;
        }
        EXPECT_EQ(got.at("cost").at("status"), expected.at("cost").at("status"));
        EXPECT_NE(got.at("cost").at("status"), "skipped") << "dump writes the registry's claim";
        // The asserted properties hold exactly when verify says they hold.
        ASSERT_TRUE(got.count("claims")) << format;
        bool all_hold = true;
        for (const char* prop : {"matching", "ports", "causality", "exactly-once", "postcondition"})
          all_hold = all_hold && expected.at(prop).at("status") == "holds";
        EXPECT_EQ(got.at("claims").at("status"), all_hold ? "holds" : "violated");
        ++instances;
      }
    }
  }
  EXPECT_GE(instances, 2 * registry().size());
}

// A Python that has jsonschema with Draft 2020-12 (Debian: python3-jsonschema).
std::string python_with_jsonschema() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    const std::string cmd = std::string(py) + " -c 'from jsonschema import Draft202012Validator' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return "";
}

// "ok PATH" / "invalid PATH: ..." per file.
std::map<std::string, std::string> schema_verdicts(const std::vector<std::string>& files) {
  const std::string py = python_with_jsonschema();
  if (py.empty()) {
    ADD_FAILURE() << "no python3 with jsonschema (Draft 2020-12): install python3-jsonschema (scripts/common.sh PACKAGES)";
    return {};
  }
  std::string cmd = py + " " + COLLCHECK_SOURCE_DIR + "/tests/support/validate_schedule_schema.py " +
                    COLLCHECK_SOURCE_DIR + "/docs/schedule.schema.json";
  for (const auto& f : files) cmd += " " + f;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  std::map<std::string, std::string> res;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const bool ok = line.rfind("ok ", 0) == 0;
    const std::string rest = line.substr(ok ? 3 : 8);
    const std::string path = ok ? rest : rest.substr(0, rest.find(": "));
    res[path] = line;
  }
  return res;
}

TEST(CheckFileSchema, EveryDumpOfEveryVariantValidates) {
  std::vector<std::string> files;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      const auto insts = allowed(v, {6, 8, 9, 5, 4, 3, 2, 16}, 1);
      EXPECT_FALSE(insts.empty()) << a.name << "/" << v.name << ": no small instance allowed";
      if (insts.empty()) continue;
      for (const std::string format : {"json", "jsonl"})
        files.push_back(dump_to(a.name, v.name, insts[0], format,
                                temp_path("schema_" + a.name + "_" + v.name + "." + format)));
    }
  ASSERT_GE(files.size(), 2 * registry().size());
  const auto res = schema_verdicts(files);
  ASSERT_EQ(res.size(), files.size());
  for (const auto& f : files) EXPECT_EQ(res.at(f).rfind("ok ", 0), 0u) << res.at(f);
}

// A small valid file to break: swing p = 4, JSON (with claims and producer).
json valid_doc() {
  Outcome d = run("dump --algo swing --p 4 --format json");
  EXPECT_EQ(d.code, 0);
  return json::parse(d.out);
}

TEST(CheckFileSchema, BrokenDocumentsAreRejectedByTheSchemaAndByTheReader) {
  std::vector<std::pair<std::string, std::function<void(json&)>>> breaks = {
      {"no_format", [](json& j) { j.erase("format"); }},
      {"version3", [](json& j) { j["format"] = "collcheck-schedule/3"; }},
      {"p_zero", [](json& j) { j["p"] = 0; }},
      {"p_string", [](json& j) { j["p"] = "4"; }},
      {"unknown_collective", [](json& j) { j["collective"] = "allreduc"; }},
      {"extra_key", [](json& j) { j["extra"] = 1; }},
      {"ports_zero", [](json& j) { j["ports"] = 0; }},
      {"peer_negative", [](json& j) { j["steps"][0][0]["sends"][0]["peer"] = -1; }},
      {"combine_sum", [](json& j) { j["steps"][0][0]["sends"][0]["combine"] = "sum"; }},
      {"range_one_number", [](json& j) { j["steps"][0][0]["sends"][0]["blocks"] = json::parse("[[1]]"); }},
      {"range_three_numbers", [](json& j) { j["steps"][0][0]["sends"][0]["blocks"] = json::parse("[[1,2,3]]"); }},
      {"blocks_empty", [](json& j) { j["steps"][0][0]["sends"][0]["blocks"] = json::array(); }},
      {"transfer_missing_combine", [](json& j) { j["steps"][0][0]["sends"][0].erase("combine"); }},
      {"entry_missing_rank", [](json& j) { j["steps"][0][1].erase("rank"); }},
      {"entry_extra_key", [](json& j) { j["steps"][0][1]["step"] = 0; }},
      {"claims_unknown_key", [](json& j) { j["claims"]["latency"] = 3; }},
      {"claims_unknown_property", [](json& j) { j["claims"]["properties"].push_back("fast"); }},
      {"claims_negative_steps", [](json& j) { j["claims"]["steps"] = -1; }},
      {"producer_number", [](json& j) { j["producer"]["version"] = 1; }},
      {"v1_with_claims", [](json& j) { j["format"] = "collcheck-schedule/1"; }},
      {"steps_not_array", [](json& j) { j["steps"] = json::object(); }},
      {"step_empty", [](json& j) { j["steps"][0] = json::array(); }},
  };
  std::vector<std::string> files;
  for (auto& [name, edit] : breaks) {
    json j = valid_doc();
    edit(j);
    files.push_back(temp_path("broken_" + name + ".json"));
    write_file(files.back(), j.dump(1));
  }
  // JSON lines: a broken header and a broken entry line.
  {
    Outcome d = run("dump --algo swing --p 4 --format jsonl");
    std::string text = d.out;
    std::string bad_header = text;
    bad_header.replace(bad_header.find("\"p\": 4"), 6, "\"p\": -4");
    files.push_back(temp_path("broken_lines_header.jsonl"));
    write_file(files.back(), bad_header);
    std::string bad_entry = text;
    bad_entry.replace(bad_entry.find("\"combine\": \"reduce\""), 19, "\"combine\": \"max\"");
    files.push_back(temp_path("broken_lines_entry.jsonl"));
    write_file(files.back(), bad_entry);
  }
  const auto res = schema_verdicts(files);
  ASSERT_EQ(res.size(), files.size());
  for (const auto& f : files) {
    EXPECT_EQ(res.at(f).rfind("invalid ", 0), 0u) << "the schema accepts " << f;
    Outcome chk = run("check-file " + f + " --quiet");
    EXPECT_EQ(chk.code, 2) << f << ": " << chk.out.substr(0, 500);
    EXPECT_EQ(test::lines(chk.err), 1u) << chk.err;
    EXPECT_NE(chk.err.find("collcheck: error: malformed schedule: " + f), std::string::npos) << chk.err;
  }
}

// ---- the bad-input list ----

struct Bad {
  std::string name;
  std::string text;
  std::vector<std::string> needles;  // besides the file name
};

void expect_rejected(const Bad& b, const std::string& ext, const std::string& extra_args = "") {
  SCOPED_TRACE(b.name);
  const std::string path = temp_path("bad_" + b.name + ext);
  write_file(path, b.text);
  Outcome r = run("check-file " + path + " --quiet " + extra_args);
  EXPECT_EQ(r.code, 2) << r.out.substr(0, 500);
  EXPECT_EQ(test::lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("collcheck: error: malformed schedule: " + path, 0), 0u) << r.err;
  for (const auto& n : b.needles) EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not in " << r.err;
}

std::string dumped(const std::string& format, uint64_t p = 4) {
  Outcome d = run("dump --algo swing --p " + std::to_string(p) + " --format " + format);
  EXPECT_EQ(d.code, 0);
  return d.out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string join_lines(const std::vector<std::string>& l) {
  std::string out;
  for (const auto& x : l) out += x + "\n";
  return out;
}

TEST(CheckFileBadInput, JsonDocuments) {
  const json doc = valid_doc();
  auto edited = [&](const std::function<void(json&)>& f) {
    json j = doc;
    f(j);
    return j.dump(1);
  };
  const std::string text = doc.dump(1);
  std::string non_utf8 = text;
  non_utf8.replace(non_utf8.find("\"tool\": \"collcheck\""), 19, "\"tool\": \"coll\xc3\x28" "check\"");
  const std::vector<Bad> bad = {
      {"version", edited([](json& j) { j["format"] = "collcheck-schedule/7"; }), {"unknown format version \"collcheck-schedule/7\""}},
      {"truncated", text.substr(0, text.size() / 2), {"not valid JSON", "unexpected end of input"}},
      {"empty", "", {"not valid JSON"}},
      {"p_mismatch_short_step", edited([](json& j) { j["steps"][2].erase(3); }), {"/steps/2: this step lists 3 rank entries, but the header says p = 4"}},
      {"p_mismatch_header", edited([](json& j) { j["p"] = 3; }), {"/steps/0/2/recvs/0/peer: peer 3 out of range 0..2"}},
      {"peer_out_of_range", edited([](json& j) { j["steps"][3][2]["sends"][0]["peer"] = 4; }), {"/steps/3/2/sends/0/peer: peer 4 out of range 0..3"}},
      {"duplicate_rank", edited([](json& j) { j["steps"][1][2] = j["steps"][1][1]; }), {"/steps/1/2/rank: rank 1 listed twice"}},
      {"missing_rank", edited([](json& j) { j["steps"][1][1] = j["steps"][1][2]; }), {"/steps/1/1/rank: rank 1 is missing"}},
      {"range_out_of_range", edited([](json& j) { j["steps"][0][1]["recvs"][0]["blocks"] = json::parse("[[1,5]]"); }), {"/steps/0/1/recvs/0/blocks/0/1: block index 5 out of range (expected 0..nblocks = 4)"}},
      {"range_empty", edited([](json& j) { j["steps"][0][1]["recvs"][0]["blocks"] = json::parse("[[2,2]]"); }), {"/steps/0/1/recvs/0/blocks/0: block range [2, 2) is empty"}},
      {"range_overlap", edited([](json& j) { j["steps"][0][1]["recvs"][0]["blocks"] = json::parse("[[0,2],[1,3]]"); }), {"/steps/0/1/recvs/0/blocks/1: block range [1, 3) overlaps [0, 2)"}},
      {"non_utf8", non_utf8, {"in /producer/tool: not valid JSON", "UTF-8", "\\xc3"}},
      {"wrong_type_peer", edited([](json& j) { j["steps"][0][0]["sends"][0]["peer"] = "1"; }), {"/steps/0/0/sends/0/peer: expected the peer rank", "got the string \"1\""}},
      {"wrong_type_steps", edited([](json& j) { j["steps"] = 4; }), {"/steps: expected an array of steps", "got 4"}},
      {"huge_nblocks", edited([](json& j) { j["nblocks"] = 18446744073709551615ULL; }), {"/nblocks: nblocks must be in 1..2^63, got 18446744073709551615"}},
      {"huge_peer", edited([](json& j) { j["steps"][0][0]["sends"][0]["peer"] = 4294967297ULL; }), {"/steps/0/0/sends/0/peer: peer 4294967297 out of range"}},
      {"huger_than_uint64", std::string("{\"format\": \"collcheck-schedule/2\", \"p\": 99999999999999999999999}"), {"/p: expected the number of ranks", "(too large)"}},
      {"duplicate_key", std::string("{\"format\": \"collcheck-schedule/2\", \"format\": \"collcheck-schedule/2\"}"), {"/format: duplicate key \"format\""}},
      {"unknown_asserted_property", edited([](json& j) { j["claims"]["properties"] = json::parse("[\"cost\"]"); }), {"/claims/properties/0: \"cost\" is not a property check-file judges"}},
  };
  for (const Bad& b : bad) expect_rejected(b, ".json");
  // Forcing the wrong encoding is bad input too, with the reason.
  expect_rejected({"forced_jsonl", text, {":1: column 2", "not valid JSON"}}, ".json", "--schedule-format jsonl");
  expect_rejected({"forced_jsonl_one_line", doc.dump(), {":1: /format: a JSON-lines header needs"}}, ".json",
                  "--schedule-format jsonl");
}

TEST(CheckFileBadInput, JsonLines) {
  const std::vector<std::string> lines = split_lines(dumped("jsonl"));  // header + 4 steps x 4 ranks
  ASSERT_EQ(lines.size(), 17u);
  auto with = [&](size_t i, const std::string& line) {
    auto l = lines;
    l[i] = line;
    return join_lines(l);
  };
  auto without = [&](size_t i) {
    auto l = lines;
    l.erase(l.begin() + static_cast<long>(i));
    return join_lines(l);
  };
  std::string header = lines[0];
  auto header_with = [&](const std::string& from, const std::string& to) {
    std::string h = header;
    h.replace(h.find(from), from.size(), to);
    return with(0, h);
  };
  std::string cut_mid_line = join_lines(lines);
  cut_mid_line.resize(cut_mid_line.size() - 30);
  auto dup = lines;
  dup.insert(dup.begin() + 7, lines[6]);
  std::string non_utf8 = lines[5];
  non_utf8.replace(non_utf8.find("\"reduce\""), 8, "\"red\xff" "uce\"");
  const std::vector<Bad> bad = {
      {"version", header_with("collcheck-schedule-lines/2", "collcheck-schedule-lines/9"), {":1: /format: unknown format version \"collcheck-schedule-lines/9\""}},
      {"truncated_lines", join_lines({lines.begin(), lines.end() - 3}), {":14: end of file: truncated", "expected step 3, rank 1 next"}},
      {"truncated_mid_line", cut_mid_line, {":17: column", "not valid JSON"}},
      {"header_only", lines[0] + "\n", {"truncated", "the file ends after 0"}},
      {"p_mismatch", header_with("\"p\": 4", "\"p\": 3"), {":4: /sends/0/peer: peer 3 out of range 0..2"}},
      {"p_mismatch_rank", with(4, "{\"step\": 0, \"rank\": 4, \"sends\": [], \"recvs\": []}"), {":5: /rank: rank 4 out of range 0..3"}},
      {"duplicate_step_entry", join_lines(dup), {":8: /rank: duplicate entry for step 1, rank 1", "expected step 1, rank 2 next"}},
      {"missing_entry", without(6), {":7: /rank: the entry for step 1, rank 1 is missing", "found step 1, rank 2"}},
      {"step_beyond_header", with(16, "{\"step\": 4, \"rank\": 3}"), {":17: /step: step 4 out of range: the header declares 4 steps"}},
      {"peer_out_of_range", with(3, "{\"step\": 0, \"rank\": 2, \"sends\": [{\"peer\": 9, \"blocks\": [[0,1]], \"combine\": \"copy\"}]}"), {":4: /sends/0/peer: peer 9 out of range 0..3"}},
      {"range_out_of_range", with(3, "{\"step\": 0, \"rank\": 2, \"recvs\": [{\"peer\": 3, \"blocks\": [[3,9]], \"combine\": \"copy\"}]}"), {":4: /recvs/0/blocks/0/1: block index 9 out of range"}},
      {"range_overlap", with(3, "{\"step\": 0, \"rank\": 2, \"recvs\": [{\"peer\": 3, \"blocks\": [[0,3],[2,4]], \"combine\": \"copy\"}]}"), {":4: /recvs/0/blocks/1: block range [2, 4) overlaps [0, 3)"}},
      {"non_utf8", with(5, non_utf8), {":6: column", "not valid JSON", "UTF-8"}},
      {"wrong_type", with(2, "{\"step\": \"0\", \"rank\": 1}"), {":3: /step: expected the step, an integer, got the string \"0\""}},
      {"huge_number", with(2, "{\"step\": 0, \"rank\": 18446744073709551616}"), {":3: /rank: expected the rank", "(too large)"}},
      {"header_missing_steps", header_with(", \"steps\": 4", ""), {":1: top level: missing \"steps\""}},
      {"entry_not_object", with(2, "[0, 1]"), {":3: top level: expected a rank entry"}},
  };
  for (const Bad& b : bad) expect_rejected(b, ".jsonl");
}

// ---- claims ----

TEST(CheckFileClaims, DisagreeingClaimsAreViolations) {
  json doc = valid_doc();
  doc["claims"]["steps"] = 3;  // swing p = 4 takes 4 steps
  std::string path = temp_path("claims_steps.json");
  write_file(path, doc.dump(1));
  Outcome r = run("check-file " + path + " --quiet --format json");
  ASSERT_EQ(r.code, 1) << r.err;
  auto v = verdicts_by_property(json::parse(r.out));
  EXPECT_EQ(v.at("cost").at("status"), "violated");
  EXPECT_NE(v.at("cost").at("counterexample").dump().find("3 steps"), std::string::npos) << v.at("cost").dump();
  EXPECT_EQ(v.at("claims").at("status"), "holds");

  // Only a volume claim: the steps half is not judged (and not reported as claimed).
  json vol = valid_doc();
  vol["claims"] = json::parse(R"({"volume_blocks": 6})");
  path = temp_path("claims_volume.json");
  write_file(path, vol.dump(1));
  r = run("check-file " + path + " --quiet --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  v = verdicts_by_property(json::parse(r.out));
  EXPECT_EQ(v.at("cost").at("status"), "holds");
  EXPECT_FALSE(v.at("cost").at("stats").contains("claimed_steps"));
  vol["claims"]["volume_blocks"] = 5;
  write_file(path, vol.dump(1));
  EXPECT_EQ(run("check-file " + path + " --quiet").code, 1);

  // An asserted property that is violated: drop the last (allgather) step.
  json cut = valid_doc();
  cut["steps"].erase(3);
  cut["claims"].erase("steps");
  cut["claims"].erase("volume_blocks");
  path = temp_path("claims_asserted.json");
  write_file(path, cut.dump(1));
  r = run("check-file " + path + " --quiet --format json");
  ASSERT_EQ(r.code, 1) << r.err;
  v = verdicts_by_property(json::parse(r.out));
  EXPECT_EQ(v.at("postcondition").at("status"), "violated");
  EXPECT_EQ(v.at("claims").at("status"), "violated");
  EXPECT_EQ(v.at("cost").at("status"), "skipped");
  const json& pc = v.at("postcondition").at("counterexample");
  const json& cc = v.at("claims").at("counterexample");
  for (const char* k : {"rank", "step", "block"}) EXPECT_EQ(pc.at(k), cc.at(k)) << k;
  EXPECT_NE(cc.dump().find("asserts that postcondition holds"), std::string::npos) << cc.dump();
}

// The binary on one-sided corruptions (the exhaustive version, in process:
// tests/mutation/schedules/formats/schedule_file_mutation_test.cpp): swing p = 8, in every step
// one rank's first send gets another peer; check-file exits 1 and a violated
// verdict's counterexample names that step and that rank (as rank or peer).
TEST(CheckFileMutation, TheReportNamesTheCorruptedStepAndRank) {
  Outcome d = run("dump --algo swing --p 8 --format json");
  ASSERT_EQ(d.code, 0);
  const json base = json::parse(d.out);
  for (int s = 0; s < static_cast<int>(base.at("steps").size()); ++s) {
    const uint64_t r = (3 * static_cast<uint64_t>(s) + 5) % 8;
    json j = base;
    json& peer = j["steps"][s][r]["sends"][0]["peer"];
    peer = (peer.get<uint64_t>() + 1) % 8 == r ? (peer.get<uint64_t>() + 2) % 8 : (peer.get<uint64_t>() + 1) % 8;
    const std::string path = temp_path("mutant_step" + std::to_string(s) + ".json");
    write_file(path, j.dump(1));
    Outcome out = run("check-file " + path + " --quiet --format json");
    ASSERT_EQ(out.code, 1) << out.err;
    bool named = false;
    const json report = json::parse(out.out);
    for (const json& v : report.at("instances").at(0).at("verdicts")) {
      if (v.at("status") != "violated") continue;
      const json& c = v.at("counterexample");
      named = named || (c.value("step", json()) == s && (c.value("rank", json()) == r || c.value("peer", json()) == r));
    }
    EXPECT_TRUE(named) << "step " << s << " rank " << r << ": " << out.out.substr(0, 1500);
  }
}

}  // namespace
}  // namespace collcheck
