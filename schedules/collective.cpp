#include "schedules/collective.hpp"

#include <cassert>

namespace collcheck {

const char* to_string(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce_scatter: return "reduce-scatter";
    case Collective::allgather: return "allgather";
    case Collective::broadcast: return "broadcast";
    case Collective::reduce: return "reduce";
    case Collective::alltoall: return "alltoall";
  }
  return "?";
}

std::optional<Collective> collective_from_string(const std::string& s) {
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather,
                       Collective::broadcast, Collective::reduce, Collective::alltoall})
    if (s == to_string(c)) return c;
  return std::nullopt;
}

Rank CollectiveSpec::owner(Block b) const {
  // nblocks is a multiple of p for the collectives that have owners.
  uint64_t per = nblocks / p;
  assert(per > 0 && "owner(): fewer blocks than ranks");
  return static_cast<Rank>(b / per);
}

std::optional<Rank> CollectiveSpec::initial_contributor(Rank r, Block b) const {
  switch (kind) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::reduce: return r;
    case Collective::allgather:
      if (owner(b) == r) return r;
      return std::nullopt;
    case Collective::broadcast:
      if (r == root) return r;
      return std::nullopt;
    case Collective::alltoall:
      // block b = src * p + dst starts at src.
      if (b / p == r) return r;
      return std::nullopt;
  }
  return std::nullopt;
}

Requirement CollectiveSpec::required(Rank r, Block b) const {
  using K = Requirement::Kind;
  switch (kind) {
    case Collective::allreduce: return {K::all_ranks, 0};
    case Collective::reduce_scatter:
      return owner(b) == r ? Requirement{K::all_ranks, 0} : Requirement{};
    case Collective::reduce: return r == root ? Requirement{K::all_ranks, 0} : Requirement{};
    case Collective::allgather: return {K::single_origin, owner(b)};
    case Collective::broadcast: return {K::single_origin, root};
    case Collective::alltoall:
      // rank r must end holding every block (i, r), i.e. b = i*p + r.
      return (b % p == r) ? Requirement{K::single_origin, static_cast<Rank>(b / p)}
                          : Requirement{};
  }
  return {};
}

}  // namespace collcheck
