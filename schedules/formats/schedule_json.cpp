#include "schedules/formats/schedule_json.hpp"

#include <nlohmann/json.hpp>

#include "schedules/formats/schedule_reader.hpp"

namespace collcheck {

using nlohmann::json;

namespace {

json transfer_json(const Transfer& t) {
  json blocks = json::array();
  for (const auto& r : t.blocks.ranges()) blocks.push_back({r.lo, r.hi});
  return {{"peer", t.peer}, {"blocks", blocks}, {"combine", to_string(t.combine)}};
}

}  // namespace

// Version 1 through nlohmann's DOM (keys sorted), byte for byte as before:
// tests compare schedules as this text.
std::string to_json(const MaterializedSchedule& m, int indent) {
  json steps = json::array();
  for (const auto& step : m.steps) {
    json ranks = json::array();
    for (size_t r = 0; r < step.size(); ++r) {
      json sends = json::array(), recvs = json::array();
      for (const auto& t : step[r].sends) sends.push_back(transfer_json(t));
      for (const auto& t : step[r].recvs) recvs.push_back(transfer_json(t));
      ranks.push_back({{"rank", r}, {"sends", sends}, {"recvs", recvs}});
    }
    steps.push_back(ranks);
  }
  json j = {{"format", "collcheck-schedule/1"}, {"collective", to_string(m.spec.kind)},
            {"p", m.spec.p}, {"nblocks", m.spec.nblocks}, {"root", m.spec.root},
            {"ports", m.ports}, {"steps", steps}};
  return j.dump(indent);
}

MaterializedSchedule schedule_from_json(const std::string& text, const std::string& source) {
  return schedule_reader::parse_document(text, source).schedule;
}

}  // namespace collcheck
