#pragma once
// Certified symmetry: a group acting on ranks and blocks under
// which a schedule is equivariant, and the one way a generator earns the
// right to be checked by its quotient: EquivariantSchedule.
//
// The groups. Each acts REGULARLY on the ranks Z_p: for every rank r there is
// exactly one element g_r with g_r(0) = r, so an element is named by the rank
// it sends rank 0 to, and rank 0 is a representative of the single rank orbit.
//   translations   g_r(x) = x + r (mod p): the cyclic group (the Cayley-graph
//                  view of circulants). Certified for the ring, Träff's
//                  Algorithm 7 family, Trivance's bandwidth readings and
//                  Bruck's bandwidth allreduce on the ring (offset routing),
//                  and the tunable-radix all-to-all with blocks as pairs
//                  (schedules/translation_equivariant.hpp); other circulant
//                  schedules are checked rank by rank for it instead
//                  (flow_rotation.hpp's verified rotation).
//   swing_dihedral g_r(x) = x + r for r even, r - x for r odd (mod p), p even
//                  (or p = 1): the translations by even amounts and the
//                  reflections x -> c - x with c odd, a dihedral group of order
//                  p. Swing's peer function is equivariant under it (Swing,
//                  NSDI'24, Sec. 3.1, Eq. 2): pi(r + 2, s) = pi(r, s) + 2 and
//                  pi(1 - r, s) = 1 - pi(r, s) (rho(s) is odd, so r and pi(r, s)
//                  have opposite parity); the smt query
//                  smt-swing-peer-equivariance-all-even-p proves both for
//                  every even p, rank and step at once.
//   torus_swing_dihedral  on a torus d_0 x .. x d_{D-1} (row-major ranks,
//                  schedules/torus_shape.hpp), every side even or 1: the
//                  product of one swing-dihedral group per dimension,
//                  g_r(x)_i = x_i + r_i for r_i even, r_i - x_i for r_i odd
//                  (mod d_i), r_i the coordinates of r. Regular on the nodes
//                  (g_r(0) = r), of order p. Swing on a torus applies the 1D
//                  peer rule to one coordinate per step with an odd offset of
//                  either sign, so it is equivariant under it
//                  (schedules/swing/swing_torus_equivariant.hpp).
//   torus_translations  on a torus d_0 x .. x d_{D-1}, any sides: the product
//                  of the cyclic groups, g_r(x)_i = x_i + r_i (mod d_i).
//                  Regular on the nodes, of order p. The bucket allreduce
//                  (a ring per line) and Trivance on tori of sides 3^k (its
//                  ring rule per line, peers x_i -+ 3^k) are equivariant
//                  under it (schedules/translation_equivariant.hpp).
// Blocks move with the group in one of these ways (BlockAction):
//   fixed     every element fixes every block (whole-vector exchanges);
//   as_ranks  blocks are ranks, k parts of p (nblocks = k p; block
//             b = part * p + rank): g acts on b's rank, keeping its part (the
//             1D groups: k = 1; Swing on a torus: one part per collective);
//   shift     translations only: b -> b + r*h (mod nblocks);
//   pairs     translations (ring or torus) and all-to-all only: block
//             b = src * p + dst is the pair (src, dst), and g_r moves both
//             ends, (src, dst) -> (g_r(src), g_r(dst)): (src + r, dst + r)
//             (mod p) on the ring, per coordinate on the torus. The orbits
//             are the diagonals dst - src = const (on the torus, per
//             coordinate); the all-to-all's pre- and postcondition (block
//             (i, j) starts at i, ends at j) are invariant, so the quotient
//             argument holds (the tunable-radix all-to-all on the ring,
//             schedules/tra/tra.hpp; its two-layer form on the N x Q torus
//             of nodes and local indices, schedules/tra/tra2.hpp).
// GroupAction::invalid says when a group does not act on (p, spec): the
// parity of a rank is not defined mod an odd p; the collective's
// precondition and postcondition must be invariant (allreduce under any block
// action; allgather / reduce-scatter only if owner(g b) = g owner(b); rooted
// collectives never; all-to-all only with blocks as pairs).
//
// Certificate by construction. An EquivariantSchedule supplies rank 0's
// transfers (representative_step) and a GroupAction; its rank_step is FINAL
// and returns g_r applied to rank 0's step (every peer and block mapped, list
// order and combine modes kept). Every rank's program is therefore the image
// of the representative's through this one code path: equivariance holds by
// construction, for every p, without enumerating a rank. What remains to be
// shown is that the construction is the algorithm: that g_r of rank 0's
// transfers are the transfers the paper's rule gives rank r. That is tested
// exhaustively for small p against the direct per-rank generator
// (tests/unit/schedules/symmetry_test.cpp, swing_equivariant_test.cpp) and,
// for every p, follows from the peer function's equivariance (Z3) by
// induction over the rule's recursion (schedules/swing/swing_equivariant.hpp).
// A schedule read from a file, a mutant or a generator that is not an
// EquivariantSchedule is never checked by a quotient.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

enum class SymmetryGroup { undeclared, translations, swing_dihedral, torus_swing_dihedral, torus_translations };
// "undeclared", "translations", "swing-dihedral", "torus-swing-dihedral", "torus-translations"
const char* to_string(SymmetryGroup g);
// Whether `g` acts on a torus shape (torus_swing_dihedral, torus_translations).
bool on_torus(SymmetryGroup g);

// fixed: blocks stay; as_ranks: block x (of each part) moves as rank x;
// shift: block b -> b + r*h; renumbered_ranks: blocks act as ranks through a
// renumbering, block pos[x] moves as rank x (pos a permutation of 0..p-1,
// one block per rank; allreduce only, whose specification every block
// permutation preserves): g_r(b) = pos[g_r(pos^-1[b])]. The renumbering
// must number the leaves of a complete binary tree (p a power of two) whose
// subtrees the group maps to subtrees of the same level; a block set then
// maps dyadic range by dyadic range (the aligned range of the same size
// that holds the image of its first block). Swing's contiguous numbering is
// such (swing_equivariant.hpp: the reach sets S(q, t) are its subtrees and
// g_r(S(q, t)) = S(g_r(q), t)); checked against the direct generator at
// every rank, not assumed.
enum class BlockAction { fixed, as_ranks, shift, renumbered_ranks, pairs };

class GroupAction {
 public:
  // Why `g` with `blocks` (and shift h) does not act on p ranks and `spec`'s
  // collective (nullopt: it does).
  // `dims`: the torus shape (the torus groups only; empty for the others).
  static std::optional<std::string> invalid(SymmetryGroup g, BlockAction blocks, const CollectiveSpec& spec,
                                            Block h = 0, const std::vector<uint32_t>& dims = {});
  // Throws InputError (schedules/input_error.hpp) if invalid.
  GroupAction(SymmetryGroup g, BlockAction blocks, const CollectiveSpec& spec, Block h = 0,
              std::vector<uint32_t> dims = {});
  // Blocks as ranks through the renumbering `pos` (rank x's block is block
  // pos[x]; BlockAction::renumbered_ranks). Throws InputError if `pos` is
  // not a permutation of 0..p-1 or the group does not act.
  GroupAction(SymmetryGroup g, const CollectiveSpec& spec, std::vector<Block> pos);

  SymmetryGroup group() const { return group_; }
  BlockAction block_action() const { return blocks_; }
  uint64_t p() const { return p_; }
  uint64_t nblocks() const { return nblocks_; }
  // g_r(x) and g_r^{-1}(x), for ranks and blocks. The 1D groups' ranks
  // inline, without a division (the root-cause trace and the quotients ask
  // p times per step); the torus groups' out of line.
  Rank rank(Rank r, Rank x) const {
    if (x >= p_ || !dims_.empty()) return rank_general(r, x);
    const uint64_t rr = r < p_ ? r : r % p_;
    if (reflects(r)) return static_cast<Rank>(rr >= x ? rr - x : rr + p_ - x);
    const uint64_t y = uint64_t{x} + rr;
    return static_cast<Rank>(y >= p_ ? y - p_ : y);
  }
  Rank inverse_rank(Rank r, Rank x) const {
    if (x >= p_ || !dims_.empty()) return inverse_rank_general(r, x);
    const uint64_t rr = r < p_ ? r : r % p_;
    if (reflects(r)) return static_cast<Rank>(rr >= x ? rr - x : rr + p_ - x);  // a reflection is an involution
    return static_cast<Rank>(x >= rr ? x - rr : uint64_t{x} + p_ - rr);
  }
  Block block(Rank r, Block b) const;
  Block inverse_block(Rank r, Block b) const;
  // Whether g_r reverses the cyclic order of Z_p (the reflections; 1D groups).
  bool reflects(Rank r) const { return group_ == SymmetryGroup::swing_dihedral && r % 2 == 1; }
  // The torus shape (the torus groups), empty for the 1D groups.
  const std::vector<uint32_t>& dims() const { return dims_; }
  bool torus() const { return !dims_.empty(); }
  // A torus of sides 2 only: its translations are x -> x XOR r.
  bool hypercube() const {
    return torus() && std::all_of(dims_.begin(), dims_.end(), [](uint32_t d) { return d == 2; });
  }
  // g_r on one coordinate x_i of dimension i (the torus groups): the
  // translation by r_i, or (torus_swing_dihedral) for odd r_i the reflection
  // x_i -> r_i - x_i; `reflects` tells which.
  uint32_t coordinate(Rank r, size_t i, uint32_t x, bool& reflects) const;
  // g_r of a block set (canonical); `out` may not alias `in`.
  void blocks(Rank r, const BlockSet& in, BlockSet& out) const;
  // g_r of a rank's step: every peer and block mapped, order and combine kept.
  void step(Rank r, const RankStep& in, RankStep& out) const;
  // Every element preserves the ring distance of Z_p (translations and
  // reflections are the isometries of the cycle), so a property judged by
  // ring distance (Swing's hop distance) is the same at every rank. Not the
  // torus groups': they preserve the torus's per-dimension distances, not
  // the distance |x - y| of the row-major ranks.
  bool ring_isometries() const { return !torus(); }
  // e.g. "swing-dihedral (x -> x + r, r even; x -> r - x, r odd; blocks as ranks)".
  std::string describe() const;

 private:
  SymmetryGroup group_;
  BlockAction blocks_;
  uint64_t p_;
  Rank rank_general(Rank r, Rank x) const;  // every group, x outside Z_p included
  Rank inverse_rank_general(Rank r, Rank x) const;
  void torus_blocks(Rank r, const BlockSet& in, std::vector<BlockSet::Range>& img) const;
  // The images of the nodes [lo, hi) (within 0..p-1) under g_r, as ranges
  // offset by `base`.
  void torus_run_images(Rank r, uint64_t lo, uint64_t hi, uint64_t base, std::vector<BlockSet::Range>& img) const;
  Block pair_block(Block b, uint64_t t) const;  // (i, j) -> (i + t, j + t) mod p
  // (i, j) -> (g_r(i), g_r(j)) on the torus, or the inverse.
  Block torus_pair_block(Block b, bool inverse, Rank r) const;

  uint64_t nblocks_;
  Block h_;
  std::vector<uint32_t> dims_;
  std::vector<uint64_t> stride_;  // torus_strides(dims_)
  std::vector<Block> pos_, at_;   // renumbered_ranks: rank -> block, block -> rank
};

// A schedule equivariant by construction (see the header comment).
class EquivariantSchedule : public Schedule {
 public:
  // g_r(representative_step(s)): the one code path of every rank.
  void rank_step(Rank r, int s, RankStep& out) const final;
  // Rank 0's transfers at step s.
  virtual void representative_step(int s, RankStep& out) const = 0;
  virtual const GroupAction& action() const = 0;
  // How the symmetry and its faithfulness to the algorithm are established,
  // one sentence (reports print it as the instance's certificate).
  virtual std::string certificate() const = 0;
  // Whether route_tie(g_r(x) .., send) is route_tie of rank 0's send mapped
  // by g_r: the same sign where g_r translates the coordinates a send
  // changes, the opposite where it reflects them. Then a link's load is its
  // orbit's (topology/link_load.hpp measures rank 0's routes only).
  virtual bool route_ties_equivariant() const { return false; }
  ScheduleShape shape() const override { return {ScheduleShape::Kind::equivariant, this, nullptr, false}; }
};

}  // namespace collcheck
