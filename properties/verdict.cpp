#include "properties/verdict.hpp"

#include <tuple>

namespace collcheck {

const char* to_string(Status s) {
  switch (s) {
    case Status::holds: return "holds";
    case Status::violated: return "violated";
    case Status::unknown: return "unknown";
    case Status::skipped: return "skipped";
  }
  return "?";
}

static int severity(Status s) {
  switch (s) {
    case Status::skipped: return 0;
    case Status::holds: return 1;
    case Status::unknown: return 2;
    case Status::violated: return 3;
  }
  return 0;
}

Status worst(Status a, Status b) { return severity(a) >= severity(b) ? a : b; }

Status combined_status(const std::vector<Verdict>& verdicts) {
  Status s = Status::skipped;
  bool any = false;
  for (const auto& v : verdicts) {
    if (v.status == Status::skipped) continue;
    s = any ? worst(s, v.status) : v.status;
    any = true;
  }
  return s;
}

namespace {
// The coordinates of the order (a missing one before every value), by value.
auto coordinates(const Counterexample& c) {
  return std::make_tuple(c.p, c.step.has_value(), c.step.value_or(0), c.rank.has_value(), c.rank.value_or(0),
                         c.block.has_value(), c.block.value_or(0), c.peer.has_value(), c.peer.value_or(0));
}
}  // namespace

bool operator<(const Counterexample& a, const Counterexample& b) {
  const auto ka = coordinates(a), kb = coordinates(b);
  if (ka != kb) return ka < kb;
  // The texts by reference (a sweep with many violations compares often).
  return std::tie(a.message, a.expected, a.actual) < std::tie(b.message, b.expected, b.actual);
}

bool coordinates_before(const Counterexample& a, const Counterexample& b) { return coordinates(a) < coordinates(b); }

const char* to_string(RootCause::Kind k) {
  switch (k) {
    case RootCause::Kind::lost: return "lost";
    case RootCause::Kind::counted_twice: return "counted-twice";
    case RootCause::Kind::unmatched: return "unmatched";
    case RootCause::Kind::unavailable: return "unavailable";
  }
  return "?";
}

std::optional<RootCause::Kind> root_cause_kind_from_string(const std::string& s) {
  for (auto k : {RootCause::Kind::lost, RootCause::Kind::counted_twice, RootCause::Kind::unmatched,
                 RootCause::Kind::unavailable})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

std::string Counterexample::location() const {
  std::string s = "p=" + std::to_string(p);
  if (rank) s += " rank=" + std::to_string(*rank);
  if (step) s += " step=" + std::to_string(*step);
  if (block) s += " block=" + std::to_string(*block);
  if (peer) s += " peer=" + std::to_string(*peer);
  return s;
}

void Verdict::fail(Counterexample cx) {
  status = Status::violated;
  ++violations;
  if (!counterexample || cx < *counterexample) counterexample = std::move(cx);
}

bool Verdict::counted_beyond_minimal(const Counterexample& at) {
  if (!counterexample || !coordinates_before(*counterexample, at)) return false;
  status = Status::violated;
  ++violations;
  return true;
}

void Verdict::merge(const Verdict& o) {
  if (property.empty()) property = o.property;
  status = worst(status, o.status);
  checks += o.checks;
  violations += o.violations;
  if (o.counterexample && (!counterexample || *o.counterexample < *counterexample))
    counterexample = o.counterexample;
  if (mode.empty()) mode = o.mode;
  for (const auto& [k, v] : o.stats) stats.emplace(k, v);
}

}  // namespace collcheck
