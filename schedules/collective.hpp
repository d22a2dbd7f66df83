#pragma once
// A collective as a pre- and postcondition over contributions (msccl-style).
//
// The value of block b at rank r is modelled as the set of ranks whose input
// it contains ("contributions"). A reduce transfer adds the sender's
// contributions to the receiver's; a copy replaces them. For the reduction
// collectives (allreduce, reduce, reduce-scatter) every rank starts with its
// own contribution in every block; for the data-movement collectives
// (allgather, broadcast, all-to-all) a block starts at its origin only and its
// "contribution" is that origin.
#include <cstdint>
#include <optional>
#include <string>

#include "schedules/block_set.hpp"

namespace collcheck {

enum class Collective { allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall };
const char* to_string(Collective c);
std::optional<Collective> collective_from_string(const std::string& s);

// What must hold at (rank, block) when the schedule ends.
struct Requirement {
  enum class Kind { none, all_ranks, single_origin } kind = Kind::none;
  Rank origin = 0;  // for single_origin
};

struct CollectiveSpec {
  Collective kind = Collective::allreduce;
  uint64_t p = 1;
  uint64_t nblocks = 1;  // 64 bits: an all-to-all has p^2 blocks
  Rank root = 0;

  // The rank whose input (r, b) holds at the start, if any.
  std::optional<Rank> initial_contributor(Rank r, Block b) const;
  Requirement required(Rank r, Block b) const;
  // Owner of block b for reduce-scatter / allgather (blocks split evenly).
  Rank owner(Block b) const { return static_cast<Rank>(b / (nblocks / p)); }
};

// Inline: the checker calls these once per (rank, block), p^2 times per instance.
inline std::optional<Rank> CollectiveSpec::initial_contributor(Rank r, Block b) const {
  switch (kind) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::reduce: return r;
    case Collective::allgather: return owner(b) == r ? std::optional<Rank>(r) : std::nullopt;
    case Collective::broadcast: return r == root ? std::optional<Rank>(r) : std::nullopt;
    case Collective::alltoall:  // block b = src * p + dst starts at src
      return b / p == r ? std::optional<Rank>(r) : std::nullopt;
  }
  return std::nullopt;
}

inline Requirement CollectiveSpec::required(Rank r, Block b) const {
  using K = Requirement::Kind;
  switch (kind) {
    case Collective::allreduce: return {K::all_ranks, 0};
    case Collective::reduce_scatter: return owner(b) == r ? Requirement{K::all_ranks, 0} : Requirement{};
    case Collective::reduce: return r == root ? Requirement{K::all_ranks, 0} : Requirement{};
    case Collective::allgather: return {K::single_origin, owner(b)};
    case Collective::broadcast: return {K::single_origin, root};
    case Collective::alltoall:  // rank r must end holding every block (i, r), i.e. b = i*p + r
      return b % p == r ? Requirement{K::single_origin, static_cast<Rank>(b / p)} : Requirement{};
  }
  return {};
}

}  // namespace collcheck
