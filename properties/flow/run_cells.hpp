#pragma once
// Exact contribution sets kept as runs of consecutive ranks. Internal to the
// certified quotient (flow_rotation.cpp); not a public interface.
//
// Why runs. The quotient keeps rank 0's row of cells only, but a p-bit set
// per cell is p^2 bits for the row: 2 GiB at p = 2^17, 128 GiB at 2^20, so
// Swing's default (bandwidth) variant was refused above about 2^17 although
// rank 0 alone is simulated. A set of ranks kept as its sorted, disjoint,
// non-adjacent runs [lo, hi) (BlockSet's canonical form, ranks in place of
// blocks) costs 8 bytes per run: a whole set is one run, one contributor is
// one run, and the sets a reduce-scatter builds have at most their size in
// runs, so Swing's row stays near p log p runs in the worst step instead of
// p^2 bits. The group maps a set run by run (a translation shifts a run, a
// reflection x -> c - x reverses it; a run that wraps past p - 1 splits).
//
// Exactness. A cell is its set exactly, plus the flag "some contribution was
// counted more than once", as the p-bit model's flag word; nothing is
// approximated. Every answer is the p-bit model's (ExactCells): the lowest
// rank counted twice by a reduce, the count-based copy loss, the
// postcondition's first missing and unexpected ranks
// (tests/unit/properties/flow/run_cells_test.cpp compares the two models
// on random sets and the quotient's verdicts with both on every declared
// Swing variant).
//
// Memory is data-dependent: runs_held() is the number of runs in the cells
// this model has filled, kept up to date by every operation, so the
// simulation can stop (decline) when the row outgrows the memory budget.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/block_set.hpp"
#include "schedules/collective.hpp"

namespace collcheck::flow {

struct RunSet {
  BlockSet ranks;        // the contributors, as runs of ranks
  bool doubled = false;  // some contribution was counted more than once
};

class RunCells {
 public:
  explicit RunCells(uint64_t p);
  uint64_t p() const { return p_; }
  // Cells start empty; init only adds the initial contributor.
  void init(RunSet* c, std::optional<Rank> who) const;
  bool empty(const RunSet* c) const { return c->ranks.empty(); }
  // Reduce `in` into `c`: the lowest rank counted twice, if any; `held`: c
  // was not empty. Always representable.
  std::optional<Rank> reduce(RunSet* c, const RunSet* in, bool& held, bool& representable) const;
  // Copy `in` over `c`; the loss, described as ExactCells::copy does.
  std::optional<std::string> copy(RunSet* c, const RunSet* in) const;
  // dst = the image of src under x -> (x + q) mod p, or under x -> (q - x)
  // mod p when `reflect`; the flag is kept.
  void map(Rank q, bool reflect, const RunSet* src, RunSet* dst) const;
  // The postcondition of rank 0's cell b after the last step, as
  // judge_exact_cell judges a p-bit cell.
  void judge(Verdict& v, const CollectiveSpec& spec, int last_step, Block b, const RunSet* c) const;
  // Runs held by the cells this model has written (state and received cells).
  uint64_t runs_held() const { return runs_; }
  // Forget a cell's runs (a received cell dropped after its step).
  void release(RunSet* c) const;

 private:
  void assign(RunSet* c, BlockSet&& s) const;  // replaces c's set, keeping runs_ current
  uint64_t p_;
  mutable uint64_t runs_ = 0;
  mutable std::vector<BlockSet::Range> scratch_;
};

}  // namespace collcheck::flow
