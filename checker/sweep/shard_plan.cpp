#include "checker/sweep/shard_plan.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "reports/root_cause_json.hpp"

namespace collcheck {

std::vector<uint32_t> partition_by_cost(const std::vector<double>& cost, uint32_t parts) {
  if (parts == 0) throw std::invalid_argument("partition_by_cost: no parts");
  std::vector<size_t> order(cost.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  // Min-heap of (load, part): the least-loaded part, the lower part on ties.
  using Load = std::pair<double, uint32_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> heap;
  for (uint32_t k = 0; k < parts; ++k) heap.push({0.0, k});
  std::vector<uint32_t> owner(cost.size(), 0);
  for (size_t i : order) {
    auto [load, k] = heap.top();
    heap.pop();
    owner[i] = k;
    heap.push({load + cost[i], k});
  }
  return owner;
}

std::vector<double> part_loads(const std::vector<double>& cost, const std::vector<uint32_t>& owner, uint32_t parts) {
  std::vector<double> load(parts, 0.0);
  for (size_t i = 0; i < cost.size(); ++i) load.at(owner.at(i)) += cost[i];
  return load;
}

namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
std::optional<T> get_opt(const json& j, const char* key) {
  const json& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return v.get<T>();
}

Status status_from(const std::string& s) {
  for (Status x : {Status::holds, Status::violated, Status::unknown, Status::skipped})
    if (s == to_string(x)) return x;
  throw std::runtime_error("unknown status '" + s + "' in an encoded result");
}

json encode(const Verdict& v) {
  json cx = nullptr;
  if (const auto& c = v.counterexample)
    cx = json{{"p", c->p},           {"rank", opt(c->rank)},     {"step", opt(c->step)},
              {"block", opt(c->block)}, {"peer", opt(c->peer)},     {"expected", c->expected},
              {"actual", c->actual},    {"message", c->message}, {"root_cause", root_cause_to_json(c->root_cause)}};
  return json{{"property", v.property}, {"status", to_string(v.status)}, {"checks", v.checks},
              {"violations", v.violations}, {"mode", v.mode}, {"stats", v.stats}, {"cx", cx}};
}

Verdict decode_verdict(const json& j) {
  Verdict v;
  v.property = j.at("property").get<std::string>();
  v.status = status_from(j.at("status").get<std::string>());
  v.checks = j.at("checks").get<uint64_t>();
  v.violations = j.at("violations").get<uint64_t>();
  v.mode = j.at("mode").get<std::string>();
  v.stats = j.at("stats").get<std::map<std::string, std::string>>();
  const json& c = j.at("cx");
  if (!c.is_null()) {
    Counterexample x;
    x.p = c.at("p").get<uint64_t>();
    x.rank = get_opt<Rank>(c, "rank");
    x.step = get_opt<int>(c, "step");
    x.block = get_opt<Block>(c, "block");
    x.peer = get_opt<Rank>(c, "peer");
    x.expected = c.at("expected").get<std::string>();
    x.actual = c.at("actual").get<std::string>();
    x.message = c.at("message").get<std::string>();
    x.root_cause = root_cause_from_json(c.at("root_cause"));
    v.counterexample = std::move(x);
  }
  return v;
}

json encode(uint64_t index, const InstanceResult& r) {
  json verdicts = json::array();
  for (const Verdict& v : r.verdicts) verdicts.push_back(encode(v));
  return json{{"index", index},           {"algorithm", r.algorithm},     {"variant", r.variant},
              {"collective", r.collective}, {"p", r.p},                   {"params", r.params},
              {"status", to_string(r.status)}, {"skip_reason", r.skip_reason}, {"verdicts", verdicts},
              {"seconds", r.seconds},       {"stats", r.stats}};
}

IndexedResult decode_one(const json& j) {
  InstanceResult r;
  r.algorithm = j.at("algorithm").get<std::string>();
  r.variant = j.at("variant").get<std::string>();
  r.collective = j.at("collective").get<std::string>();
  r.p = j.at("p").get<uint64_t>();
  r.params = j.at("params").get<std::string>();
  r.status = status_from(j.at("status").get<std::string>());
  r.skip_reason = j.at("skip_reason").get<std::string>();
  for (const json& v : j.at("verdicts")) r.verdicts.push_back(decode_verdict(v));
  r.seconds = j.at("seconds").get<double>();
  r.stats = j.at("stats").get<std::map<std::string, std::string>>();
  return {j.at("index").get<uint64_t>(), std::move(r)};
}

}  // namespace

std::string encode_results(const std::vector<IndexedResult>& results) {
  json all = json::array();
  for (const auto& [index, r] : results) all.push_back(encode(index, r));
  std::vector<uint8_t> bytes = json::to_msgpack(all);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<IndexedResult> decode_results(const std::string& bytes) {
  std::vector<IndexedResult> out;
  try {
    const json all = json::from_msgpack(bytes);
    if (!all.is_array()) throw std::runtime_error("not an array");
    for (const json& j : all) out.push_back(decode_one(j));
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed encoded results: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("malformed encoded results: ") + e.what());
  }
  return out;
}

}  // namespace collcheck
