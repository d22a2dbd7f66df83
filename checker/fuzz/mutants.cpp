#include "checker/fuzz/mutants.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reports/report.hpp"

namespace collcheck::fuzz {

namespace {

struct Site {
  int step;
  Rank src;
  size_t send;  // index in src's sends
};

// The receiver's entry matching src's send `t` at step s, or -1.
long matching_recv(const MaterializedSchedule& m, int s, Rank src, const Transfer& t) {
  if (t.peer >= m.spec.p) return -1;
  const auto& recvs = m.steps[static_cast<size_t>(s)][t.peer].recvs;
  for (size_t i = 0; i < recvs.size(); ++i)
    if (recvs[i].peer == src && recvs[i].blocks == t.blocks && recvs[i].combine == t.combine) return static_cast<long>(i);
  return -1;
}

void ensure_step(MaterializedSchedule& m, int s) {
  while (static_cast<int>(m.steps.size()) <= s) m.steps.emplace_back(m.spec.p);
}

// Applies operator `op` at `site`; false if it does not apply there.
bool mutate(MaterializedSchedule& m, const std::string& op, const Site& x) {
  auto& sends = m.steps[static_cast<size_t>(x.step)][x.src].sends;
  const Transfer t = sends[x.send];
  const long ri = matching_recv(m, x.step, x.src, t);
  if (ri < 0) return false;  // an unmatched send: matching already fails, nothing to mutate consistently
  auto& recvs = m.steps[static_cast<size_t>(x.step)][t.peer].recvs;
  auto erase_both = [&] {
    recvs.erase(recvs.begin() + ri);
    sends.erase(sends.begin() + static_cast<long>(x.send));
  };
  if (op == "drop") {
    erase_both();
  } else if (op == "drop-recv") {
    recvs.erase(recvs.begin() + ri);
  } else if (op == "flip-combine") {
    const Combine c = t.combine == Combine::reduce ? Combine::copy : Combine::reduce;
    sends[x.send].combine = c;
    recvs[static_cast<size_t>(ri)].combine = c;
  } else if (op == "duplicate") {
    const Transfer r = recvs[static_cast<size_t>(ri)];
    sends.push_back(t);
    recvs.push_back(r);
  } else if (op == "lose-block") {
    if (t.blocks.size() <= 1) {
      erase_both();
    } else {
      const Block b = t.blocks.ranges().front().lo;
      sends[x.send].blocks.erase(b);
      recvs[static_cast<size_t>(ri)].blocks.erase(b);
    }
  } else if (op == "delay") {
    const Transfer r = recvs[static_cast<size_t>(ri)];
    const Rank dst = t.peer;
    erase_both();
    ensure_step(m, x.step + 1);
    m.steps[static_cast<size_t>(x.step + 1)][x.src].sends.push_back(t);
    m.steps[static_cast<size_t>(x.step + 1)][dst].recvs.push_back(r);
  } else if (op == "redirect") {
    const Rank to = static_cast<Rank>((uint64_t{t.peer} + 1) % m.spec.p);
    if (to == x.src || m.spec.p < 3) return false;
    Transfer r = recvs[static_cast<size_t>(ri)];
    erase_both();
    Transfer s2 = t;
    s2.peer = to;
    m.steps[static_cast<size_t>(x.step)][x.src].sends.push_back(s2);
    m.steps[static_cast<size_t>(x.step)][to].recvs.push_back(r);
  } else {
    return false;
  }
  return true;
}

}  // namespace

MutantRun run_mutants(const MaterializedSchedule& m, const Claim* claim, const CheckOptions& o, uint64_t max_mutants,
                      uint64_t seed) {
  MutantRun out;
  out.operators = {"drop", "drop-recv", "flip-combine", "duplicate", "lose-block", "delay", "redirect"};
  {
    const MaterializedView view{MaterializedSchedule(m)};
    const InstanceCheck ic = check_schedule(view, claim, {}, o);
    for (const Verdict& v : ic.verdicts)
      if (v.status == Status::violated) {
        out.original_failure = v.property + (v.counterexample ? " at " + v.counterexample->location() : "");
        return out;
      }
  }
  std::vector<Site> sites;
  for (int s = 0; s < m.num_steps(); ++s)
    for (Rank r = 0; r < m.spec.p; ++r)
      for (size_t i = 0; i < m.steps[static_cast<size_t>(s)][r].sends.size(); ++i) sites.push_back({s, r, i});
  // Every (site, operator), or an even spread of max_mutants of them, from a seeded offset.
  const uint64_t total = sites.size() * out.operators.size();
  const uint64_t want = std::min<uint64_t>(total, max_mutants);
  for (uint64_t k = 0; k < want; ++k) {
    const uint64_t idx = want == total ? k : (seed % std::max<uint64_t>(1, total / want) + k * total / want) % total;
    const Site& x = sites[idx / out.operators.size()];
    const std::string& op = out.operators[idx % out.operators.size()];
    MaterializedSchedule mu = m;
    if (!mutate(mu, op, x)) continue;
    ++out.mutants;
    ++out.per_operator[op];
    const MaterializedView view(std::move(mu));
    const InstanceCheck ic = check_schedule(view, claim, {}, o);
    bool killed = false;
    for (const Verdict& v : ic.verdicts)
      if (v.status == Status::violated) {
        ++out.killed_per_property[v.property];
        killed = true;
      }
    if (killed) {
      ++out.killed;
      ++out.killed_per_operator[op];
    } else if (out.survivors.size() < 10) {
      out.survivors.push_back(op + " at step " + std::to_string(x.step) + ", rank " + std::to_string(x.src) +
                              "'s send " + std::to_string(x.send));
    }
  }
  return out;
}

std::string render_mutants(const MutantRun& r, const std::string& path, Format f) {
  auto frac = [](uint64_t a, uint64_t b) {
    std::ostringstream os;
    os.precision(1);
    os << std::fixed << (b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0) << "%";
    return os.str();
  };
  if (f == Format::json) {
    nlohmann::json j{{"tool", "collcheck fuzz --mutants"}, {"file", path}, {"mutants", r.mutants},
                     {"killed", r.killed}, {"survivors", r.survivors}};
    j["status"] = !r.original_failure.empty() ? "original-fails" : r.killed == r.mutants ? "all-killed" : "survivors";
    j["original_failure"] = r.original_failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.original_failure);
    j["per_operator"] = nlohmann::json::object();
    for (const std::string& op : r.operators)
      if (r.per_operator.count(op))
        j["per_operator"][op] = {{"mutants", r.per_operator.at(op)},
                                 {"killed", r.killed_per_operator.count(op) ? r.killed_per_operator.at(op) : 0}};
    j["per_property"] = nlohmann::json::object();
    for (const auto& [p, k] : r.killed_per_property) j["per_property"][p] = {{"killed", k}, {"fraction", r.mutants ? double(k) / double(r.mutants) : 0.0}};
    return j.dump(1) + "\n";
  }
  std::ostringstream os;
  // The path and the messages quoting the file: escaped visibly (visible()).
  os << "collcheck fuzz --mutants: " << visible(path) << "\n";
  if (!r.original_failure.empty()) {
    os << "the schedule itself fails (" << visible(r.original_failure)
       << "): nothing to mutate against\nRESULT: violated\n";
    return os.str();
  }
  os << r.mutants << " mutants, " << r.killed << " killed by some property (" << frac(r.killed, r.mutants) << ")\n";
  os << "per operator (killed / made):";
  for (const std::string& op : r.operators)
    if (r.per_operator.count(op))
      os << " " << op << " " << (r.killed_per_operator.count(op) ? r.killed_per_operator.at(op) : 0) << "/"
         << r.per_operator.at(op);
  os << "\nper property (mutants it kills):";
  for (const auto& [p, k] : r.killed_per_property) os << " " << p << " " << frac(k, r.mutants);
  os << "\n";
  for (const std::string& s : r.survivors) os << "survivor: " << visible(s) << "\n";
  os << "RESULT: " << (r.killed == r.mutants ? "every mutant killed" : "some mutants survive") << "\n";
  return os.str();
}

}  // namespace collcheck::fuzz
