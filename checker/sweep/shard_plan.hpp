#pragma once
// The MPI-free half of distributed sweeps (checker/sweep/mpi_shard.hpp is the MPI
// half): which process runs which instance, the byte form in which an
// InstanceResult travels to the reporting process, and the interface through
// which verify reaches the MPI runner (ShardedRunner).
//
// Partition: longest-processing-time-first (Graham 1969): jobs sorted by
// estimated cost (checker/sweep/cost_model.hpp), largest first, each given to the
// least-loaded part; ties go to the lower job index and the lower part, so
// every MPI rank computes the same plan from the same request without talking.
// Graham's bound: the busiest part gets at most 4/3 - 1/(3K) of the optimum.
//
// Codec: every field of InstanceResult (and of its verdicts and
// counterexamples) as JSON in MessagePack (nlohmann::json::to_msgpack), so
// the report rank 0 assembles renders byte for byte like the single-process
// one (doubles round-trip exactly). Decoding rejects malformed input with
// std::runtime_error, never a crash.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "checker/sweep/sweep.hpp"
#include "reports/report.hpp"

namespace collcheck {

// Renders the whole report and returns the exit code (verify's `finish`).
using FinishReport = std::function<int(Report)>;
// verify --db: opens the results store and installs its hooks (req.reuse
// with --resume, req.on_finished) into the request; throws InputError for a
// bad store or request (checker/cli/report_command.hpp, attach_results_store).
using AttachStore = std::function<void(SweepRequest&)>;

// How `verify` runs its sweep when this process is one of several: under
// mpirun, checker/sweep/mpi_shard.hpp shards the request over the MPI ranks and
// calls `finish` (render the report, return its exit code) with the whole
// report on rank 0 only; the runner returns the exit code every rank exits
// with. Empty: run_sweep in this process.
using SweepRunner = std::function<int(const SweepRequest& req, const FinishReport& finish)>;

// The sweep runner mpirun installs (checker/sweep/mpi_shard.cpp) as the
// command line's SweepRunner (checker/cli/cli.hpp). Called as a SweepRunner it shards a sweep
// without a store; verify finds it with SweepRunner::target<ShardedRunner>()
// to reach the two entries a plain SweepRunner lacks:
//  * sweep(req, attach, finish): the sharded sweep; `attach` (may be empty)
//    runs on MPI rank 0 only, which alone opens and writes the store, reads
//    what --resume reuses before the plan is made, and records every rank's
//    results as they arrive; `finish` runs on rank 0 with the whole report;
//  * on_root_only(body): `body` runs on rank 0 only (verify --estimate; the
//    other subcommands), every rank returns its exit code, and an exception
//    it throws is rethrown on rank 0 (the other ranks return its exit code).
struct ShardedRunner {
  std::function<int(const SweepRequest&, const AttachStore&, const FinishReport&)> sweep;
  std::function<int(const std::function<int()>&)> on_root_only;
  int operator()(const SweepRequest& req, const FinishReport& finish) const { return sweep(req, {}, finish); }
};

// owner[i] in [0, parts) for every job i; parts >= 1.
std::vector<uint32_t> partition_by_cost(const std::vector<double>& cost, uint32_t parts);

// The summed cost of each part under `owner`.
std::vector<double> part_loads(const std::vector<double>& cost, const std::vector<uint32_t>& owner, uint32_t parts);

// (job index, result) pairs <-> bytes.
using IndexedResult = std::pair<uint64_t, InstanceResult>;
std::string encode_results(const std::vector<IndexedResult>& results);
std::vector<IndexedResult> decode_results(const std::string& bytes);

}  // namespace collcheck
