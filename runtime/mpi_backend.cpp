#include "runtime/mpi_backend.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace collcheck::runtime {

std::optional<std::string> find_unmatched(const Schedule& sched) {
  const uint64_t p = sched.p();
  const uint64_t nb = sched.num_blocks();
  auto where = [](int s) { return "step " + std::to_string(s) + ": "; };
  RankStep rs;
  for (int s = 0; s < sched.num_steps(); ++s) {
    // (src, dst) -> transfers in listing order
    std::map<std::pair<Rank, Rank>, std::vector<Transfer>> sends, recvs;
    for (Rank r = 0; r < p; ++r) {
      sched.rank_step(r, s, rs);
      for (const auto* list : {&rs.sends, &rs.recvs}) {
        const bool is_send = list == &rs.sends;
        for (const Transfer& t : *list) {
          if (t.peer >= p)
            return where(s) + "rank " + std::to_string(r) + (is_send ? " sends to" : " receives from") +
                   " rank " + std::to_string(t.peer) + ", out of range (p = " + std::to_string(p) + ")";
          if (!t.blocks.empty() && t.blocks.ranges().back().hi > nb)
            return where(s) + "rank " + std::to_string(r) + " names blocks " + t.blocks.to_string() +
                   ", out of range (nblocks = " + std::to_string(nb) + ")";
          if (is_send)
            sends[{r, t.peer}].push_back(t);
          else
            recvs[{t.peer, r}].push_back(t);
        }
      }
    }
    auto describe = [&](Rank src, Rank dst, const Transfer& t) {
      return "rank " + std::to_string(src) + " -> rank " + std::to_string(dst) + " blocks " +
             t.blocks.to_string() + " (" + to_string(t.combine) + ")";
    };
    for (const auto& [pair, ts] : sends) {
      auto it = recvs.find(pair);
      const size_t have = it == recvs.end() ? 0 : it->second.size();
      for (size_t k = 0; k < ts.size(); ++k) {
        if (k >= have)
          return where(s) + describe(pair.first, pair.second, ts[k]) + " is sent but never received";
        if (!(ts[k].blocks == it->second[k].blocks) || ts[k].combine != it->second[k].combine)
          return where(s) + describe(pair.first, pair.second, ts[k]) + " is received as " +
                 it->second[k].blocks.to_string() + " (" + to_string(it->second[k].combine) + ")";
      }
    }
    for (const auto& [pair, ts] : recvs) {
      auto it = sends.find(pair);
      const size_t have = it == sends.end() ? 0 : it->second.size();
      if (ts.size() > have)
        return where(s) + describe(pair.first, pair.second, ts[have]) +
               " is received but never sent (MPI would hang)";
    }
  }
  return std::nullopt;
}

namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<int64_t>() { return MPI_INT64_T; }
template <>
MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }


template <class T>
std::string show(T x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

// Calls f(lo, hi) for each contiguous element range a block set covers.
template <class F>
void for_each_element_range(const BlockSet& bs, uint64_t count, uint64_t nb, F&& f) {
  for (const auto& r : bs.ranges()) {
    uint64_t lo = block_elements(count, nb, r.lo).first;
    uint64_t hi = block_elements(count, nb, r.hi - 1).second;
    f(lo, hi);
  }
}

uint64_t elements_of(const BlockSet& bs, uint64_t count, uint64_t nb) {
  uint64_t n = 0;
  for_each_element_range(bs, count, nb, [&](uint64_t lo, uint64_t hi) { n += hi - lo; });
  return n;
}

// Poison for undefined blocks: far below any sum of inputs (int64), or NaN,
// which compares unequal to everything and survives every addition.
template <class T>
T poison() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return -(T{1} << 50);
}

// Whether x was computed from poison: every input is >= 1, so a correct
// value is never negative or NaN.
template <class T>
bool tainted(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(x) || x < 0;
  else
    return x < 0;
}

struct MismatchWire {
  Block block;
  uint64_t index;
  char expected[64];
  char actual[96];
};

// The elements [lo, hi) of the blocks rank q owns (allgather, reduce-scatter):
// blocks [q*k, (q+1)*k) with k = nblocks / p, contiguous.
std::pair<uint64_t, uint64_t> owner_elements(uint64_t count, const CollectiveSpec& spec, Rank q) {
  const uint64_t k = spec.nblocks / spec.p;
  return {block_elements(count, spec.nblocks, static_cast<Block>(q * k)).first,
          block_elements(count, spec.nblocks, static_cast<Block>((q + 1) * k - 1)).second};
}

// Runs the reference collective on `input` into `ref` (pre-filled with
// poison); afterwards ref holds, at every (me, b) with required(me, b) not
// none, what the MPI library says must be there.
template <class T>
void reference(const CollectiveSpec& spec, uint64_t count, const std::vector<T>& input, std::vector<T>& ref,
               MPI_Comm comm, Rank me) {
  const MPI_Datatype type = mpi_type<T>();
  const int n = static_cast<int>(count), p = static_cast<int>(spec.p);
  const auto elems = [&](Block b) { return block_elements(count, spec.nblocks, b); };
  std::vector<int> counts(p), displs(p);
  switch (spec.kind) {
    case Collective::allreduce:
      MPI_Allreduce(input.data(), ref.data(), n, type, MPI_SUM, comm);
      return;
    case Collective::reduce:
      MPI_Reduce(input.data(), ref.data(), n, type, MPI_SUM, static_cast<int>(spec.root), comm);
      return;
    case Collective::broadcast:
      if (me == spec.root) ref = input;
      MPI_Bcast(ref.data(), n, type, static_cast<int>(spec.root), comm);
      return;
    case Collective::allgather:
    case Collective::reduce_scatter:
      for (int q = 0; q < p; ++q) {
        auto [lo, hi] = owner_elements(count, spec, static_cast<Rank>(q));
        displs[q] = static_cast<int>(lo);
        counts[q] = static_cast<int>(hi - lo);
      }
      if (spec.kind == Collective::allgather)
        MPI_Allgatherv(input.data() + displs[me], counts[me], type, ref.data(), counts.data(), displs.data(), type,
                       comm);
      else
        MPI_Reduce_scatter(input.data(), ref.data() + displs[me], counts.data(), type, MPI_SUM, comm);
      return;
    case Collective::alltoall: {
      // Block src*p + dst goes from src to dst; every block stays at its
      // global position in the vector.
      std::vector<int> rcounts(p), rdispls(p);
      for (int q = 0; q < p; ++q) {
        auto [slo, shi] = elems(static_cast<Block>(me * spec.p + q));
        counts[q] = static_cast<int>(shi - slo);
        displs[q] = static_cast<int>(slo);
        auto [rlo, rhi] = elems(static_cast<Block>(q * spec.p + me));
        rcounts[q] = static_cast<int>(rhi - rlo);
        rdispls[q] = static_cast<int>(rlo);
      }
      MPI_Alltoallv(input.data(), counts.data(), displs.data(), type, ref.data(), rcounts.data(), rdispls.data(),
                    type, comm);
      return;
    }
  }
}

template <class T>
MpiResult run_typed(const Schedule& sched, const MpiOptions& o, MPI_Comm comm) {
  int me = 0, size = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  const CollectiveSpec& spec = sched.spec();
  const uint64_t count = o.count;
  const uint64_t nb = sched.num_blocks();
  const Rank r = static_cast<Rank>(me);
  MpiResult res;
  res.steps = sched.num_steps();

  std::vector<T> input(count, poison<T>()), buf, ref(count, poison<T>());
  for (Block b = 0; b < nb; ++b) {
    const std::optional<Rank> c = spec.initial_contributor(r, b);
    if (!c) continue;
    auto [lo, hi] = block_elements(count, nb, b);
    for (uint64_t i = lo; i < hi; ++i) input[i] = static_cast<T>(input_integer(o.seed, *c, i));
  }
  buf = input;

  // This rank's first read of undefined data: (step, block, peer, reduce).
  std::optional<MpiUndefinedRead> undefined;
  auto block_tainted = [&](Block b) {
    auto [lo, hi] = block_elements(count, nb, b);
    for (uint64_t i = lo; i < hi; ++i)
      if (tainted(buf[i])) return true;
    return false;
  };

  uint64_t messages = 0, bytes = 0;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  RankStep rs;
  std::vector<std::vector<T>> sbuf, rbuf;
  std::vector<MPI_Request> reqs;
  for (int s = 0; s < sched.num_steps(); ++s) {
    sched.rank_step(r, s, rs);
    sbuf.assign(rs.sends.size(), {});
    rbuf.assign(rs.recvs.size(), {});
    reqs.clear();
    for (size_t k = 0; k < rs.recvs.size(); ++k) {
      const Transfer& t = rs.recvs[k];
      rbuf[k].resize(elements_of(t.blocks, count, nb));
      reqs.emplace_back();
      MPI_Irecv(rbuf[k].data(), static_cast<int>(rbuf[k].size()), mpi_type<T>(), static_cast<int>(t.peer), s,
                comm, &reqs.back());
    }
    for (size_t k = 0; k < rs.sends.size(); ++k) {  // snapshot before this step's receives
      const Transfer& t = rs.sends[k];
      if (!undefined)
        t.blocks.for_each([&](Block b) {
          if (!undefined && block_tainted(b)) undefined = MpiUndefinedRead{r, s, b, t.peer, false};
        });
      for_each_element_range(t.blocks, count, nb, [&](uint64_t lo, uint64_t hi) {
        sbuf[k].insert(sbuf[k].end(), buf.begin() + static_cast<std::ptrdiff_t>(lo),
                       buf.begin() + static_cast<std::ptrdiff_t>(hi));
      });
      reqs.emplace_back();
      MPI_Isend(sbuf[k].data(), static_cast<int>(sbuf[k].size()), mpi_type<T>(), static_cast<int>(t.peer), s,
                comm, &reqs.back());
      ++messages;
      bytes += sbuf[k].size() * sizeof(T);
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    for (size_t k = 0; k < rs.recvs.size(); ++k) {
      const Transfer& t = rs.recvs[k];
      if (!undefined && t.combine == Combine::reduce)
        t.blocks.for_each([&](Block b) {
          if (!undefined && block_tainted(b)) undefined = MpiUndefinedRead{r, s, b, t.peer, true};
        });
      size_t at = 0;
      for_each_element_range(t.blocks, count, nb, [&](uint64_t lo, uint64_t hi) {
        for (uint64_t i = lo; i < hi; ++i, ++at)
          buf[i] = (t.combine == Combine::copy) ? rbuf[k][at] : static_cast<T>(buf[i] + rbuf[k][at]);
      });
    }
  }
  double t1 = MPI_Wtime();
  reference(spec, count, input, ref, comm, r);
  double t2 = MPI_Wtime();

  // First local mismatch among the required blocks (in block order, which is
  // element order), then the smallest mismatching rank tells everybody.
  int bad = size;
  MismatchWire wire{};
  for (Block b = 0; b < nb && bad == size; ++b) {
    if (spec.required(r, b).kind == Requirement::Kind::none) continue;
    auto [lo, hi] = block_elements(count, nb, b);
    for (uint64_t i = lo; i < hi; ++i) {
      if (buf[i] == ref[i]) continue;  // NaN (poison) never compares equal
      bad = me;
      wire.block = b;
      wire.index = i;
      std::snprintf(wire.expected, sizeof wire.expected, "%s", show(ref[i]).c_str());
      std::snprintf(wire.actual, sizeof wire.actual, "%s%s", show(buf[i]).c_str(),
                    tainted(buf[i]) ? " (undefined data)" : "");
      break;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm);
  if (bad < size) {
    MPI_Bcast(&wire, sizeof wire, MPI_BYTE, bad, comm);
    res.status = Status::violated;
    res.mismatch = MpiMismatch{static_cast<Rank>(bad), wire.block, wire.index, wire.expected, wire.actual};
  }

  int first_undefined = undefined ? me : size;
  MPI_Allreduce(MPI_IN_PLACE, &first_undefined, 1, MPI_INT, MPI_MIN, comm);
  if (first_undefined < size) {
    MpiUndefinedRead u = undefined.value_or(MpiUndefinedRead{});
    MPI_Bcast(&u, sizeof u, MPI_BYTE, first_undefined, comm);
    res.status = Status::violated;
    res.undefined_read = u;
  }

  uint64_t sums[2] = {messages, bytes};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, comm);
  double times[2] = {t1 - t0, t2 - t1};
  MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, comm);
  res.messages = sums[0];
  res.bytes = sums[1];
  res.seconds = times[0];
  res.reference_seconds = times[1];
  return res;
}

}  // namespace

const char* reference_collective(Collective c) {
  switch (c) {
    case Collective::allreduce: return "MPI_Allreduce";
    case Collective::reduce: return "MPI_Reduce";
    case Collective::broadcast: return "MPI_Bcast";
    case Collective::allgather: return "MPI_Allgatherv";
    case Collective::reduce_scatter: return "MPI_Reduce_scatter";
    case Collective::alltoall: return "MPI_Alltoallv";
  }
  return "?";
}

std::string to_string(const MpiUndefinedRead& u) {
  const std::string r = "rank " + std::to_string(u.rank), b = "block " + std::to_string(u.block),
                    s = " at step " + std::to_string(u.step);
  if (u.reduce)
    return r + " reduces " + b + " from rank " + std::to_string(u.peer) + s +
           " into its own copy, which it does not hold (undefined data)";
  return r + " sends " + b + " to rank " + std::to_string(u.peer) + s + " before it holds it (undefined data)";
}

MpiResult run_schedule(const Schedule& sched, const MpiOptions& opts, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const CollectiveSpec& spec = sched.spec();
  const uint64_t p = sched.p(), nb = sched.num_blocks();
  const std::string kind = to_string(spec.kind);
  if (static_cast<uint64_t>(size) != p)
    throw std::invalid_argument("the schedule is for p = " + std::to_string(p) + " but the communicator has " +
                                std::to_string(size) + " ranks");
  if (nb == 0) throw std::invalid_argument("the schedule has no blocks");
  if ((spec.kind == Collective::broadcast || spec.kind == Collective::reduce) && spec.root >= p)
    throw std::invalid_argument("the " + kind + " root " + std::to_string(spec.root) + " is not in 0.." +
                                std::to_string(p - 1));
  if ((spec.kind == Collective::allgather || spec.kind == Collective::reduce_scatter) && nb % p != 0)
    throw std::invalid_argument(kind + " needs a multiple of p = " + std::to_string(p) + " blocks, the schedule has " +
                                std::to_string(nb));
  if (spec.kind == Collective::alltoall && nb != p * p)
    throw std::invalid_argument("alltoall needs p*p = " + std::to_string(p * p) + " blocks, the schedule has " +
                                std::to_string(nb));
  if (opts.count < nb)
    throw std::invalid_argument("--count " + std::to_string(opts.count) + " is smaller than the " +
                                std::to_string(nb) + " blocks of the schedule");
  if (opts.count > static_cast<uint64_t>(INT_MAX))
    throw std::invalid_argument("--count " + std::to_string(opts.count) + " exceeds INT_MAX");

  if (auto problem = find_unmatched(sched)) {
    MpiResult res;
    res.status = Status::violated;
    res.steps = sched.num_steps();
    res.problem = "unmatched schedule, not run: " + *problem;
    return res;
  }
  switch (opts.dtype) {
    case DType::int64: return run_typed<int64_t>(sched, opts, comm);
    case DType::float32: return run_typed<float>(sched, opts, comm);
    case DType::float64: return run_typed<double>(sched, opts, comm);
    case DType::int32:  // refused by collcheck-mpi before: poison() needs more than 32 bits
      throw std::invalid_argument("the schedule backend does not take int32: its poison value for undefined data "
                                  "would not stay apart from sums in 32 bits");
  }
  return run_typed<int64_t>(sched, opts, comm);
}

}  // namespace collcheck::runtime
