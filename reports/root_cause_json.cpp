#include "reports/root_cause_json.hpp"

#include <stdexcept>
#include <string>

namespace collcheck {

namespace {

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> optional_field(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return v.get<T>();
}

}  // namespace

nlohmann::json root_cause_to_json(const std::optional<RootCause>& rc) {
  if (!rc) return nullptr;
  return nlohmann::json{{"kind", to_string(rc->kind)}, {"contributor", or_null(rc->contributor)},
                        {"step", or_null(rc->step)},   {"rank", or_null(rc->rank)},
                        {"peer", or_null(rc->peer)},   {"text", rc->text}};
}

std::optional<RootCause> root_cause_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  try {
    RootCause rc;
    const std::string kind = j.at("kind").get<std::string>();
    const auto k = root_cause_kind_from_string(kind);
    if (!k) throw std::runtime_error("unknown root cause kind '" + kind + "'");
    rc.kind = *k;
    rc.contributor = optional_field<Rank>(j, "contributor");
    rc.step = optional_field<int>(j, "step");
    rc.rank = optional_field<Rank>(j, "rank");
    rc.peer = optional_field<Rank>(j, "peer");
    rc.text = j.at("text").get<std::string>();
    return rc;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed root cause: ") + e.what());
  }
}

}  // namespace collcheck
