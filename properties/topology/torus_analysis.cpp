#include "properties/topology/torus_analysis.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <chrono>

#include "properties/topology/torus_deficiency.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/torus_shape.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

bool TorusAnalysis::holds() const {
  for (const TorusAnalysisRow& r : rows)
    if (r.not_applicable.empty() && r.verdict.status == Status::violated) return false;
  for (const TorusClaimCheck& c : claims)
    if (!c.holds) return false;
  return true;
}

std::vector<std::vector<uint32_t>> shape_series(const std::vector<uint32_t>& dims) {
  std::vector<std::vector<uint32_t>> out = {dims};
  for (;;) {
    std::vector<uint32_t> next = out.back();
    uint32_t f = 0;
    if (std::all_of(next.begin(), next.end(), [](uint32_t d) { return d % 2 == 0 && d / 2 >= 2; })) f = 2;
    else if (std::all_of(next.begin(), next.end(), [](uint32_t d) { return d % 3 == 0 && d / 3 >= 2; })) f = 3;
    if (!f) break;
    for (uint32_t& d : next) d /= f;
    out.push_back(next);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

namespace {


InstanceParams params(const std::vector<uint32_t>& dims) {
  InstanceParams ip;
  ip.p = 1;
  for (uint32_t d : dims) ip.p *= d;
  ip.dims = dims;
  return ip;
}

const TorusAnalysisRow* find_row(const TorusAnalysis& a, TorusCostRole role) {
  for (const TorusAnalysisRow& r : a.rows)
    if (r.role == role && r.not_applicable.empty()) return &r;
  return nullptr;
}

}  // namespace

MemoryEstimate torus_analysis_memory(const Topology& top) {
  const uint64_t p = top.nodes();
  const bool torus = dynamic_cast<const TorusTopology*>(&top) != nullptr;
  const uint64_t links = enumerated_link_cost_memory(p, top.links(), torus);
  const uint64_t rows = 32 * p + 32 * p;  // one schedule; the rows' per-step costs
  const uint64_t process = uint64_t{32} << 20;
  MemoryEstimate m;
  m.bytes = links + rows + process;
  m.how = "analyze --dims " + dims_label(top.dims()) + " on the " + top.name() + ": link loads " + gib(links) + " (" +
          std::to_string(top.links()) + " directed links, a scratch array per thread), schedule and per-step costs " +
          gib(rows) + ", process 0.0312 GiB";
  return m;
}

void check_torus_analysis(const std::string& algo, const std::vector<uint32_t>& dims, const std::string& topology,
                          uint64_t max_memory) {
  const AlgorithmInfo* subject = find_algorithm(algo);
  std::string torus_algos;
  for (const AlgorithmInfo& x : registry())
    if (std::any_of(x.variants.begin(), x.variants.end(), [](const VariantInfo& v) { return v.takes("dims"); }))
      torus_algos += (torus_algos.empty() ? "" : ", ") + x.name;
  if (!subject || std::none_of(subject->variants.begin(), subject->variants.end(),
                               [](const VariantInfo& v) { return v.takes("dims"); }))
    throw InputError("analyze --dims: '" + algo + "' has no torus form (algorithms with one: " + torus_algos + ")");
  const std::unique_ptr<Topology> top = make_topology(topology, dims);  // bad name or shape: InputError
  // The memory guard, before any schedule is built (the largest shape of the series is `dims`).
  if (const MemoryEstimate m = torus_analysis_memory(*top); max_memory && m.bytes > max_memory)
    throw ResourceRefusal(refusal(m, max_memory));
}

TorusAnalysis analyze_torus(const std::string& algo, const std::vector<uint32_t>& dims, const std::string& topology,
                            uint64_t max_memory) {
  const auto t0 = std::chrono::steady_clock::now();
  check_torus_analysis(algo, dims, topology, max_memory);
  TorusAnalysis a;
  a.algo = algo;
  a.dims = dims;
  a.topology = topology;
  const AlgorithmInfo* subject = find_algorithm(algo);
  const std::unique_ptr<Topology> top = make_topology(topology, dims);
  const bool on_torus = dynamic_cast<const TorusTopology*>(top.get()) != nullptr;
  a.series = shape_series(dims);
  // The subject's variants first, then every other allreduce on a torus.
  std::vector<std::pair<const AlgorithmInfo*, const VariantInfo*>> todo;
  for (int pass = 0; pass < 2; ++pass)
    for (const AlgorithmInfo& x : registry()) {
      if ((pass == 0) != (&x == subject) || x.collective != Collective::allreduce) continue;
      for (const VariantInfo& v : x.variants)
        if (v.takes("dims") && v.expected_to_hold) todo.push_back({&x, &v});
    }
  for (const auto& [x, v] : todo) {
    TorusAnalysisRow row;
    row.algorithm = x->name;
    row.variant = v->name;
    row.subject = x == subject;
    const InstanceParams ip = params(dims);
    if (auto why = v->violates(ip)) {
      row.not_applicable = *why;
      a.rows.push_back(std::move(row));
      continue;
    }
    for (const std::vector<uint32_t>& shape : a.series) {
      const InstanceParams sp = params(shape);
      if (v->violates(sp)) continue;
      const std::unique_ptr<Topology> t = make_topology(topology, shape);
      const std::unique_ptr<Schedule> s = v->make(sp);
      const LinkCost c = measure_link_cost(*s, *t);
      row.xi_series.push_back({sp.p, c.xi});
      if (shape == dims) {
        row.cost = c;
        const TorusCostClaim claim = v->torus_cost ? v->torus_cost(sp) : TorusCostClaim{};
        row.role = claim.role;
        if (on_torus && !claim.values.empty()) {
          row.verdict = judge_torus_cost(claim, c, sp.p);
        } else {
          row.verdict = judge_torus_cost(TorusCostClaim{claim.row, {}, claim.role}, c, sp.p);
          if (!on_torus) row.verdict.stats["row"] = "not judged: the printed rows are for tori";
        }
      }
    }
    a.rows.push_back(std::move(row));
  }
  // The comparative claims.
  const TorusAnalysisRow* swing = find_row(a, TorusCostRole::swing_bandwidth);
  const TorusAnalysisRow* mrd = find_row(a, TorusCostRole::mirrored_recursive_doubling_bandwidth);
  if (swing && mrd) {
    TorusClaimCheck c;
    // On a torus of sides 2 both are the same exchange (one step per
    // dimension, to the neighbour): equal there, so the claim is for shapes
    // with a side of 4 or more (Swing's -1 at sigma = 1 against recursive
    // doubling's 2 hops).
    c.statement = "Swing (B) has a lower Xi than the mirrored recursive doubling (B) at every shape with a side >= 4 "
                  "(Swing NSDI'24 Sec. 3.1.1, 5.1)";
    for (size_t k = 0; k < swing->xi_series.size() && k < mrd->xi_series.size(); ++k) {
      const auto [p, xs] = swing->xi_series[k];
      const auto shape = std::find_if(a.series.begin(), a.series.end(), [&](const std::vector<uint32_t>& sh) {
        return std::accumulate(sh.begin(), sh.end(), uint64_t{1}, std::multiplies<>()) == p;
      });
      if (shape == a.series.end() || *std::max_element(shape->begin(), shape->end()) < 4 ||
          mrd->xi_series[k].first != p)
        continue;
      const double xr = mrd->xi_series[k].second;
      c.detail += (c.detail.empty() ? "" : ", ") + std::string("p=") + std::to_string(p) + ": " + fixed_decimals(xs) + " vs " +
                  fixed_decimals(xr);
      if (!(xs < xr)) c.holds = false;
    }
    if (!c.detail.empty()) a.claims.push_back(std::move(c));
  }
  // Sec. 4.1's prose, after Table 2: "If D >= 3, the Swing algorithm has a
  // congestion deficiency Xi < 1.003 (i.e., lower than 3%)". The sentence
  // states two bounds: 1.003 is 0.3% above 1, "lower than 3%" is 1.03. Each
  // reading is its own claim, judged at every shape of the series (Xi grows
  // with p; the limit for D = 3 is 2^D (2^D - 1) / ((2^D - 2)(2^D + 1)) =
  // 1.0370, above both; Table 2 itself prints 1.03 for D = 3).
  if (swing && on_torus && dims.size() >= 3) {
    const struct {
      double bound;
      const char* statement;
    } readings[] = {
        {1.003, "D >= 3: Swing (B) has Xi < 1.003, as printed (Swing NSDI'24 Sec. 4.1, the prose after Table 2)"},
        {1.03, "D >= 3: Swing (B) has Xi \"lower than 3%\", i.e. < 1.03 (Swing NSDI'24 Sec. 4.1, the same "
               "sentence's parenthesis)"},
    };
    for (const auto& reading : readings) {
      TorusClaimCheck c;
      c.statement = reading.statement;
      for (const auto& [p, xi] : swing->xi_series) {
        c.detail += (c.detail.empty() ? "" : ", ") + std::string("p=") + std::to_string(p) + ": " + fixed_decimals(xi);
        if (!(xi < reading.bound)) c.holds = false;
      }
      if (!c.detail.empty()) a.claims.push_back(std::move(c));
    }
  }
  if (swing && dynamic_cast<const HyperXTopology*>(top.get())) {
    TorusClaimCheck c;
    c.statement = "on HyperX Swing (B) has no congestion deficiency: Xi = 1 (Swing NSDI'24 Sec. 6)";
    c.holds = std::abs(swing->cost.xi - 1) < 1e-9;
    c.detail = "measured Xi = " + fixed_decimals(swing->cost.xi) + " on " + top->name();
    a.claims.push_back(std::move(c));
  }
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return a;
}

}  // namespace collcheck
