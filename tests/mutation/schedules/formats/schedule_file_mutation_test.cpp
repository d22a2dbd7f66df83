// The goal: "a schedule with one corrupted transfer is always rejected
// with the corrupted step and rank named". Over EVERY transfer of two small
// schedules (swing p = 8, 48 transfers; trivance n = 9, two ports, 36
// transfers), in both encodings of collcheck's format (JSON and JSON lines),
// each transfer is corrupted in the file, at either end (the sender's entry in
// "sends" or the receiver's in "recvs"), in each of three ways: its peer, its
// blocks (one block removed, or added when it has one), its combine mode.
// The file is read back by the same reader as check-file, checked with the
// file's claims, and the JSON report must have a violated verdict whose
// counterexample names the corrupted step and the corrupted rank (as `rank`,
// or as `peer` when the other end has the smaller rank: counterexamples are
// the minimal (rank, step, block)). Matching catches every one-sided edit.
//
// Also: corrupting both ends consistently (blocks or combine; matching then
// holds) is still always rejected, by the flow properties; their
// counterexample is where the data goes wrong, which need not be the
// corrupted step (e.g. a missing contribution is seen by the postcondition
// at the end), so only rejection is asserted there. (The real binary's
// check-file on such files: tests/regression/checker/cli/check_file_test.cpp.)
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "checker/sweep/file_claims.hpp"
#include "properties/instance_checker.hpp"
#include "reports/report.hpp"
#include "schedules/registry.hpp"
#include "schedules/formats/schedule_file.hpp"

namespace collcheck {
namespace {

using nlohmann::json;

struct Subject {
  const char* algo;
  uint64_t p;
  size_t transfers;  // sends over all steps and ranks (independent count: the paper's formulas below)
};

// swing p = 8: 2 log2 p = 6 steps, one send per rank per step: 48.
// trivance n = 9 (latency): log3 9 = 2 steps, two ports (r - 3^k, r + 3^k): 2 * 9 * 2 = 36.
const Subject kSubjects[] = {{"swing", 8, 48}, {"trivance", 9, 36}};

std::string dumped(const Subject& sub, ScheduleEncoding enc) {
  const AlgorithmInfo& a = *find_algorithm(sub.algo);
  const VariantInfo& v = a.default_variant();
  const InstanceParams ip{sub.p, 0};
  auto s = v.make(ip);
  const Claim c = v.claim(ip);
  FileMeta meta;
  meta.claims = FileClaims{};
  meta.claims->steps = c.steps;
  meta.claims->volume_blocks = c.volume_blocks;
  meta.claims->properties = assertable_properties();
  std::ostringstream out;
  if (enc == ScheduleEncoding::json) write_schedule_json(out, *s, meta, true);
  else write_schedule_jsonl(out, *s, meta);
  return out.str();
}

// The file as JSON values: the document, or the lines.
struct Editable {
  ScheduleEncoding enc;
  json doc;
  std::vector<json> lines;
  uint64_t p = 0;

  explicit Editable(const std::string& text, ScheduleEncoding e) : enc(e) {
    if (enc == ScheduleEncoding::json) {
      doc = json::parse(text);
      p = doc.at("p");
    } else {
      std::istringstream in(text);
      for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
      p = lines.at(0).at("p");
    }
  }
  int steps() const {
    return enc == ScheduleEncoding::json ? static_cast<int>(doc.at("steps").size()) : lines.at(0).at("steps").get<int>();
  }
  json& entry(int s, uint64_t r) {
    return enc == ScheduleEncoding::json ? doc["steps"][s][r] : lines.at(1 + static_cast<size_t>(s) * p + r);
  }
  std::string text() const {
    if (enc == ScheduleEncoding::json) return doc.dump(1);
    std::string out;
    for (const json& l : lines) out += l.dump() + "\n";
    return out;
  }
};

enum class Kind { peer, blocks, combine };
const char* name(Kind k) { return k == Kind::peer ? "peer" : k == Kind::blocks ? "blocks" : "combine"; }

// Edits one transfer value; false if this kind cannot change it.
bool corrupt(json& t, Kind k, uint64_t p, uint64_t nblocks, uint64_t self) {
  switch (k) {
    case Kind::peer: {
      uint64_t q = (t.at("peer").get<uint64_t>() + 1) % p;
      if (q == self) q = (q + 1) % p;
      if (q == t.at("peer")) return false;
      t["peer"] = q;
      return true;
    }
    case Kind::blocks: {
      std::vector<uint64_t> blocks;
      for (const json& r : t.at("blocks"))
        for (uint64_t b = r[0]; b < r[1].get<uint64_t>(); ++b) blocks.push_back(b);
      if (blocks.size() > 1) {
        blocks.erase(blocks.begin());
      } else {
        uint64_t extra = 0;
        while (extra < nblocks && extra == blocks[0]) ++extra;
        if (extra >= nblocks) return false;
        blocks.push_back(extra);
        std::sort(blocks.begin(), blocks.end());
      }
      json ranges = json::array();
      for (uint64_t b : blocks) ranges.push_back({b, b + 1});  // one range per block: still the same set format
      t["blocks"] = ranges;
      return true;
    }
    case Kind::combine: t["combine"] = t.at("combine") == "copy" ? "reduce" : "copy"; return true;
  }
  return false;
}

// The JSON report of check-file on `text`, produced as check-file does.
json report_of(const std::string& text) {
  ScheduleDocument doc = parse_schedule_text(text, "mutated", std::nullopt);
  MaterializedView view(std::move(doc.schedule));
  CheckOptions o;
  const std::optional<Claim> cost = file_cost_claim(*doc.claims, view.data());
  InstanceCheck ic = check_schedule(view, cost ? &*cost : nullptr, {}, o);
  judge_file_claims(*doc.claims, ic);
  Report r;
  r.kind = "check-file";
  InstanceResult res;
  res.algorithm = "file:mutated";
  res.p = view.p();
  res.verdicts = std::move(ic.verdicts);
  res.status = combined_status(res.verdicts);
  r.instances.push_back(std::move(res));
  return json::parse(render(r, Format::json));
}

// The violated verdicts whose counterexample names (step, rank) as rank or peer.
std::vector<std::string> naming(const json& report, int step, uint64_t rank) {
  std::vector<std::string> out;
  for (const json& v : report.at("instances").at(0).at("verdicts")) {
    if (v.at("status") != "violated" || v.at("counterexample").is_null()) continue;
    const json& c = v.at("counterexample");
    if (c.value("step", json()) != step) continue;
    if (c.value("rank", json()) == rank || c.value("peer", json()) == rank) out.push_back(v.at("property"));
  }
  return out;
}

bool rejected(const json& report) { return report.at("status") == "violated"; }

TEST(ScheduleFileMutation, EveryOneSidedCorruptionIsRejectedWithItsStepAndRank) {
  for (const Subject& sub : kSubjects)
    for (ScheduleEncoding enc : {ScheduleEncoding::json, ScheduleEncoding::jsonl}) {
      SCOPED_TRACE(std::string(sub.algo) + " p=" + std::to_string(sub.p) + " " + to_string(enc));
      const std::string original = dumped(sub, enc);
      ASSERT_FALSE(rejected(report_of(original))) << "the unmodified file must hold";
      const Editable base(original, enc);
      const uint64_t nblocks = enc == ScheduleEncoding::json ? base.doc.at("nblocks").get<uint64_t>()
                                                             : base.lines[0].at("nblocks").get<uint64_t>();
      size_t sends = 0, mutants = 0, skipped = 0;
      std::map<std::string, size_t> by_property;
      for (int s = 0; s < base.steps(); ++s)
        for (uint64_t r = 0; r < base.p; ++r)
          for (const char* side : {"sends", "recvs"}) {
            const size_t n = const_cast<Editable&>(base).entry(s, r).value(side, json::array()).size();
            if (std::string(side) == "sends") sends += n;
            for (size_t i = 0; i < n; ++i)
              for (Kind k : {Kind::peer, Kind::blocks, Kind::combine}) {
                Editable e = base;
                if (!corrupt(e.entry(s, r)[side][i], k, e.p, nblocks, r)) {
                  ++skipped;
                  continue;
                }
                ++mutants;
                const json rep = report_of(e.text());
                const auto props = naming(rep, s, r);
                EXPECT_FALSE(props.empty()) << "step " << s << " rank " << r << " " << side << "[" << i << "] " << name(k)
                                            << ": no violated verdict names step " << s << " and rank " << r << ": "
                                            << rep.at("instances").at(0).at("verdicts").dump().substr(0, 1500);
                for (const auto& pname : props) ++by_property[pname];
              }
          }
      EXPECT_EQ(sends, sub.transfers) << "every transfer was visited";
      EXPECT_EQ(mutants + skipped, 2 * 3 * sub.transfers);
      EXPECT_LE(skipped, 2 * sub.transfers) << "only degenerate block edits may be skipped";
      EXPECT_EQ(by_property["matching"], mutants) << "matching names every one-sided corruption";
    }
}

TEST(ScheduleFileMutation, EveryConsistentCorruptionIsStillRejected) {
  for (const Subject& sub : kSubjects) {
    SCOPED_TRACE(sub.algo);
    const ScheduleEncoding enc = ScheduleEncoding::jsonl;
    const Editable base(dumped(sub, enc), enc);
    const uint64_t nblocks = base.lines[0].at("nblocks");
    size_t mutants = 0;
    for (int s = 0; s < base.steps(); ++s)
      for (uint64_t r = 0; r < base.p; ++r) {
        const json sends = const_cast<Editable&>(base).entry(s, r).value("sends", json::array());
        for (size_t i = 0; i < sends.size(); ++i)
          for (Kind k : {Kind::blocks, Kind::combine}) {
            Editable e = base;
            const uint64_t q = sends[i].at("peer");
            json& recvs = e.entry(s, q)["recvs"];
            size_t j = 0;
            while (j < recvs.size() && !(recvs[j].at("peer") == r && recvs[j].at("blocks") == sends[i].at("blocks") &&
                                         recvs[j].at("combine") == sends[i].at("combine")))
              ++j;
            ASSERT_LT(j, recvs.size()) << "no matching receive in the dump";
            json& t = e.entry(s, r)["sends"][i];
            if (!corrupt(t, k, e.p, nblocks, r)) continue;
            recvs[j] = t;
            recvs[j]["peer"] = r;
            ++mutants;
            const json rep = report_of(e.text());
            EXPECT_TRUE(rejected(rep)) << "step " << s << " " << r << "->" << q << " " << name(k)
                                       << " changed at both ends is accepted";
          }
      }
    EXPECT_GE(mutants, sub.transfers);
  }
}

}  // namespace
}  // namespace collcheck
