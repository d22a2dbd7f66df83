// Speed goals of issue 2, measured here and never in tests:
//   * SwingSweep/<variant>: collcheck verify --algo swing --p 1..1024 for one
//     variant, every rank, exact multiplicity (goal: both variants < 60 s on
//     the 2-core machine).
//   * SwingSingleP/<log2 p>: one bandwidth-optimal instance, every rank and
//     step, fingerprint mode, to find the largest p verified within 60 s and
//     8 GiB (the contiguous variant; the default variant is the same schedule
//     up to block numbering for powers of two).
// Run: build/bench/bench_verify --benchmark_filter=SwingSweep
//      build/bench/bench_verify --benchmark_filter='SwingSingleP/1[0-4]'
#include <benchmark/benchmark.h>

#include "checker/sweep.hpp"

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

void SwingSingleP(benchmark::State& state) {
  const uint64_t p = uint64_t{1} << state.range(0);
  SweepTarget t = resolve_targets("swing", "bandwidth-contiguous").front();
  CheckOptions o;
  o.exactness = Exactness::fingerprint;
  o.memory_budget = 8ULL << 30;
  for (auto _ : state) {
    InstanceResult r = check_instance(t, p, o);
    if (r.status != Status::holds) state.SkipWithError("a property is violated");
    state.counters["chunks"] = std::stod(r.stats["chunks"]);
  }
  state.counters["p"] = static_cast<double>(p);
}
BENCHMARK(SwingSingleP)->DenseRange(10, 16)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace collcheck

BENCHMARK_MAIN();
