#pragma once
// TRA's radix analysis (`collcheck analyze --algo tra --p P`): K and D of the
// tunable-radix all-to-all (Fan et al., "Configurable Algorithms for
// All-to-all Collectives", Sec. III) for every radix r = 2..P, the paper's
// propositions next to them, the Hockney cost alpha*K + beta*D*S, the radix
// minimising it, where sqrt(P) falls (Sec. III-B, Fig. 4) and Sec. III-B's
// statements checked at this P. The numbers only: the text table, JSON and
// HTML page are reports/tra/radix_analysis_report.hpp.
//
// Measured vs formula: "K" and "D" are counted by enumerating the positions
// every round (x, z) sends (a2a::count_totals, the run enumeration of the
// alltoall-delivery simulation, without data): that is O(P) per radix, so for
// P <= kMeasureAllMaxP every radix is measured; above, the radices shown in
// the table, the optimum (and its neighbours) and the sqrt(P) rows are
// measured and the others use the propositions (JSON: "measured": false),
// which every measurement so far agrees with. "K Prop." and "D Prop." are the
// paper's Propositions 1-4 as printed (Prop. 4's double sum over (x, z); for
// P above kMeasureAllMaxP its sum over z in closed form, the same number).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"

namespace collcheck {

inline constexpr uint64_t kAnalyzeMaxP = uint64_t{1} << 20;
inline constexpr uint64_t kMeasureAllMaxP = uint64_t{1} << 16;

struct RadixRow {
  uint64_t r = 0;
  int w = 0;
  uint64_t K = 0, D = 0;  // measured if `measured`, else the propositions' values
  bool measured = false;
  std::optional<uint64_t> K_prop, D_prop;  // nullopt: no proposition applies
  std::string K_source, D_source;          // "Prop. 1", ...
  double cost = 0;                         // alpha*K + beta*D*S, seconds
};

// One statement of Sec. III-B checked on this P.
struct PaperStatement {
  std::string statement;
  bool holds = true;
  std::string detail;
};

struct Analysis {
  uint64_t p = 0;
  double alpha = 2e-6, beta = 1e-10, block_bytes = 1024;
  std::vector<RadixRow> rows;     // r = 2..P, rows[r - 2]
  uint64_t optimum = 0;           // smallest r with the least cost
  double sqrt_p = 0;
  uint64_t sqrt_floor = 0, sqrt_ceil = 0;
  uint64_t sqrt_cost_rank = 0;    // 1-based rank of r = ceil(sqrt P) by cost (ties share the better rank)
  bool all_measured = true;
  std::vector<std::string> disagreements;  // measured != proposition
  std::vector<PaperStatement> statements;
  const RadixRow& row(uint64_t r) const { return rows[r - 2]; }
  // Every judged statement holds: each of Sec. III-B's statements, and every
  // measured K and D equals its proposition (no disagreement). `analyze`
  // exits 1 otherwise, as for a torus analysis (TorusAnalysis::holds).
  bool holds() const;
};

// What `analyze --algo tra --p P --format F` holds at its peak, estimated
// before anything is built (analyze's memory guard, --max-memory): a row per
// radix (the row and its proposition names), what rendering every radix in F
// holds (json: about 0.5 KiB per radix, measured at P = 2^20), and the
// process's own 32 MiB.
MemoryEstimate tra_analysis_memory(uint64_t p, const std::string& format);

// Throws InputError for p outside 2..kAnalyzeMaxP, negative or non-finite
// alpha, beta or block size, a cost that is not finite (overflow), or a
// model where every radix costs 0. The checks that need no row are
// check_tra_analysis's, which it calls first (analyze --dry-run calls it alone).
Analysis analyze_tra(uint64_t p, double alpha, double beta, double block_bytes);
void check_tra_analysis(uint64_t p, double alpha, double beta, double block_bytes);

// The radices a table shows: every r = 2..P for P <= all_up_to, else a
// sample (2..8, powers of two, 25 log-spaced) with sqrt(P), the optimum,
// P - 1 and P.
std::vector<uint64_t> table_radices(const Analysis& a, uint64_t all_up_to);

}  // namespace collcheck
