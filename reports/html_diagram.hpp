#pragma once
// The minimal counterexample as a small step-by-rank diagram (inline SVG) for
// the HTML deployment report: ranks are rows, steps are columns, each
// transfer an arrow from the sender's row to the receiver's row inside its
// step's column, labelled with its blocks; the offending transfer (the one
// between the counterexample's rank and peer at its step) is drawn in red
// with class "offending". Without a peer the offending (rank, step) cell is
// ringed instead.
//
// The transfers come from regenerating the registry instance the
// counterexample belongs to (algorithm, variant, parameters and p are in the
// report), for p <= 64 and the last few steps up to the counterexample's;
// for files (check-file) and larger p only the counterexample's own transfer
// is drawn.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "properties/verdict.hpp"

namespace collcheck::reports_detail {

struct DiagramTransfer {
  int step = 0;
  Rank from = 0, to = 0;
  std::string label;  // blocks, e.g. "{0-3}"
  bool offending = false;
};

// Transfers of the registry instance at steps [first_step, last_step]
// (sender side), or empty when the instance cannot be regenerated here
// (unknown algorithm, a file, p > 64, malformed parameters).
std::vector<DiagramTransfer> registry_excerpt(const std::string& algorithm, const std::string& variant,
                                              const std::string& params, uint64_t p, int first_step, int last_step);

// The diagram for `cx`; `excerpt` may be empty; `id` keeps the SVG ids of
// several diagrams on one page distinct.
void svg_counterexample(std::ostream& o, const Counterexample& cx, std::vector<DiagramTransfer> excerpt, int id);

// The step window drawn for a counterexample: [first, last].
std::pair<int, int> diagram_steps(const Counterexample& cx);

}  // namespace collcheck::reports_detail
