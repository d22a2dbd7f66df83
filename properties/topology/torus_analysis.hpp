#pragma once
// collcheck analyze --dims: every allreduce the registry has on a torus,
// measured on the routed links of its own schedule at one shape and at the
// smaller shapes of the same proportions (the series the Xi-against-p chart
// draws), with each variant's printed row judged (torus-deficiency) and the
// Swing paper's comparative claims checked:
//   * Sec. 3.1.1 / 5.1: Swing (B) has a lower congestion deficiency than the
//     mirrored recursive doubling (B) ("Swing consistently outperforms our
//     mirrored recursive doubling at any size due to the lower congestion
//     deficiency"): Xi(swing torus-bandwidth) < Xi(recursive-doubling
//     torus-mirrored-bandwidth) at every shape of the series with p > 4 (at
//     2x2 and 4 nodes both are neighbour exchanges);
//   * Sec. 6, HyperX: "in Swing each node communicates only with nodes on the
//     same row (or the same column), on HyperX Swing does not experience any
//     congestion deficiency": with --topology hyperx, Xi(swing
//     torus-bandwidth) = 1.
// On another topology than the torus the printed rows (Table 2: tori) are
// not judged; the measured values are reported.
#include <cstdint>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "properties/verdict.hpp"
#include "schedules/family.hpp"
#include "topology/link_load.hpp"

namespace collcheck {

struct TorusAnalysisRow {
  std::string algorithm, variant;
  bool subject = false;        // a variant of --algo
  std::string not_applicable;  // why the shape does not fit (empty: measured)
  TorusCostRole role = TorusCostRole::none;
  LinkCost cost;
  Verdict verdict;             // the printed row judged (torus only)
  std::vector<std::pair<uint64_t, double>> xi_series;  // (p, Xi) over the series shapes that fit
};

struct TorusClaimCheck {
  std::string statement;
  bool holds = true;
  std::string detail;
};

struct TorusAnalysis {
  std::string algo, topology;
  std::vector<uint32_t> dims;
  std::vector<std::vector<uint32_t>> series;  // ascending p, the shape itself last
  std::vector<TorusAnalysisRow> rows;
  std::vector<TorusClaimCheck> claims;
  double seconds = 0;
  bool holds() const;  // every judged printed value and every claim holds
};

// The shapes of the series: dims, then every side halved (or divided by 3, for
// sides all multiples of 3) while every side stays >= 2, ascending.
std::vector<std::vector<uint32_t>> shape_series(const std::vector<uint32_t>& dims);

// What analyze_torus holds at its peak on `top` (the shape given), estimated
// before anything is built (analyze's memory guard, --max-memory): one row at
// a time, so one schedule (at most 32 bytes per node: the Hamiltonian ring's
// cycles and positions), measure_link_cost's enumeration on the topology
// (enumerated_link_cost_memory: every row is counted as enumerated; the
// baselines always include one), the rows' per-step costs (at most 2p steps
// of 16 bytes) and the process's own 32 MiB.
MemoryEstimate torus_analysis_memory(const Topology& top);

// Throws InputError if `algo` has no torus variant or the topology is
// unknown, and ResourceRefusal (schedules/memory_guard.hpp) if
// torus_analysis_memory exceeds `max_memory` bytes (0: no guard), before any
// schedule is built.
TorusAnalysis analyze_torus(const std::string& algo, const std::vector<uint32_t>& dims, const std::string& topology,
                            uint64_t max_memory = 0);
// Those checks alone, which analyze_torus makes first (analyze --dry-run makes them alone).
void check_torus_analysis(const std::string& algo, const std::vector<uint32_t>& dims, const std::string& topology,
                          uint64_t max_memory = 0);

}  // namespace collcheck
