#pragma once
// The bucket allreduce on a D-dimensional torus: 2D concurrent bucket
// collectives, the Swing paper's bandwidth-optimal baseline.
//
// Algorithm  : Swing NSDI'24 Sec. 2.3.4 (after Jain and Sabharwal, ICS'10, and
//              Sack and Gropp), Sec. 5.2 and Fig. 9. On an a x a torus "each
//              node runs a ring reduce-scatter with the other a - 1 nodes on
//              the same row", then on the column "only on the data already
//              reduced", then the allgathers in reverse. "To use all the 2D
//              ports, the algorithm splits the data into 2D parts and
//              concurrently runs 2D bucket algorithms ... Each of the 2D bucket
//              algorithms starts from a different dimension and direction."
// Collectives: c = 0..D-1 run in the + direction, D..2D-1 in the - direction,
//              collective c's phase i on dimension (c + i) mod D (c mod D for
//              the mirrored ones): the plain and the mirrored collective of a
//              dimension share it in opposite directions.
// Phases     : synchronized (default; Sec. 5.2: "it is better if all the
//              collectives synchronously move from one dimension to the next
//              one"): every phase lasts d_max - 1 steps, a collective on a
//              shorter side idles the rest. unsynchronized (Fig. 9 as drawn):
//              each collective moves on as soon as its side is done, so on a
//              non-square torus two collectives can share a dimension.
// Ring step  : along its direction a node at position x (x_e, or -x_e for the
//              - direction) sends at phase step k the chunk of position
//              x - k - 1 to x + 1 and reduces the chunk x - k - 2 from x - 1
//              (Patarasuk and Yuan); after d - 1 steps it holds chunk x.
// Blocks     : 2D p: block c p + rank(b) is collective c's part owned by node
//              b at the end. A chunk at phase i is every b with b's coordinate
//              on each earlier phase's dimension equal to the node's, on the
//              phase's dimension equal to the chunk's, any on the later ones.
//              Allgather: the reduce-scatter's steps reversed, each transfer
//              reversed as a copy.
// Steps      : synchronized 2 D (d_max - 1); unsynchronized 2 sum_e (d_e - 1).
// Volume     : 2D collectives x 2(p-1) blocks of m/(2Dp).
// Sides      : any >= 1 (a side of 1 has no steps; a side of 2 reaches its one
//              neighbour on the + and the - link, route_tie names which).
// Example    : 4x4 (rank = 4 row + col; dimension 0 is the row index), step
//              0, node 0: collective 0 (dimension 0, +) sends node 4 the chunk
//              of position -1 = row 3: blocks {12, 13, 14, 15}.
#include <memory>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

class BucketTorus final : public Schedule {
 public:
  BucketTorus(std::vector<uint32_t> dims, bool synchronized);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2 * T_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return collectives(); }
  int64_t route_tie(Rank r, int s, size_t send) const override;

  int collectives() const { return 2 * static_cast<int>(dims_.size()); }
  int direction(int c) const { return c < static_cast<int>(dims_.size()) ? 1 : -1; }
  const std::vector<uint32_t>& dims() const { return dims_; }

 private:
  struct Slot {  // collective c at reduce-scatter step t
    int phase = -1, dim = -1, k = -1;  // idle: dim < 0
  };
  // Collective c's chunk `pos` (a position along its direction) at `slot` as
  // seen from node r: the blocks, inserted into `out`.
  void chunk_blocks(Rank r, int c, const Slot& sl, int64_t pos, BlockSet& out) const;

  std::vector<uint32_t> dims_;
  CollectiveSpec spec_;
  std::vector<uint64_t> stride_;
  int T_ = 0;                                // reduce-scatter steps
  std::vector<std::vector<Slot>> slots_;     // [c][t]
};

// The same schedule, certified equivariant under the torus translations
// with blocks as ranks in each of the 2D parts
// (schedules/translation_equivariant.hpp), checked by its quotient. Why the
// image is the algorithm's rank r: the rule reads a node only through its
// coordinate x_e on the phase's dimension, as the position x_e (or -x_e for
// the - direction) whose neighbours are position +- 1, and the chunk of
// position x - k - 1 is every block b with b_e at that position and b's
// earlier-phase coordinates equal to the node's: translating every
// coordinate by r_e translates the peers, the chunk's position and its
// fixed coordinates alike (the - direction's position -x_e - r_e as well).
std::unique_ptr<Schedule> make_bucket_torus_certified(const std::vector<uint32_t>& dims, bool synchronized);

}  // namespace collcheck
