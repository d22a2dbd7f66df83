#pragma once
// The MPI-free half of distributed sweeps (checker/mpi_shard.hpp is the MPI
// half): which process runs which instance, and the byte form in which an
// InstanceResult travels to the reporting process.
//
// Partition: longest-processing-time-first (Graham 1969): jobs sorted by
// estimated cost (checker/cost_model.hpp), largest first, each given to the
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
#include <string>
#include <utility>
#include <vector>

#include "reports/report.hpp"

namespace collcheck {

// owner[i] in [0, parts) for every job i; parts >= 1.
std::vector<uint32_t> partition_by_cost(const std::vector<double>& cost, uint32_t parts);

// The summed cost of each part under `owner`.
std::vector<double> part_loads(const std::vector<double>& cost, const std::vector<uint32_t>& owner, uint32_t parts);

// (job index, result) pairs <-> bytes.
using IndexedResult = std::pair<uint64_t, InstanceResult>;
std::string encode_results(const std::vector<IndexedResult>& results);
std::vector<IndexedResult> decode_results(const std::string& bytes);

}  // namespace collcheck
