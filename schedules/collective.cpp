#include "schedules/collective.hpp"

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

}  // namespace collcheck
