// Grouping and formatting helpers shared by all renderers (see summary.hpp).
#include "reports/summary.hpp"

#include "properties/instance_checker.hpp"
#include "properties/witnesses.hpp"

#include <sstream>

#include <algorithm>
#include <bit>
#include <charconv>
#include <set>
#include <tuple>

namespace collcheck::reports_detail {

std::string Group::label() const { return variant.empty() ? algorithm : algorithm + "/" + variant; }

std::vector<uint64_t> Group::ps() const {
  std::vector<uint64_t> out;
  out.reserve(instances.size());
  for (const InstanceResult* i : instances) out.push_back(i->p);
  return out;
}

uint64_t Group::n(Status s) const { return count[status_index(s)]; }

std::vector<const PropertySummary*> Group::violated_properties() const {
  std::vector<const PropertySummary*> out;
  for (const PropertySummary& ps : properties)
    if (!ps.violated_p.empty()) out.push_back(&ps);
  return out;
}

// A whole decimal integer (optionally negative); false for anything else.
static bool parse_int(const std::string& s, long long& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

// Adds one verdict's aggregating statistics (as `decls` declares them for
// `property`) into `ps` (see PropertySummary::distribution); malformed values
// are left out, undeclared statistics are not aggregated.
static void accumulate_distribution(PropertySummary& ps, const StatDeclarations& decls,
                                    const std::map<std::string, std::string>& stats) {
  std::map<std::string, std::string>& acc = ps.distribution;
  auto how = [&](const std::string& key) { return decls.how(ps.property, key); };
  // Witness lists first, against the maxima before this verdict's: a
  // witnesses_of_max list follows its max statistic, other lists add up.
  for (const auto& [key, value] : stats) {
    const Aggregate kind = how(key);
    if (kind != Aggregate::witnesses && kind != Aggregate::witnesses_of_max) continue;
    const std::optional<WitnessList> mine = WitnessList::parse(value);
    if (!mine) continue;
    std::optional<WitnessList> acc_list = acc.count(key) ? WitnessList::parse(acc[key]) : WitnessList{};
    if (!acc_list) continue;
    if (kind == Aggregate::witnesses_of_max) {
      const std::string max_key = decls.max_of(ps.property, key);
      long long here = 0, before = 0;
      auto it = stats.find(max_key);
      if (it == stats.end() || !parse_int(it->second, here)) continue;
      if (acc.count(max_key) && parse_int(acc[max_key], before)) {
        if (here < before) continue;
        if (here > before) acc_list = WitnessList{};
      } else {
        acc_list = WitnessList{};
      }
    }
    acc_list->append(*mine);
    acc[key] = acc_list->str();
    ps.kinds[key] = kind;
  }
  for (const auto& [key, value] : stats) {
    const Aggregate kind = how(key);
    if (kind == Aggregate::histogram) {
      std::map<long long, unsigned long long> buckets;
      std::istringstream in(acc.count(key) ? acc[key] + " " + value : value);
      bool ok = true;
      for (std::string item; in >> item;) {
        const size_t colon = item.find(':');
        if (colon == std::string::npos) { ok = false; break; }
        try {
          buckets[std::stoll(item.substr(0, colon))] += std::stoull(item.substr(colon + 1));
        } catch (const std::exception&) { ok = false; break; }
      }
      if (!ok) continue;
      std::string out;
      for (const auto& [b, n] : buckets) out += (out.empty() ? "" : " ") + std::to_string(b) + ":" + std::to_string(n);
      acc[key] = out;
      ps.kinds[key] = kind;
    } else if (kind == Aggregate::max) {
      long long x = 0, before = 0;
      if (parse_int(value, x) && (!acc.count(key) || !parse_int(acc[key], before) || before < x)) {
        acc[key] = std::to_string(x);
        ps.kinds[key] = kind;
        for (const std::string& w : decls.witnesses_of(ps.property, key))
          if (!stats.count(w)) acc.erase(w);  // they witnessed a smaller maximum
      }
    }
  }
}

std::vector<std::pair<std::string, std::string>> distribution_lines(const Group& g) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PropertySummary& ps : g.properties) {
    std::string line;
    std::vector<std::string> witnesses;
    for (const auto& [k, v] : ps.distribution) {
      const Aggregate kind = ps.kind(k);
      if (kind == Aggregate::witnesses || kind == Aggregate::witnesses_of_max) witnesses.push_back(k + ": " + v);
      else line.append(line.empty() ? "" : "; ").append(k).append(" ").append(v);
    }
    if (!line.empty()) out.push_back({ps.property, line});
    for (std::string& w : witnesses) out.push_back({ps.property, std::move(w)});
  }
  return out;
}

static PropertySummary& find_or_add(std::vector<PropertySummary>& v, const std::string& name) {
  for (PropertySummary& ps : v)
    if (ps.property == name) return ps;
  v.push_back(PropertySummary{});
  v.back().property = name;
  return v.back();
}

std::string decided_by(const InstanceResult& i) {
  if (effective_status(i) == Status::skipped) return "";
  if (auto m = i.stats.find("method"); m != i.stats.end() && !m->second.empty()) return m->second;
  auto mode = i.stats.find("mode");
  return mode == i.stats.end() || mode->second.empty() ? "enumerated" : "enumerated, " + mode->second;
}

std::vector<Group> group_instances(const Report& r) { return group_instances(r, declared_stats()); }

std::vector<Group> group_instances(const Report& r, const StatDeclarations& decls) {
  std::map<std::pair<std::string, std::string>, Group> by_key;
  for (const InstanceResult& i : r.instances) {
    Group& g = by_key[{i.algorithm, i.variant}];
    if (g.instances.empty()) {
      g.algorithm = i.algorithm;
      g.variant = i.variant;
      g.collective = i.collective;
    }
    g.instances.push_back(&i);
  }

  std::vector<Group> out;
  out.reserve(by_key.size());
  for (auto& [key, g] : by_key) {
    std::stable_sort(g.instances.begin(), g.instances.end(),
                     [](const InstanceResult* a, const InstanceResult* b) { return a->p < b->p; });
    Status folded = Status::skipped;
    for (const InstanceResult* i : g.instances) {
      const Status s = effective_status(*i);
      folded = worst(folded, s);
      ++g.count[status_index(s)];
      g.seconds += i->seconds;
      if (s == Status::skipped) {
        const std::string reason = i->skip_reason.empty() ? "no reason given" : i->skip_reason;
        auto it = std::find_if(g.skip_reasons.begin(), g.skip_reasons.end(),
                               [&](const auto& e) { return e.first == reason; });
        if (it == g.skip_reasons.end()) {
          g.skip_reasons.push_back({reason, {}});
          it = std::prev(g.skip_reasons.end());
        }
        it->second.push_back(i->p);
      } else {
        const std::string method = decided_by(*i);
        auto it = std::find_if(g.methods.begin(), g.methods.end(), [&](const auto& e) { return e.first == method; });
        if (it == g.methods.end()) {
          g.methods.push_back({method, {}});
          it = std::prev(g.methods.end());
        }
        it->second.push_back(i->p);
      }
      // An instance's verdicts as they are where no property repeats (the
      // usual case: no copy of every verdict of 2^21 instances), else merged.
      std::vector<Verdict> merged;
      const std::vector<Verdict>* verdicts = &i->verdicts;
      if (repeats_a_property(*i)) verdicts = &(merged = merged_verdicts(*i));
      for (const Verdict& v : *verdicts) {
        PropertySummary& ps = find_or_add(g.properties, v.property);
        accumulate_distribution(ps, decls, v.stats);
        if (v.status == Status::violated) {
          ps.violated_p.push_back(i->p);
          ps.violations += v.violations;
          if (v.counterexample && (!ps.minimal || *v.counterexample < *ps.minimal)) {
            ps.minimal = v.counterexample;
            ps.minimal_stats = v.stats;
            ps.minimal_instance = i;
          }
        } else if (v.status == Status::unknown) {
          ps.unknown_p.push_back(i->p);
        }
      }
    }
    g.status = g.instances.empty() ? Status::holds : folded;
    g.expected_refutation = r.expected_refutations.count(key) > 0;
    out.push_back(std::move(g));
  }
  return out;
}

const char* to_string(Deployment d) {
  switch (d) {
    case Deployment::deploy: return "deploy";
    case Deployment::do_not_deploy: return "do-not-deploy";
    case Deployment::not_proven: return "not-proven";
    case Deployment::no_deployable_variant: return "no-deployable-variant";
    case Deployment::nothing_checked: return "nothing-checked";
  }
  return "?";
}

Status DeploymentVerdict::status() const {
  switch (kind) {
    case Deployment::deploy: return Status::holds;
    case Deployment::do_not_deploy: return Status::violated;
    case Deployment::not_proven: return Status::unknown;
    case Deployment::no_deployable_variant:
    case Deployment::nothing_checked: return Status::skipped;
  }
  return Status::skipped;
}

namespace {

bool refused(const InstanceResult& i) {
  return effective_status(i) == Status::skipped && is_refusal(i.skip_reason);
}

// "swing/bandwidth (p=7), ring (p=3..5)"; a p list too long for one line
// gives its size and smallest p instead.
std::string groups_text(const std::vector<GroupPs>& v) {
  constexpr size_t kLongest = 48;
  std::string out;
  for (const GroupPs& g : v) {
    std::string ps = format_p_list(g.ps);
    if (ps.size() > kLongest)
      ps = std::to_string(g.ps.size()) + " instances from p=" + std::to_string(*std::min_element(g.ps.begin(), g.ps.end()));
    else
      ps = "p=" + ps;
    out.append(out.empty() ? "" : ", ").append(g.group).append(" (").append(ps).append(")");
  }
  return out;
}

}  // namespace

DeploymentVerdict deployment_verdict(const std::vector<Group>& groups) {
  DeploymentVerdict d;
  bool deployable_checked = false;
  for (const Group& g : groups) {
    GroupPs violated{g.label(), {}}, undecided{g.label(), {}};
    bool checked = false;
    for (const InstanceResult* i : g.instances) {
      const Status s = effective_status(*i);
      if (s == Status::violated) violated.ps.push_back(i->p);
      if (s == Status::unknown || refused(*i)) undecided.ps.push_back(i->p);
      checked = checked || s != Status::skipped;
    }
    if (g.expected_refutation) {
      if (!violated.ps.empty()) d.refuted.push_back(std::move(violated));
      else if (checked) d.not_refuted.push_back(g.label());
      continue;
    }
    deployable_checked = deployable_checked || checked;
    if (!violated.ps.empty()) d.unexpected.push_back(std::move(violated));
    if (!undecided.ps.empty()) d.undecided.push_back(std::move(undecided));
  }
  if (!d.unexpected.empty()) {
    d.kind = Deployment::do_not_deploy;
    d.headline = "do not deploy";
    d.line = d.headline + ": unexpected violations in " + groups_text(d.unexpected);
  } else if (!d.undecided.empty()) {
    d.kind = Deployment::not_proven;
    d.headline = "not proven";
    d.line = d.headline + ": unknown or refused by the memory guard in " + groups_text(d.undecided);
  } else if (deployable_checked) {
    d.kind = Deployment::deploy;
    d.line = d.headline = "holds for every deployable variant";
  } else if (!d.refuted.empty() || !d.not_refuted.empty()) {
    d.kind = Deployment::no_deployable_variant;
    d.line = d.headline = "no deployable variant checked";
  } else {
    d.kind = Deployment::nothing_checked;
    d.headline = "nothing was checked";
    d.line = d.headline + (groups.empty() ? ": no instances" : ": every instance was skipped");
  }
  if (!d.refuted.empty()) {
    const size_t n = d.refuted.size();
    d.line += "; " + std::to_string(n) + (n == 1 ? " expected refutation of a paper reading: "
                                                 : " expected refutations of paper readings: ") +
              groups_text(d.refuted);
  }
  if (!d.not_refuted.empty()) {
    std::string names;
    for (const std::string& n : d.not_refuted) names.append(names.empty() ? "" : ", ").append(n);
    d.line += "; " + names +
              (d.not_refuted.size() == 1 ? " (a paper reading expected to be refuted) holds"
                                         : " (paper readings expected to be refuted) hold") +
              " at every p checked here";
  }
  return d;
}

std::string InstanceRow::p_list() const {
  std::vector<uint64_t> ps;
  for (const InstanceResult* i : instances) ps.push_back(i->p);
  return format_p_list(ps);
}

std::vector<InstanceRow> instance_rows(const Group& g) {
  std::vector<InstanceRow> rows;
  std::map<std::string, std::pair<std::string, size_t>> open_run;  // params -> (verdicts, row) of a holding run
  std::map<std::pair<std::string, std::string>, size_t> skipped;   // (params, reason) -> row
  for (const InstanceResult* i : g.instances) {
    const Status s = effective_status(*i);
    if (s == Status::skipped) {
      auto [it, fresh] = skipped.try_emplace({i->params, i->skip_reason}, rows.size());
      if (fresh) rows.emplace_back();
      rows[it->second].instances.push_back(i);
      continue;
    }
    if (s != Status::holds) {
      open_run.erase(i->params);
      rows.push_back({{i}});
      continue;
    }
    std::string verdicts;
    for (const Verdict& v : merged_verdicts(*i)) verdicts.append(v.property).append("=").append(to_string(v.status)).append("\n");
    auto it = open_run.find(i->params);
    if (it != open_run.end() && it->second.first == verdicts) {
      rows[it->second.second].instances.push_back(i);
    } else {
      open_run[i->params] = {verdicts, rows.size()};
      rows.push_back({{i}});
    }
  }
  return rows;
}

bool repeats_a_property(const InstanceResult& i) {
  for (size_t a = 0; a < i.verdicts.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      if (i.verdicts[a].property == i.verdicts[b].property) return true;
  return false;
}

std::vector<Verdict> merged_verdicts(const InstanceResult& i) {
  std::vector<Verdict> out;
  for (const Verdict& v : i.verdicts) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Verdict& m) { return m.property == v.property; });
    if (it == out.end()) out.push_back(v);
    else it->merge(v);
  }
  return out;
}

std::vector<std::pair<std::string, uint64_t>> violations_per_property(const Report& r) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const InstanceResult& i : r.instances) {
    // An instance counts once per property even if it carries two partial
    // verdicts of that property.
    std::set<std::string> seen;
    for (const Verdict& v : i.verdicts) {
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == v.property; });
      if (it == out.end()) {
        out.push_back({v.property, 0});
        it = std::prev(out.end());
      }
      if (v.status == Status::violated && seen.insert(v.property).second) ++it->second;
    }
  }
  return out;
}

std::string format_p_list(std::vector<uint64_t> ps) {
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  std::string out;
  auto emit = [&](const std::string& piece) {
    if (!out.empty()) out += ", ";
    out += piece;
  };
  const size_t n = ps.size();
  size_t i = 0;
  while (i < n) {
    // Longest arithmetic run starting at i (step d) ...
    size_t arith_end = i;
    uint64_t d = 0;
    if (i + 1 < n) {
      d = ps[i + 1] - ps[i];
      arith_end = i + 1;
      while (arith_end + 1 < n && ps[arith_end + 1] - ps[arith_end] == d) ++arith_end;
    }
    const size_t arith_len = arith_end - i + 1;
    // ... and longest run of doubling powers of two starting at i.
    size_t pow_end = i;
    if (std::has_single_bit(ps[i]))
      while (pow_end + 1 < n && ps[pow_end] <= UINT64_MAX / 2 && ps[pow_end + 1] == 2 * ps[pow_end])
        ++pow_end;
    const size_t pow_len = pow_end - i + 1;

    const bool arith_ok = (d == 1 && arith_len >= 2) || (d > 1 && arith_len >= 3);
    const bool pow_ok = pow_len >= 4;
    if (pow_ok && (!arith_ok || pow_len > arith_len)) {
      emit("2^" + std::to_string(std::countr_zero(ps[i])) + "..2^" +
           std::to_string(std::countr_zero(ps[pow_end])) + ":pow2");
      i = pow_end + 1;
    } else if (arith_ok) {
      std::string piece = std::to_string(ps[i]) + ".." + std::to_string(ps[arith_end]);
      if (d > 1) piece += ":" + std::to_string(d);
      emit(piece);
      i = arith_end + 1;
    } else {
      emit(std::to_string(ps[i]));
      ++i;
    }
  }
  return out;
}

std::string format_seconds(double s) {
  // to_chars ignores the locale, so a host program's setlocale cannot turn
  // "1.250" into "1,250".
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, s, std::chars_format::fixed, 3);
  return res.ec == std::errc{} ? std::string(buf, res.ptr) : std::string("?");
}

std::string format_stats(const std::map<std::string, std::string>& stats) {
  // Splits "measured_steps" into ("measured", '_', "steps").
  auto split = [](const std::string& k, const std::string& head) -> std::optional<std::pair<char, std::string>> {
    if (k.size() <= head.size() + 1 || k.compare(0, head.size(), head) != 0) return std::nullopt;
    const char sep = k[head.size()];
    if (sep != '_' && sep != ' ' && sep != '.') return std::nullopt;
    return std::make_pair(sep, k.substr(head.size() + 1));
  };
  auto spaced = [](std::string s) {
    std::replace(s.begin(), s.end(), '_', ' ');
    return s;
  };

  std::string out;
  auto emit = [&](const std::string& piece) {
    if (!out.empty()) out += ", ";
    out += piece;
  };
  std::set<std::string> done;
  for (const auto& [k, v] : stats) {
    if (done.count(k)) continue;
    std::optional<std::pair<char, std::string>> part = split(k, "measured");
    bool measured_first = true;
    if (!part) {
      part = split(k, "claimed");
      measured_first = false;
    }
    if (part) {
      const std::string other = std::string(measured_first ? "claimed" : "measured") + part->first + part->second;
      if (auto it = stats.find(other); it != stats.end()) {
        const std::string& measured = measured_first ? v : it->second;
        const std::string& claimed = measured_first ? it->second : v;
        emit("measured " + spaced(part->second) + " " + measured + " vs claimed " + claimed);
        done.insert(other);
        continue;
      }
    }
    emit(k + "=" + v);
  }
  return out;
}

std::string describe(const Counterexample& cx) {
  std::string s = cx.location();
  if (!cx.expected.empty() || !cx.actual.empty()) {
    s += ": ";
    if (!cx.expected.empty()) s += "expected " + cx.expected;
    if (!cx.expected.empty() && !cx.actual.empty()) s += ", ";
    if (!cx.actual.empty()) s += "actual " + cx.actual;
  }
  if (!cx.message.empty()) s += ": " + cx.message;
  return s;
}

std::string minimal_location(const PropertySummary& ps) {
  if (!ps.minimal) return "";
  const std::string location = ps.minimal->location();
  const std::string p = "p=" + std::to_string(ps.minimal->p);
  if (!ps.minimal_instance || ps.minimal_instance->params.empty() || location.rfind(p, 0) != 0) return location;
  return p + " " + ps.minimal_instance->params + location.substr(p.size());
}

std::string xml_escape(std::string_view s, bool in_text) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (const char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += in_text ? "\n" : "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20)
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to spell other control characters
        else
          out += ch;
    }
  }
  return out;
}

}  // namespace collcheck::reports_detail
