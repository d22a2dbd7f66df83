#include "schedules/schedule_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "schedules/input_error.hpp"

namespace collcheck {

using nlohmann::json;

namespace {

json transfer_json(const Transfer& t) {
  json blocks = json::array();
  for (const auto& r : t.blocks.ranges()) blocks.push_back({r.lo, r.hi});
  return {{"peer", t.peer}, {"blocks", blocks}, {"combine", to_string(t.combine)}};
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw InputError("malformed schedule: " + where + ": " + what);
}

uint64_t get_uint(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) bad(where, std::string("missing \"") + key + "\"");
  const json& v = j.at(key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    bad(where, std::string("\"") + key + "\" must be a non-negative integer");
  return v.get<uint64_t>();
}

Transfer parse_transfer(const json& j, const MaterializedSchedule& m, const std::string& where) {
  Transfer t;
  uint64_t peer = get_uint(j, "peer", where);
  if (peer >= m.spec.p) bad(where, "peer " + std::to_string(peer) + " out of range 0.." + std::to_string(m.spec.p - 1));
  t.peer = static_cast<Rank>(peer);
  if (!j.contains("blocks") || !j.at("blocks").is_array()) bad(where, "\"blocks\" must be an array of [lo, hi) ranges");
  std::vector<BlockSet::Range> ranges;
  for (const json& r : j.at("blocks")) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned())
      bad(where, "each block range must be [lo, hi) with non-negative integers");
    uint64_t lo = r[0].get<uint64_t>(), hi = r[1].get<uint64_t>();
    if (lo >= hi || hi > m.spec.nblocks)
      bad(where, "block range [" + std::to_string(lo) + ", " + std::to_string(hi) + ") is empty or exceeds nblocks " +
                     std::to_string(m.spec.nblocks));
    ranges.push_back({static_cast<Block>(lo), static_cast<Block>(hi)});
  }
  // Sorted first, so that every insert takes the O(1) append path.
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
  for (const auto& r : ranges) t.blocks.insert_range(r.lo, r.hi);
  if (!j.contains("combine") || !j.at("combine").is_string()) bad(where, "missing \"combine\"");
  const std::string c = j.at("combine").get<std::string>();
  if (c == "copy") t.combine = Combine::copy;
  else if (c == "reduce") t.combine = Combine::reduce;
  else bad(where, "\"combine\" must be \"copy\" or \"reduce\", not \"" + c + "\"");
  return t;
}

}  // namespace

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

MaterializedSchedule schedule_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(std::string("malformed schedule: not JSON: ") + e.what());
  }
  MaterializedSchedule m;
  if (!j.is_object()) bad("top level", "must be an object");
  if (!j.contains("format") || j.at("format") != "collcheck-schedule/1")
    bad("top level", "\"format\" must be \"collcheck-schedule/1\"");
  if (!j.contains("collective") || !j.at("collective").is_string()) bad("top level", "missing \"collective\"");
  auto kind = collective_from_string(j.at("collective").get<std::string>());
  if (!kind) bad("top level", "unknown collective \"" + j.at("collective").get<std::string>() + "\"");
  m.spec.kind = *kind;
  m.spec.p = get_uint(j, "p", "top level");
  if (m.spec.p == 0 || m.spec.p > (1u << 24)) bad("top level", "p must be in 1..2^24");
  uint64_t nb = get_uint(j, "nblocks", "top level");
  if (nb == 0 || nb > (1u << 30)) bad("top level", "nblocks must be in 1..2^30");
  m.spec.nblocks = static_cast<uint32_t>(nb);
  const uint64_t root = j.contains("root") ? get_uint(j, "root", "top level") : 0;
  if (root >= m.spec.p) bad("top level", "root " + std::to_string(root) + " out of range 0.." + std::to_string(m.spec.p - 1));
  m.spec.root = static_cast<Rank>(root);
  if ((m.spec.kind == Collective::allgather || m.spec.kind == Collective::reduce_scatter) &&
      m.spec.nblocks % m.spec.p != 0)
    bad("top level", "nblocks must be a multiple of p for this collective");
  if (m.spec.kind == Collective::alltoall && m.spec.nblocks != m.spec.p * m.spec.p)
    bad("top level", "alltoall needs nblocks = p*p (block src*p+dst)");
  const uint64_t ports = j.contains("ports") ? get_uint(j, "ports", "top level") : 1;
  if (ports < 1 || ports > 1024) bad("top level", "ports must be in 1..1024, not " + std::to_string(ports));
  m.ports = static_cast<int>(ports);
  if (!j.contains("steps") || !j.at("steps").is_array()) bad("top level", "\"steps\" must be an array");
  for (size_t s = 0; s < j.at("steps").size(); ++s) {
    const json& step = j.at("steps")[s];
    std::string where = "step " + std::to_string(s);
    if (!step.is_array() || step.size() != m.spec.p)
      bad(where, "must list exactly p = " + std::to_string(m.spec.p) + " ranks");
    std::vector<RankStep> ranks(m.spec.p);
    for (size_t r = 0; r < step.size(); ++r) {
      const json& rj = step[r];
      std::string w = where + ", rank " + std::to_string(r);
      if (get_uint(rj, "rank", w) != r) bad(w, "ranks must be listed in order");
      for (const char* key : {"sends", "recvs"}) {
        if (!rj.contains(key)) continue;
        if (!rj.at(key).is_array()) bad(w, std::string("\"") + key + "\" must be an array");
        for (const json& t : rj.at(key))
          (std::string(key) == "sends" ? ranks[r].sends : ranks[r].recvs).push_back(parse_transfer(t, m, w));
      }
    }
    m.steps.push_back(std::move(ranks));
  }
  return m;
}

}  // namespace collcheck
