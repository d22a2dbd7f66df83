#include "checker/sweep/file_claims.hpp"

#include <algorithm>

#include "properties/catalog.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {

const std::vector<std::string>& assertable_properties() {
  static const std::vector<std::string> names = {prop::matching, prop::ports, prop::causality, prop::exactly_once,
                                                 prop::postcondition};
  return names;
}

std::optional<ScheduleEncoding> schedule_encoding(const std::string& format) {
  if (format == "json") return ScheduleEncoding::json;
  if (format == "jsonl") return ScheduleEncoding::jsonl;
  if (format != "auto") throw InputError("unknown --schedule-format " + quote_input(format) + " (known: auto, json, jsonl)");
  return std::nullopt;
}

ScheduleDocument load_schedule_file(const std::string& path, const std::string& format, uint64_t max_memory) {
  ScheduleDocument doc = read_schedule_file(path, schedule_encoding(format), max_memory);
  if (doc.claims) validate_file_claims(*doc.claims);
  return doc;
}

void validate_file_claims(const FileClaims& c) {
  const auto& ok = assertable_properties();
  for (size_t i = 0; i < c.properties.size(); ++i)
    if (std::find(ok.begin(), ok.end(), c.properties[i]) == ok.end()) {
      std::string list;
      for (const auto& n : ok) list += (list.empty() ? "" : ", ") + n;
      throw InputError("malformed schedule: " + c.location + "/properties/" + std::to_string(i) + ": \"" +
                       c.properties[i] + "\" is not a property check-file judges on a file (expected one of: " + list +
                       "; the step and volume claims are \"steps\" and \"volume_blocks\")");
    }
}

std::optional<Claim> file_cost_claim(const FileClaims& c, const MaterializedSchedule& m) {
  if (!c.steps && !c.volume_blocks) return std::nullopt;
  Claim claim;
  claim.source = c.source.empty() ? "the file's claims" : c.source;
  claim.steps_formula = c.steps_formula.empty() ? "claimed" : c.steps_formula;
  claim.volume_formula = c.volume_formula.empty() ? "claimed" : c.volume_formula;
  // Measured like the cost property does, for the half the file leaves open.
  int steps = 0;
  for (size_t s = 0; s < m.steps.size(); ++s)
    if (std::any_of(m.steps[s].begin(), m.steps[s].end(), [](const RankStep& rs) { return !rs.empty(); }))
      steps = static_cast<int>(s) + 1;
  uint64_t volume = 0;
  for (uint64_t r = 0; r < m.spec.p; ++r) {
    uint64_t v = 0;
    for (const auto& step : m.steps)
      for (const Transfer& t : step[r].sends) v += t.blocks.size();
    volume = std::max(volume, v);
  }
  claim.steps = c.steps.value_or(steps);
  claim.volume_blocks = c.volume_blocks.value_or(volume);
  return claim;
}

void judge_file_claims(const FileClaims& c, InstanceCheck& ic) {
  for (Verdict& v : ic.verdicts) {
    if (v.property != prop::cost) continue;
    if (!c.steps) v.stats.erase("claimed_steps");
    if (!c.volume_blocks) v.stats.erase("claimed_volume_blocks");
    v.checks = (c.steps ? 1 : 0) + (c.volume_blocks ? 1 : 0);
  }
  if (c.properties.empty() || ic.refused) return;  // refused by the memory guard: nothing was judged
  Verdict claims;
  claims.property = kClaimsProperty;
  claims.mode = "exact";
  std::string asserted;
  for (const std::string& name : c.properties) {
    asserted += (asserted.empty() ? "" : ", ") + name;
    ++claims.checks;
    const Verdict* judged = nullptr;
    for (const Verdict& v : ic.verdicts)
      if (v.property == name) judged = &v;
    if (!judged || (judged->status != Status::holds && judged->status != Status::violated)) {
      // An asserted property nobody decided cannot be confirmed.
      claims.status = claims.status == Status::violated ? Status::violated : Status::unknown;
      claims.stats["undecided"] += (claims.stats["undecided"].empty() ? "" : ", ") + name;
      continue;
    }
    for (const Verdict& v : ic.verdicts) {
      if (v.property != name || v.status != Status::violated) continue;
      Counterexample cx = v.counterexample.value_or(Counterexample{});
      cx.expected = name + " holds (asserted by the file)";
      cx.actual = name + " is violated" + (v.counterexample ? ": " + v.counterexample->message : std::string());
      cx.message = "the file asserts that " + name + " holds, but it is violated" +
                   (v.counterexample ? " at " + v.counterexample->location() : std::string());
      claims.fail(std::move(cx));
    }
  }
  claims.stats["asserted"] = asserted;
  ic.verdicts.push_back(std::move(claims));
}

std::vector<std::string> file_claim_notes(const ScheduleDocument& doc) {
  std::vector<std::string> out;
  const std::string form = doc.format == kScheduleLinesFormat ? "JSON lines" : "JSON";
  if (!doc.claims || (!doc.claims->steps && !doc.claims->volume_blocks)) {
    out.push_back(form + " schedule file without step or volume claims: the cost property is skipped");
  } else {
    const FileClaims& c = *doc.claims;
    std::string what;
    if (c.steps) what += std::to_string(*c.steps) + " steps";
    if (c.volume_blocks) what += (what.empty() ? "" : ", ") + std::to_string(*c.volume_blocks) + " blocks per rank";
    out.push_back(form + " schedule file claiming " + what + (c.source.empty() ? "" : " (" + c.source + ")") +
                  ": judged by the cost property");
  }
  if (doc.claims && !doc.claims->properties.empty())
    out.push_back("the file asserts " + std::to_string(doc.claims->properties.size()) +
                  " properties: judged by the claims verdict");
  if (!doc.producer.empty()) {
    std::string p;
    for (const auto& [k, v] : doc.producer) p += (p.empty() ? "" : ", ") + k + "=" + v;
    out.push_back("producer: " + p);
  }
  return out;
}

}  // namespace collcheck
