#include "runtime/mpi_backend.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace collcheck::runtime {

std::pair<uint64_t, uint64_t> block_elements(uint64_t count, uint32_t nblocks, Block b) {
  const uint64_t base = count / nblocks, extra = count % nblocks;
  const uint64_t lo = uint64_t{b} * base + std::min<uint64_t>(b, extra);
  return {lo, lo + base + (b < extra ? 1 : 0)};
}

std::optional<std::string> find_unmatched(const Schedule& sched) {
  const uint64_t p = sched.p();
  const uint32_t nb = sched.num_blocks();
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
void for_each_element_range(const BlockSet& bs, uint64_t count, uint32_t nb, F&& f) {
  for (const auto& r : bs.ranges()) {
    uint64_t lo = block_elements(count, nb, r.lo).first;
    uint64_t hi = block_elements(count, nb, r.hi - 1).second;
    f(lo, hi);
  }
}

uint64_t elements_of(const BlockSet& bs, uint64_t count, uint32_t nb) {
  uint64_t n = 0;
  for_each_element_range(bs, count, nb, [&](uint64_t lo, uint64_t hi) { n += hi - lo; });
  return n;
}

struct MismatchWire {
  uint32_t block;
  uint64_t index;
  char expected[64];
  char actual[64];
};

template <class T>
MpiResult run_typed(const Schedule& sched, const MpiOptions& o, MPI_Comm comm) {
  int me = 0, size = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  const uint64_t count = o.count;
  const uint32_t nb = sched.num_blocks();
  const Rank r = static_cast<Rank>(me);
  MpiResult res;
  res.steps = sched.num_steps();

  std::vector<T> input(count), buf(count), ref(count);
  for (uint64_t i = 0; i < count; ++i) input[i] = static_cast<T>(input_integer(o.seed, r, i));
  buf = input;

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
      size_t at = 0;
      for_each_element_range(t.blocks, count, nb, [&](uint64_t lo, uint64_t hi) {
        for (uint64_t i = lo; i < hi; ++i, ++at)
          buf[i] = (t.combine == Combine::copy) ? rbuf[k][at] : static_cast<T>(buf[i] + rbuf[k][at]);
      });
    }
  }
  double t1 = MPI_Wtime();
  MPI_Allreduce(input.data(), ref.data(), static_cast<int>(count), mpi_type<T>(), MPI_SUM, comm);
  double t2 = MPI_Wtime();

  // First local mismatch, then the smallest mismatching rank tells everybody.
  int bad = size;
  MismatchWire wire{};
  for (uint64_t i = 0; i < count; ++i) {
    if (buf[i] == ref[i]) continue;
    bad = me;
    wire.index = i;
    wire.block = 0;
    for (Block b = 0; b < nb; ++b)
      if (block_elements(count, nb, b).second > i) {
        wire.block = b;
        break;
      }
    std::snprintf(wire.expected, sizeof wire.expected, "%s", show(ref[i]).c_str());
    std::snprintf(wire.actual, sizeof wire.actual, "%s", show(buf[i]).c_str());
    break;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm);
  if (bad < size) {
    MPI_Bcast(&wire, sizeof wire, MPI_BYTE, bad, comm);
    res.status = Status::violated;
    res.mismatch = MpiMismatch{static_cast<Rank>(bad), wire.block, wire.index, wire.expected, wire.actual};
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

MpiResult run_allreduce_schedule(const Schedule& sched, const MpiOptions& opts, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (sched.spec().kind != Collective::allreduce)
    throw std::invalid_argument(std::string("the MPI backend runs allreduce schedules only, not ") +
                                to_string(sched.spec().kind));
  if (static_cast<uint64_t>(size) != sched.p())
    throw std::invalid_argument("the schedule is for p = " + std::to_string(sched.p()) +
                                " but the communicator has " + std::to_string(size) + " ranks");
  if (opts.count < sched.num_blocks())
    throw std::invalid_argument("--count " + std::to_string(opts.count) + " is smaller than the " +
                                std::to_string(sched.num_blocks()) + " blocks of the schedule");
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
  }
  return run_typed<int64_t>(sched, opts, comm);
}

}  // namespace collcheck::runtime
