#pragma once
// Comparing two JSON reports of the same sweep (results store and MPI tests):
// they may differ only in timing fields and the command line.
#include <nlohmann/json.hpp>

#include <string>

namespace collcheck::test {

// Drops timing fields: keys "seconds" and "*_seconds" (e.g. the stat
// traff-conditions' "tables_seconds"), at any depth.
inline void drop_timing(nlohmann::json& j) {
  if (j.is_array())
    for (auto& x : j) drop_timing(x);
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end();) {
    const std::string& k = it.key();
    if (k == "seconds" || (k.size() > 8 && k.compare(k.size() - 8, 8, "_seconds") == 0)) {
      it = j.erase(it);
    } else {
      drop_timing(it.value());
      ++it;
    }
  }
}

// The report without what differs between two runs of the same sweep: the
// timing fields and the command line (e.g. different --db paths).
inline nlohmann::json comparable(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  j.erase("command");
  drop_timing(j);
  return j;
}

}  // namespace collcheck::test
