// Speed goals of Träff's circulant schedules, measured here and
// never in tests. Run on an otherwise idle machine:
//   * TraffCompute/<log2 p>: Algorithms 2-6 (receive + send schedule) for
//     every rank of p, one core, no checking: seconds_per_rank (printed
//     with an SI prefix, "305n" = 305 ns) (the paper's Table 4
//     reports 608 ns per rank on a 2012-era 3.3 GHz Xeon).
//     build/bench/bench_traff --benchmark_filter='TraffCompute/21'
//   * TraffComputeAndCheck/<log2 p>/<threads>: the same plus Träff's four
//     conditions and the two bounds (traff-conditions, traff-bounds) for every
//     rank; ns per rank per core (goal: < 150 ns).
//     build/bench/bench_traff --benchmark_filter='TraffComputeAndCheck/21'
//   * TraffConditionsSweep/<log2 max p>: every p in 1..2^K, conditions and
//     bounds for every rank, all cores, as `collcheck verify --algo traff
//     --p 1..2^16 --properties traff-conditions,traff-bounds` (goal: K = 16
//     under 10 minutes on 2 cores).
//     build/bench/bench_traff --benchmark_filter='TraffConditionsSweep/16'
//   * TraffBroadcastFlow/<log2 p>/<n>: Algorithm 1's broadcast, every rank,
//     step and block through the generic properties (causality, exactly-once,
//     postcondition, n-1+q rounds), all cores; reports the peak RSS.
//     build/bench/bench_traff --benchmark_filter='TraffBroadcastFlow/21/64'
#include <benchmark/benchmark.h>

#include "bench/bench_support.hpp"
#include <tbb/global_control.h>

#include <array>
#include <memory>

#include "checker/sweep/sweep.hpp"
#include "properties/traff/traff_bounds.hpp"
#include "properties/traff/traff_conditions.hpp"
#include "properties/traff/traff_tables.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {
namespace {

using bench::peak_rss_gib;

void TraffCompute(benchmark::State& state) {
  const uint64_t p = uint64_t{1} << state.range(0);
  const auto skip = traff::skips(p);
  std::array<int64_t, 64> rb{}, sb{};
  for (auto _ : state) {
    int64_t sum = 0;
    for (uint64_t r = 0; r < p; ++r) {
      const traff::RankCounters c = traff::rank_schedule_into(r, skip, rb.data(), sb.data());
      sum += c.baseblock + rb[0] + sb[0];
    }
    benchmark::DoNotOptimize(sum);
  }
  state.counters["seconds_per_rank"] = benchmark::Counter(static_cast<double>(p) * static_cast<double>(state.iterations()),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(TraffCompute)->Arg(16)->Arg(21)->Unit(benchmark::kMillisecond)->UseRealTime();

void TraffComputeAndCheck(benchmark::State& state) {
  const uint64_t p = uint64_t{1} << state.range(0);
  const int threads = static_cast<int>(state.range(1));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads));
  for (auto _ : state) {
    const traff::Tables t = traff::compute_tables(p);
    const Verdict c = traff_conditions(t);
    const Verdict b = traff_bounds(t);
    if (c.status != Status::holds || b.status != Status::holds) state.SkipWithError("a property is violated");
  }
  state.counters["threads"] = threads;
  state.counters["seconds_per_rank_per_core"] = benchmark::Counter(
      static_cast<double>(p) * static_cast<double>(state.iterations()) / threads,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["peak_rss_gib"] = peak_rss_gib();
}
BENCHMARK(TraffComputeAndCheck)->Args({16, 1})->Args({21, 1})->Args({21, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

void TraffConditionsSweep(benchmark::State& state) {
  SweepRequest req;
  req.targets = resolve_targets("traff", "broadcast");
  for (uint64_t p = 1; p <= (uint64_t{1} << state.range(0)); ++p) req.ps.push_back(p);
  req.progress = false;
  req.check.properties = {"traff-conditions", "traff-bounds"};
  for (auto _ : state) {
    Report r = run_sweep(req);
    if (r.status() != Status::holds) state.SkipWithError("a property is violated");
    benchmark::DoNotOptimize(r);
  }
  state.counters["instances"] = static_cast<double>(req.ps.size());
}
BENCHMARK(TraffConditionsSweep)->Arg(12)->Arg(16)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

void TraffBroadcastFlow(benchmark::State& state) {
  const uint64_t p = uint64_t{1} << state.range(0);
  SweepTarget t = resolve_targets("traff", "broadcast").front();
  t.blocks = static_cast<uint32_t>(state.range(1));
  CheckOptions o;
  o.memory_budget = 8ULL << 30;
  std::string mode;
  for (auto _ : state) {
    InstanceResult r = check_instance(t, p, o);
    if (r.status != Status::holds) state.SkipWithError("a property is violated");
    mode = r.stats["mode"];
  }
  state.counters["peak_rss_gib"] = peak_rss_gib();
  state.SetLabel(mode);
}
BENCHMARK(TraffBroadcastFlow)->Args({16, 64})->Args({21, 8})->Args({21, 64})->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace collcheck

BENCHMARK_MAIN();
