// Speed goals of the tunable-radix all-to-all, measured here and never
// in tests. Run on an otherwise idle machine (numbers from a shared machine
// are upper bounds):
//   * TraAllRadices/<max P>: every (P, r) with 2 <= P <= max P and 2 <= r <= P
//     through alltoall-delivery and tra-formulas (the buffer simulation of
//     every rank's P tokens, the counts against Propositions 1-4), all cores,
//     as `collcheck verify --algo tra --p 2..1024 --radix all --properties
//     alltoall-delivery,tra-formulas` (goal: max P = 1024, about 524k
//     instances, under 10 minutes on 2 cores); reports the instances, the
//     seconds per instance and the peak RSS (the report keeps every instance).
//     build/bench/bench_tra --benchmark_filter='TraAllRadices/1024'
//   * TraDelivery/<P>/<r>: one instance with data, one core (P = 16384,
//     r = 128: Sec. III-B's instance, 1 GiB of tokens).
//     build/bench/bench_tra --benchmark_filter='TraDelivery/16384/128'
//   * TraAnalyze/<P>: `collcheck analyze --algo tra --p P` without output:
//     K and D counted for every radix (P <= 2^16), all cores.
//     build/bench/bench_tra --benchmark_filter='TraAnalyze/16384'
#include <benchmark/benchmark.h>

#include "bench/bench_support.hpp"

#include "properties/tra/radix_analysis.hpp"
#include "checker/sweep/sweep.hpp"
#include "properties/tra/alltoall_delivery.hpp"
#include "properties/tra/tra_formulas.hpp"

namespace collcheck {
namespace {

using bench::peak_rss_gib;

void TraAllRadices(benchmark::State& state) {
  SweepRequest req;
  req.targets = resolve_targets("tra", "tra");
  for (SweepTarget& t : req.targets) t.all_radices = true;  // --radix all
  for (uint64_t p = 2; p <= static_cast<uint64_t>(state.range(0)); ++p) req.ps.push_back(p);
  req.progress = false;
  req.check.properties = {"alltoall-delivery", "tra-formulas"};
  size_t instances = 0;
  for (auto _ : state) {
    Report r = run_sweep(req);
    if (r.status() != Status::holds) state.SkipWithError("a property is violated");
    instances = r.instances.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["instances"] = static_cast<double>(instances);
  state.counters["seconds_per_instance"] = benchmark::Counter(
      static_cast<double>(instances) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["peak_rss_gib"] = peak_rss_gib();
}
BENCHMARK(TraAllRadices)->Arg(256)->Arg(1024)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void TraDelivery(benchmark::State& state) {
  a2a::Instance in;
  in.p = static_cast<uint64_t>(state.range(0));
  in.r = static_cast<uint64_t>(state.range(1));
  for (auto _ : state) {
    const a2a::Simulation s = a2a::simulate(in);
    if (s.delivery.status != Status::holds || tra_formulas(s).status != Status::holds)
      state.SkipWithError("a property is violated");
  }
  state.counters["tokens_per_second"] = benchmark::Counter(
      static_cast<double>(in.p * in.p) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["peak_rss_gib"] = peak_rss_gib();
}
BENCHMARK(TraDelivery)->Args({1024, 32})->Args({1024, 2})->Args({1024, 1024})->Args({16384, 128})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

void TraAnalyze(benchmark::State& state) {
  const uint64_t p = static_cast<uint64_t>(state.range(0));
  for (auto _ : state) {
    const Analysis a = analyze_tra(p, 2e-6, 1e-10, 1024);
    benchmark::DoNotOptimize(a.optimum);
  }
}
BENCHMARK(TraAnalyze)->Arg(16384)->Arg(65536)->Arg(1 << 20)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace collcheck

BENCHMARK_MAIN();
