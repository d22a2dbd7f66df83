#include "schedules/symmetry.hpp"

#include <algorithm>
#include <bit>

#include "schedules/input_error.hpp"
#include "schedules/torus_shape.hpp"

namespace collcheck {

const char* to_string(SymmetryGroup g) {
  switch (g) {
    case SymmetryGroup::undeclared: return "undeclared";
    case SymmetryGroup::translations: return "translations";
    case SymmetryGroup::swing_dihedral: return "swing-dihedral";
    case SymmetryGroup::torus_swing_dihedral: return "torus-swing-dihedral";
    case SymmetryGroup::torus_translations: return "torus-translations";
  }
  return "?";
}

bool on_torus(SymmetryGroup g) {
  return g == SymmetryGroup::torus_swing_dihedral || g == SymmetryGroup::torus_translations;
}

std::optional<std::string> GroupAction::invalid(SymmetryGroup g, BlockAction blocks, const CollectiveSpec& spec,
                                                Block h, const std::vector<uint32_t>& dims) {
  const uint64_t p = spec.p, nb = spec.nblocks;
  if (g == SymmetryGroup::undeclared) return "no symmetry group is declared";
  if (p < 1 || nb < 1) return "the group needs p >= 1 and at least one block";
  if (g == SymmetryGroup::swing_dihedral && p % 2 == 1 && p != 1)
    return "the swing-dihedral group acts only on an even number of ranks (p = " + std::to_string(p) +
           "): the parity of a rank is not defined modulo an odd p";
  if (on_torus(g) != !dims.empty()) return "a torus shape is given with, and only with, a torus group";
  if (on_torus(g))
    if (auto why = torus_shape_problem(dims, p, 64)) return why;
  if (g == SymmetryGroup::torus_swing_dihedral) {
    for (uint32_t d : dims)
      if (d % 2 == 1 && d != 1)
        return "the torus-swing-dihedral group acts only on sides that are even or 1 (side " + std::to_string(d) +
               "): the parity of a coordinate is not defined modulo an odd side";
  }
  if (blocks == BlockAction::as_ranks && nb % p != 0)
    return "blocks act as ranks only with a whole number of blocks per rank (nblocks = " + std::to_string(nb) +
           ", p = " + std::to_string(p) + ")";
  if (blocks == BlockAction::as_ranks && !on_torus(g) && nb != p)
    return "blocks act as ranks only with one block per rank (nblocks = " + std::to_string(nb) +
           ", p = " + std::to_string(p) + ")";
  if (blocks == BlockAction::shift && g != SymmetryGroup::translations)
    return "a block shift is defined for the translations only";
  if (blocks == BlockAction::pairs) {
    if (g != SymmetryGroup::translations && g != SymmetryGroup::torus_translations)
      return "blocks as (source, destination) pairs are defined for the translations (ring or torus) only";
    if (spec.kind != Collective::alltoall)
      return std::string("blocks as (source, destination) pairs index an all-to-all's blocks only (") +
             to_string(spec.kind) + ")";
    if (nb != p * p)
      return "blocks as (source, destination) pairs need p * p blocks (nblocks = " + std::to_string(nb) +
             ", p = " + std::to_string(p) + ")";
  }
  if (blocks == BlockAction::renumbered_ranks) {
    if (on_torus(g)) return "renumbered blocks are defined for the 1D groups only";
    if (nb != p)
      return "renumbered blocks act as ranks only with one block per rank (nblocks = " + std::to_string(nb) +
             ", p = " + std::to_string(p) + ")";
    if (spec.kind != Collective::allreduce)
      return std::string("renumbered blocks preserve an allreduce's specification only (") + to_string(spec.kind) + ")";
  }
  switch (spec.kind) {
    case Collective::allreduce: return std::nullopt;  // every rank starts with its own, ends with all
    case Collective::allgather:
    case Collective::reduce_scatter:
      // owner(b) = b / (nb/p) must move with the ranks.
      if (p == 1) return std::nullopt;
      if (blocks == BlockAction::as_ranks) return std::nullopt;
      if (blocks == BlockAction::shift && nb % p == 0 && h == nb / p) return std::nullopt;
      return std::string("the group does not preserve which rank owns a block (") + to_string(spec.kind) + ")";
    case Collective::alltoall:
      // Block (i, j) starts at i and must end at j; g_r maps it to
      // (i + r, j + r), which starts at g_r(i) and must end at g_r(j).
      if (blocks == BlockAction::pairs) return std::nullopt;
      [[fallthrough]];
    case Collective::broadcast:
    case Collective::reduce:
      if (p == 1) return std::nullopt;
      return std::string("no rank-transitive group preserves a ") + to_string(spec.kind) +
             "'s pre- and postcondition (a root, or blocks indexed by source and destination)";
  }
  return "unknown collective";
}

GroupAction::GroupAction(SymmetryGroup g, BlockAction blocks, const CollectiveSpec& spec, Block h,
                         std::vector<uint32_t> dims)
    : group_(g), blocks_(blocks), p_(spec.p), nblocks_(spec.nblocks), h_(h), dims_(std::move(dims)) {
  if (auto why = invalid(g, blocks, spec, h, dims_)) throw InputError(*why);
  stride_ = torus_strides(dims_);
}

GroupAction::GroupAction(SymmetryGroup g, const CollectiveSpec& spec, std::vector<Block> pos)
    : GroupAction(g, BlockAction::renumbered_ranks, spec) {
  if (!std::has_single_bit(p_)) throw InputError("a block renumbering numbers a binary tree's leaves: p a power of two");
  if (pos.size() != p_) throw InputError("a block renumbering needs one block per rank");
  at_.assign(p_, static_cast<Block>(p_));
  for (Rank x = 0; x < p_; ++x) {
    if (pos[x] >= p_ || at_[pos[x]] != p_) throw InputError("a block renumbering must be a permutation of 0..p-1");
    at_[pos[x]] = x;
  }
  pos_ = std::move(pos);
}

uint32_t GroupAction::coordinate(Rank r, size_t i, uint32_t x, bool& reflects) const {
  const uint32_t n = dims_[i];
  const uint32_t ri = static_cast<uint32_t>((r / stride_[i]) % n);
  reflects = group_ == SymmetryGroup::torus_swing_dihedral && ri % 2 == 1;
  return reflects ? (ri + n - x) % n : (x + ri) % n;
}

Rank GroupAction::rank_general(Rank r, Rank x) const {
  if (x >= p_) return x;  // outside Z_p: left for the checker to flag
  if (torus()) {
    uint64_t y = 0;
    bool refl = false;
    for (size_t i = 0; i < dims_.size(); ++i)
      y += uint64_t{coordinate(r, i, static_cast<uint32_t>((x / stride_[i]) % dims_[i]), refl)} * stride_[i];
    return static_cast<Rank>(y);
  }
  return rank(r, x);  // the 1D groups: symmetry.hpp
}

Rank GroupAction::inverse_rank_general(Rank r, Rank x) const {
  if (x >= p_) return x;
  if (torus()) {  // per coordinate: x_i - r_i, or the involution r_i - x_i
    uint64_t y = 0;
    const bool dihedral = group_ == SymmetryGroup::torus_swing_dihedral;
    for (size_t i = 0; i < dims_.size(); ++i) {
      const uint64_t n = dims_[i], ri = (r / stride_[i]) % n, xi = (x / stride_[i]) % n;
      y += (dihedral && ri % 2 == 1 ? (ri + n - xi) % n : (xi + n - ri) % n) * stride_[i];
    }
    return static_cast<Rank>(y);
  }
  return inverse_rank(r, x);  // the 1D groups: symmetry.hpp
}

Block GroupAction::block(Rank r, Block b) const {
  if (b >= nblocks_) return b;
  switch (blocks_) {
    case BlockAction::fixed: return b;
    case BlockAction::as_ranks: {
      const uint64_t x = b < p_ ? b : b % p_;
      return static_cast<Block>(b - x + rank(r, static_cast<Rank>(x)));
    }
    case BlockAction::shift: return static_cast<Block>((b + (uint64_t{r} * h_) % nblocks_) % nblocks_);
    case BlockAction::renumbered_ranks: return pos_[rank(r, at_[b])];
    case BlockAction::pairs: return torus() ? torus_pair_block(b, false, r) : pair_block(b, r % p_);
  }
  return b;
}

Block GroupAction::pair_block(Block b, uint64_t t) const {
  const uint64_t i = b / p_, j = b % p_;
  return static_cast<Block>(((i + t) % p_) * p_ + (j + t) % p_);
}

Block GroupAction::torus_pair_block(Block b, bool inverse, Rank r) const {
  const Rank i = static_cast<Rank>(b / p_), j = static_cast<Rank>(b % p_);
  return static_cast<Block>(uint64_t{inverse ? inverse_rank(r, i) : rank(r, i)} * p_ +
                            (inverse ? inverse_rank(r, j) : rank(r, j)));
}

Block GroupAction::inverse_block(Rank r, Block b) const {
  if (b >= nblocks_) return b;
  switch (blocks_) {
    case BlockAction::fixed: return b;
    case BlockAction::as_ranks: {
      const uint64_t x = b < p_ ? b : b % p_;
      return static_cast<Block>(b - x + inverse_rank(r, static_cast<Rank>(x)));
    }
    case BlockAction::shift:
      return static_cast<Block>((b + nblocks_ - (uint64_t{r} * h_) % nblocks_) % nblocks_);
    case BlockAction::renumbered_ranks: return pos_[inverse_rank(r, at_[b])];
    case BlockAction::pairs: return torus() ? torus_pair_block(b, true, r) : pair_block(b, (p_ - r % p_) % p_);
  }
  return b;
}

namespace {
// out = the union of the image ranges `img` (in any order; sorted here, so
// every insert appends or extends: canonical in one pass). Images under a
// translation of Z_p are sorted but for one wrap (a rotation of a sorted
// list), and under a reflection the same once reversed (the caller
// reverses): those are put in order in O(n), anything else sorted.
void assign_sorted(std::vector<BlockSet::Range>& img, BlockSet& out) {
  auto by_lo = [](const BlockSet::Range& a, const BlockSet::Range& b) { return a.lo < b.lo; };
  size_t descents = 0, at = 0;
  for (size_t i = 1; i < img.size() && descents < 2; ++i)
    if (img[i].lo < img[i - 1].lo) ++descents, at = i;
  if (descents == 1 && img.back().lo <= img.front().lo)
    std::rotate(img.begin(), img.begin() + static_cast<std::ptrdiff_t>(at), img.end());
  else if (descents > 0)
    std::sort(img.begin(), img.end(), by_lo);
  out.clear();
  for (const BlockSet::Range& rg : img) out.insert_range(rg.lo, rg.hi);
}
}  // namespace

void GroupAction::blocks(Rank r, const BlockSet& in, BlockSet& out) const {
  if (blocks_ == BlockAction::fixed || in.empty()) {
    out = in;
    return;
  }
  const uint64_t nb = nblocks_;
  thread_local std::vector<BlockSet::Range> img;
  img.clear();
  if (blocks_ == BlockAction::renumbered_ranks) {
    // Dyadic range by dyadic range (symmetry.hpp: the group maps the
    // renumbering's subtrees to subtrees of the same level), so a range
    // costs O(log p), not O(its size); blocks past nblocks are kept.
    for (const BlockSet::Range& rg : in.ranges()) {
      const uint64_t hi = std::min<uint64_t>(rg.hi, nb);
      if (rg.hi > nb) img.push_back({static_cast<Block>(std::max<uint64_t>(rg.lo, nb)), rg.hi});
      for (uint64_t lo = rg.lo; lo < hi;) {
        uint64_t len = lo == 0 ? std::bit_floor(hi) : (lo & (~lo + 1));  // the largest aligned block at lo
        while (lo + len > hi) len /= 2;
        const uint64_t base = block(r, static_cast<Block>(lo)) & ~(len - 1);
        img.push_back({static_cast<Block>(base), static_cast<Block>(base + len)});
        lo += len;
      }
    }
    assign_sorted(img, out);
    return;
  }
  if (blocks_ == BlockAction::pairs && torus()) {
    // Row by row: [lo, hi) within source row i is the destinations
    // [j0, j1) of source i; the image is row g_r(i), the destinations mapped
    // as a run of nodes (torus_run_images). Blocks past nblocks are kept.
    for (const BlockSet::Range& rg : in.ranges()) {
      const uint64_t hi = std::min<uint64_t>(rg.hi, nb);
      if (rg.hi > nb) img.push_back({static_cast<Block>(std::max<uint64_t>(rg.lo, nb)), rg.hi});
      for (uint64_t lo = rg.lo; lo < hi;) {
        const uint64_t i = lo / p_, row_end = std::min<uint64_t>((i + 1) * p_, hi);
        torus_run_images(r, lo - i * p_, row_end - i * p_, uint64_t{rank(r, static_cast<Rank>(i))} * p_, img);
        lo = row_end;
      }
    }
    assign_sorted(img, out);
    return;
  }
  if (blocks_ == BlockAction::pairs) {
    // Row by row: [lo, hi) within source row i is the destinations
    // [j0, j1) of source i; the image is row i + r, destinations shifted by
    // r (mod p), split where they wrap. Blocks past nblocks are kept.
    const uint64_t t = r % p_;
    for (const BlockSet::Range& rg : in.ranges()) {
      const uint64_t hi = std::min<uint64_t>(rg.hi, nb);
      if (rg.hi > nb) img.push_back({static_cast<Block>(std::max<uint64_t>(rg.lo, nb)), rg.hi});
      for (uint64_t lo = rg.lo; lo < hi;) {
        const uint64_t i = lo / p_, row_end = std::min<uint64_t>((i + 1) * p_, hi);
        const uint64_t j0 = lo % p_, len = row_end - lo, base = ((i + t) % p_) * p_, d0 = (j0 + t) % p_;
        if (d0 + len <= p_) {
          img.push_back({static_cast<Block>(base + d0), static_cast<Block>(base + d0 + len)});
        } else {
          img.push_back({static_cast<Block>(base + d0), static_cast<Block>(base + p_)});
          img.push_back({static_cast<Block>(base), static_cast<Block>(base + d0 + len - p_)});
        }
        lo = row_end;
      }
    }
    assign_sorted(img, out);
    return;
  }
  if (torus()) {
    torus_blocks(r, in, img);
    assign_sorted(img, out);
    return;
  }
  // [lo, lo + len) modulo nb, split where it wraps.
  auto put = [&](uint64_t lo, uint64_t len) {
    const uint64_t hi = lo + len;
    if (hi <= nb) {
      img.push_back({static_cast<Block>(lo), static_cast<Block>(hi)});
      return;
    }
    if (lo < nb) img.push_back({static_cast<Block>(lo), static_cast<Block>(nb)});
    img.push_back({0, static_cast<Block>(hi - nb)});
  };
  const bool reflect = blocks_ == BlockAction::as_ranks && reflects(r);
  const uint64_t shift = blocks_ == BlockAction::as_ranks ? r % nb : (uint64_t{r} * h_) % nb;
  for (const BlockSet::Range& rg : in.ranges()) {
    const uint64_t lo = rg.lo, hi = std::min<uint64_t>(rg.hi, nb);
    if (rg.hi > nb) img.push_back({static_cast<Block>(std::max<uint64_t>(lo, nb)), rg.hi});  // outside: kept
    if (lo >= hi) continue;
    if (reflect) put((r + nb - (hi - 1) % nb) % nb, hi - lo);  // {r - b : lo <= b < hi}
    else put((lo + shift) % nb, hi - lo);
  }
  if (reflect) std::reverse(img.begin(), img.end());  // decreasing images: a rotation of sorted once reversed
  assign_sorted(img, out);
}

void GroupAction::torus_blocks(Rank r, const BlockSet& in, std::vector<BlockSet::Range>& img) const {
  // Blocks as ranks in each part: a range is cut at the parts' ends and each
  // piece mapped as a run of nodes, offset by its part.
  const uint64_t nb = nblocks_;
  for (const BlockSet::Range& rg : in.ranges()) {
    const uint64_t hi = std::min<uint64_t>(rg.hi, nb);
    if (rg.hi > nb) img.push_back({static_cast<Block>(std::max<uint64_t>(rg.lo, nb)), rg.hi});  // outside: kept
    for (uint64_t lo = rg.lo; lo < hi;) {
      const uint64_t part = lo / p_ * p_, end = std::min(hi, part + p_);
      torus_run_images(r, lo - part, end - part, part, img);
      lo = end;
    }
  }
}

void GroupAction::torus_run_images(Rank r, uint64_t lo, uint64_t hi, uint64_t base,
                                   std::vector<BlockSet::Range>& img) const {
  // The nodes [lo, hi) are cut into runs along the last dimension (stride 1,
  // other coordinates fixed); g_r maps a run to a run of the same length
  // along the last dimension, translated or reflected there, split where it
  // wraps.
  const uint64_t last = dims_.back();
  while (lo < hi) {
    const uint64_t row_end = std::min(hi, (lo / last + 1) * last);  // the run [lo, row_end) within one row
    const uint64_t x0 = lo - lo % last;                              // the row's first node
    const uint64_t len = row_end - lo;
    const uint64_t y0 = rank(r, static_cast<Rank>(x0));  // the image row's first node (last coordinate 0 -> r_last)
    bool refl = false;
    const uint32_t a = coordinate(r, dims_.size() - 1, static_cast<uint32_t>(lo % last), refl);
    const uint64_t row = base + y0 - y0 % last;
    // the image's last coordinates: a, a+1, .. (translation) or a, a-1, .. (reflection), mod `last`
    const uint64_t first = refl ? (a + last - (len - 1) % last) % last : a;
    if (first + len <= last) {
      img.push_back({static_cast<Block>(row + first), static_cast<Block>(row + first + len)});
    } else {
      img.push_back({static_cast<Block>(row + first), static_cast<Block>(row + last)});
      img.push_back({static_cast<Block>(row), static_cast<Block>(row + first + len - last)});
    }
    lo = row_end;
  }
}

void GroupAction::step(Rank r, const RankStep& in, RankStep& out) const {
  out.clear();
  for (const Transfer& t : in.sends) blocks(r, t.blocks, out.add_send(rank(r, t.peer), t.combine).blocks);
  for (const Transfer& t : in.recvs) blocks(r, t.blocks, out.add_recv(rank(r, t.peer), t.combine).blocks);
}

std::string GroupAction::describe() const {
  std::string g = group_ == SymmetryGroup::translations ? "translations (x -> x + r)"
                  : group_ == SymmetryGroup::swing_dihedral ? "swing-dihedral (x -> x + r for even r, x -> r - x for odd r)"
                  : group_ == SymmetryGroup::torus_swing_dihedral
                      ? "torus-swing-dihedral on " + dims_label(dims_) +
                            " (per coordinate: x_i -> x_i + r_i for even r_i, x_i -> r_i - x_i for odd r_i)"
                  : group_ == SymmetryGroup::torus_translations
                      ? (hypercube() ? "torus-translations on the hypercube 2^" + std::to_string(dims_.size()) +
                                           " (x -> x XOR r)"
                                     : "torus-translations on " + dims_label(dims_) + " (per coordinate: x_i -> x_i + r_i)")
                      : "undeclared";
  switch (blocks_) {
    case BlockAction::fixed: return g + ", blocks fixed";
    case BlockAction::as_ranks:
      return g + (nblocks_ == p_ ? ", blocks as ranks" : ", blocks as ranks in each of " + std::to_string(nblocks_ / p_) + " parts");
    case BlockAction::shift: return g + (h_ == 0 ? ", blocks fixed" : ", blocks shifted by " + std::to_string(h_) + " per rank");
    case BlockAction::renumbered_ranks: return g + ", blocks as ranks through the block renumbering";
    case BlockAction::pairs: return g + ", blocks as (source, destination) pairs, both ends moved";
  }
  return g;
}

void EquivariantSchedule::rank_step(Rank r, int s, RankStep& out) const {
  if (r == 0) {
    representative_step(s, out);
    return;
  }
  thread_local RankStep rep;
  representative_step(s, rep);
  action().step(r, rep, out);
}

}  // namespace collcheck
