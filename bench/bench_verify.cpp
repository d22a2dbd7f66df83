// Speed goals of verify, measured here and never in tests:
//   * SwingSweep/<variant>: collcheck verify --algo swing --p 1..1024 for one
//     variant, every rank, exact multiplicity (goal: both variants < 60 s on
//     the 2-core machine).
//   * SwingSingleP/<log2 p>: one bandwidth-optimal instance, every rank and
//     step, the CLI's default options (goal: p = 2^21 under 120 s):
//     the contiguous variant, whose one-range transfers run with interval
//     bookkeeping (properties/flow/flow_interval.hpp); the default variant is the
//     same schedule up to block numbering for powers of two, but its
//     scattered sets (~p/16 ranges per transfer) keep it dense and bounded by
//     the 2^32-cell limit.
//   * SwingLatencySingleP/21: swing latency p = 2^21, every rank
//     and step, the CLI's default options (fingerprint above p = 1024; the
//     memory guard at 75% of physical memory).
//   * SwingMemoryEstimate/<variant>/21: the memory guard's estimate for p =
//     2^21 (counter estimate_gib), nothing allocated: the dense bandwidth
//     checkers need p * nblocks = 2^42 cells.
//   * SwingWindow/<log2 p>: the default variant at the 1001 consecutive p from
//     2^k - 500 (both parities: even p by the grouped quotient, odd p by the
//     fold composition reusing the ring's certificate); counter ms_per_p.
//     k = 20 is the goal row `verify --algo swing --p 1048000..1049000` (< 30
//     s); the per-p costs at k = 14..21 bound the headline range 1..2^21
//     (goal < 1 hour; the cost per p grows about linearly with p).
// Run: build/bench/bench_verify --benchmark_filter=SwingSweep
//      build/bench/bench_verify --benchmark_filter='SwingSingleP/21'
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench/bench_support.hpp"
#include "checker/sweep/sweep.hpp"

namespace collcheck {
namespace {

void SwingSweep(benchmark::State& state, const char* variant) {
  SweepRequest req;
  req.targets = resolve_targets("swing", variant);
  for (uint64_t p = 1; p <= static_cast<uint64_t>(state.range(0)); ++p) req.ps.push_back(p);
  req.progress = false;
  for (auto _ : state) {
    Report r = run_sweep(req);
    if (r.status() != Status::holds) state.SkipWithError("a property is violated");
    benchmark::DoNotOptimize(r);
  }
  state.counters["instances"] = static_cast<double>(req.ps.size());
}
BENCHMARK_CAPTURE(SwingSweep, bandwidth, "bandwidth")->Arg(1024)->Arg(256)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK_CAPTURE(SwingSweep, latency, "latency")->Arg(1024)->Arg(256)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void SwingWindow(benchmark::State& state) {
  SweepRequest req;
  req.targets = resolve_targets("swing", "bandwidth");
  const uint64_t mid = uint64_t{1} << state.range(0);
  for (uint64_t p = mid - 500; p <= mid + 500; ++p) req.ps.push_back(p);
  req.progress = false;
  req.check.max_memory = default_max_memory();
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    Report r = run_sweep(req);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.status() != Status::holds) state.SkipWithError("not every instance holds");
    benchmark::DoNotOptimize(r);
  }
  state.counters["ms_per_p"] = 1000.0 * seconds / static_cast<double>(state.iterations() * req.ps.size());
}
BENCHMARK(SwingWindow)->DenseRange(14, 21, 1)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void SwingSingleP(benchmark::State& state) {
  const uint64_t p = uint64_t{1} << state.range(0);
  SweepTarget t = resolve_targets("swing", "bandwidth-contiguous").front();
  CheckOptions o;  // the CLI's defaults: auto mode (fingerprint above 1024, intervals where cheaper)
  o.max_memory = default_max_memory();
  for (auto _ : state) {
    InstanceResult r = check_instance(t, p, o);
    if (r.status != Status::holds) state.SkipWithError(("not holds: " + r.skip_reason).c_str());
    state.SetLabel(r.stats.count("method") ? r.stats["method"] : r.stats["mode"]);
  }
  state.counters["p"] = static_cast<double>(p);
  state.counters["peak_rss_gib"] = bench::peak_rss_gib();
}
BENCHMARK(SwingSingleP)->DenseRange(10, 16, 2)->Arg(21)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void SwingLatencySingleP(benchmark::State& state) {
  const uint64_t p = uint64_t{1} << state.range(0);
  const SweepTarget t = resolve_targets("swing", "latency").front();
  CheckOptions o;
  o.max_memory = default_max_memory();
  for (auto _ : state) {
    InstanceResult r = check_instance(t, p, o);
    if (r.status != Status::holds) state.SkipWithError(("not holds: " + r.skip_reason).c_str());
    state.SetLabel(r.stats["mode"] + (r.stats.count("method") ? " (" + r.stats["method"] + ")" : ""));
  }
  state.counters["peak_rss_gib"] = bench::peak_rss_gib();
}
BENCHMARK(SwingLatencySingleP)->Arg(21)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void SwingMemoryEstimate(benchmark::State& state, const char* variant) {
  const uint64_t p = uint64_t{1} << state.range(0);
  const SweepTarget t = resolve_targets("swing", variant).front();
  InstanceParams ip;
  ip.p = p;
  CheckOptions o;
  MemoryEstimate m;
  for (auto _ : state) m = estimate_memory(*t.variant->make(ip), o);
  state.counters["estimate_gib"] = static_cast<double>(m.bytes) / (1ULL << 30);
  state.SetLabel(m.how);
}
BENCHMARK_CAPTURE(SwingMemoryEstimate, bandwidth, "bandwidth")->Arg(21)->Iterations(1);
BENCHMARK_CAPTURE(SwingMemoryEstimate, contiguous, "bandwidth-contiguous")->Arg(21)->Iterations(1);

}  // namespace
}  // namespace collcheck

BENCHMARK_MAIN();
