// Speed goal of Trivance on a ring, measured here and never in
// tests. Run on an otherwise idle machine:
//   * TrivanceSweep/<log2 max n>: every n in 1..2^K, both Trivance variants
//     (latency, bandwidth), every property (the generic ones -- matching,
//     ports, causality, exactly-once, postcondition, cost -- and
//     trivance-coverage), all cores, as
//     `collcheck verify --algo trivance --variant latency --p 1..4096` plus the
//     same with `--variant bandwidth`
//     (goal: K = 12 under 5 minutes on 2 cores). The CLI's default options:
//     every translation-invariant instance (bandwidth: all n; latency: n a
//     power of three) runs in the exact symmetry mode
//     (properties/flow/flow_rotation.hpp: invariance verified on every rank and
//     step, rank 0 simulated with p-bit sets), the folded latency instances
//     in the generic simulation (exact up to 1024, fingerprint above).
//     build/bench/bench_trivance --benchmark_filter='TrivanceSweep/12'
//   * TrivanceSingleN/<variant>: one instance n = 3^13 = 1594323,
//     every rank and step, all properties (trivance-coverage skips n > 2^16);
//     latency in the dense fingerprint mode, bandwidth-contiguous (the
//     bandwidth schedule with blocks renumbered, one range per transfer) with
//     interval bookkeeping (properties/flow/flow_interval.hpp). Variant bandwidth
//     itself (n/3 single-block ranges per transfer) is refused by the memory
//     guard at this n.
//     build/bench/bench_trivance --benchmark_filter='TrivanceSingleN'
//   * BruckSweep/<log2 max n>: the same for bruck-allreduce (generic properties).
//     build/bench/bench_trivance --benchmark_filter='BruckSweep/12'
#include <benchmark/benchmark.h>

#include "bench/bench_support.hpp"
#include "checker/sweep/sweep.hpp"

namespace collcheck {
namespace {

using bench::peak_rss_gib;

void sweep(benchmark::State& state, const std::string& algo) {
  SweepRequest req;
  for (const char* v : {"latency", "bandwidth"})
    for (const SweepTarget& t : resolve_targets(algo, v)) req.targets.push_back(t);
  for (uint64_t n = 1; n <= (uint64_t{1} << state.range(0)); ++n) req.ps.push_back(n);
  req.progress = false;
  for (auto _ : state) {
    Report r = run_sweep(req);
    if (r.status() != Status::holds) state.SkipWithError("a property is violated");
  }
  state.counters["instances"] = static_cast<double>(2 * req.ps.size());
  state.counters["peak_rss_gib"] = peak_rss_gib();
}

void TrivanceSweep(benchmark::State& state) { sweep(state, "trivance"); }
BENCHMARK(TrivanceSweep)->Arg(8)->Arg(12)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

void TrivanceSingleN(benchmark::State& state, const char* variant) {
  const SweepTarget t = resolve_targets("trivance", variant).front();
  CheckOptions o;
  o.max_memory = default_max_memory();
  for (auto _ : state) {
    InstanceResult r = check_instance(t, 1594323, o);
    if (r.status != Status::holds) state.SkipWithError(("not holds: " + r.skip_reason).c_str());
    state.SetLabel(r.stats["mode"] + (r.stats.count("method") ? " (" + r.stats["method"] + ")" : ""));
  }
  state.counters["peak_rss_gib"] = peak_rss_gib();
}
BENCHMARK_CAPTURE(TrivanceSingleN, latency, "latency")->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);
BENCHMARK_CAPTURE(TrivanceSingleN, bandwidth_contiguous, "bandwidth-contiguous")
    ->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

void BruckSweep(benchmark::State& state) { sweep(state, "bruck-allreduce"); }
BENCHMARK(BruckSweep)->Arg(8)->Arg(12)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace collcheck

BENCHMARK_MAIN();
