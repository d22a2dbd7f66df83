#pragma once
// Exact contribution sets that are boxes: products S_0 x .. x S_{D-1} of one
// coordinate set per dimension of a torus d_0 x .. x d_{D-1} (row-major
// ranks, schedules/torus_shape.hpp). Internal to the certified quotient
// (flow_rotation.cpp); not a public interface.
//
// Why boxes. The quotient under the torus-swing-dihedral group keeps rank
// 0's row of cells only, but a p-bit set per cell is 2^21 bits at p = 2^21
// (12.6 M cells of Swing's bandwidth-optimal torus schedule: 3 TiB). Swing on
// a torus combines, at a step on dimension d, two sets that differ in their
// d-th factor only (the peer differs from the rank in coordinate d), so
// every set it ever builds is a box, stored in sum_i ceil(d_i / 64) words
// (7 words at 128x128x128).
//
// Exactness. A cell is a box exactly; no set is ever approximated. A reduce
// whose union is not a box (the two operands differ in two factors and
// neither contains the other) is reported as not representable and the
// quotient declines the instance (the caller enumerates, or refuses for
// memory: never a verdict from an approximation). Everything else is the
// p-bit model's judgement, bit for bit (tests/unit/properties/flow/
// box_cells_test.cpp compares both): the same lowest rank counted twice
// (the minimum of a box intersection is the tuple of per-factor minima:
// row-major order is lexicographic), the same count-based copy loss, the
// same postcondition lists of missing ranks.
//
// Cell layout: factor i in words [off_i, off_i + ceil(d_i/64)), then one flag
// word (non-zero once some contribution was counted twice). The empty set
// is the all-zero cell (every factor empty).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "schedules/collective.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck::flow {

class BoxCells {
 public:
  explicit BoxCells(std::vector<uint32_t> dims);
  size_t words() const { return words_; }
  uint64_t p() const { return p_; }
  void init(uint64_t* c, std::optional<Rank> who) const;
  bool empty(const uint64_t* c) const { return factor_empty(c, 0); }
  bool contains(const uint64_t* c, Rank x) const;
  // Whether the box `a` contains the box `b` (factor by factor; the empty
  // box is in every box).
  bool includes(const uint64_t* a, const uint64_t* b) const;
  // |S| = prod |S_i|.
  uint64_t count(const uint64_t* c) const;
  // Reduce `in` into `c`: the lowest rank counted twice, if any; `held`: c
  // was not empty. `representable` false (c unchanged): the union is not a
  // box.
  std::optional<Rank> reduce(uint64_t* c, const uint64_t* in, bool& held, bool& representable) const;
  // Copy `in` over `c`; the loss, described as ExactCells::copy does.
  std::optional<std::string> copy(uint64_t* c, const uint64_t* in) const;
  // g_q of the box `src` (every factor mapped by its coordinate's
  // translation or reflection), flag kept.
  void map(const GroupAction& g, Rank q, const uint64_t* src, uint64_t* dst) const;
  // The postcondition of rank 0's cell b after the last step, as
  // judge_exact_cell judges a p-bit cell.
  void judge(Verdict& v, const CollectiveSpec& spec, int last_step, Block b, const uint64_t* c) const;
  // Up to `limit` ranks, in increasing order, inside (want_in) or outside the box.
  std::vector<Rank> first_ranks(const uint64_t* c, bool want_in, size_t limit) const;

 private:
  bool factor_empty(const uint64_t* c, size_t i) const;
  bool factor_has(const uint64_t* c, size_t i, uint32_t x) const {
    return (c[off_[i] + x / 64] >> (x % 64)) & 1;
  }

  std::vector<uint32_t> dims_;
  std::vector<uint64_t> stride_;
  std::vector<size_t> off_, nw_;
  size_t words_ = 1;
  uint64_t p_ = 1;
};

}  // namespace collcheck::flow
