#include "runtime/trace/trace_collect.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace collcheck::runtime::trace {

namespace {

// One rank's events and result as int64 words:
// [n, (kind peer tag posted elements payload_type same_comm ndata data...) x n,
//  nresult, blocks..., ndata, data...]
std::vector<int64_t> encode(const std::vector<Event>& ev, const Result& res) {
  std::vector<int64_t> w{static_cast<int64_t>(ev.size())};
  for (const Event& e : ev) {
    w.insert(w.end(), {static_cast<int64_t>(e.kind), e.peer, e.tag, static_cast<int64_t>(e.posted),
                       static_cast<int64_t>(e.elements), e.payload_type, e.same_comm,
                       static_cast<int64_t>(e.data.size())});
    w.insert(w.end(), e.data.begin(), e.data.end());
  }
  w.push_back(static_cast<int64_t>(res.blocks.size()));
  w.insert(w.end(), res.blocks.begin(), res.blocks.end());
  w.push_back(static_cast<int64_t>(res.data.size()));
  w.insert(w.end(), res.data.begin(), res.data.end());
  return w;
}

const int64_t* decode_into(const int64_t* w, std::vector<Event>& ev, Result& res) {
  ev.resize(static_cast<size_t>(*w++));
  for (Event& e : ev) {
    e.kind = static_cast<Event::Kind>(*w++);
    e.peer = static_cast<int>(*w++), e.tag = static_cast<int>(*w++);
    e.posted = static_cast<uint64_t>(*w++), e.elements = static_cast<uint64_t>(*w++);
    e.payload_type = *w++ != 0, e.same_comm = *w++ != 0;
    const size_t n = static_cast<size_t>(*w++);
    e.data.assign(w, w + n);
    w += n;
  }
  size_t n = static_cast<size_t>(*w++);
  res.blocks.assign(w, w + n);
  w += n;
  n = static_cast<size_t>(*w++);
  res.data.assign(w, w + n);
  return w + n;
}

}  // namespace

TraceReport collect_and_analyze(const TraceSpec& spec, const std::vector<Event>& mine, const Result& my_result,
                                MPI_Comm comm) {
  int me = 0, size = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  const std::vector<int64_t> words = encode(mine, my_result);
  long long len = static_cast<long long>(words.size()), sum = 0;
  MPI_Allreduce(&len, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (sum > INT32_MAX)  // Gatherv's displacements are ints
    throw std::invalid_argument("the trace is " + std::to_string(sum) + " words, more than one gather holds: trace a smaller count");
  std::vector<long long> lens(static_cast<size_t>(size));
  MPI_Gather(&len, 1, MPI_LONG_LONG, lens.data(), 1, MPI_LONG_LONG, 0, comm);
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    counts[static_cast<size_t>(r)] = static_cast<int>(lens[static_cast<size_t>(r)]);
    displs[static_cast<size_t>(r)] = static_cast<int>(total);
    total += lens[static_cast<size_t>(r)];
  }
  std::vector<int64_t> all(me == 0 ? static_cast<size_t>(total) : 0);
  MPI_Gatherv(words.data(), static_cast<int>(len), MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T,
              0, comm);
  if (me != 0) return {};
  std::vector<std::vector<Event>> events(static_cast<size_t>(size));
  std::vector<Result> results(static_cast<size_t>(size));
  const int64_t* w = all.data();
  for (int r = 0; r < size; ++r) w = decode_into(w, events[static_cast<size_t>(r)], results[static_cast<size_t>(r)]);
  return analyze(spec, events, results);
}

}  // namespace collcheck::runtime::trace
