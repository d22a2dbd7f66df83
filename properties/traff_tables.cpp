#include "properties/traff_tables.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <array>
#include <stdexcept>
#include <string>

#include "schedules/check.hpp"

namespace collcheck::traff {

namespace {

Tables shaped(uint64_t p) {
  Tables t;
  t.p = p;
  t.skip = skips(p);
  t.q = static_cast<int>(t.skip.size()) - 1;
  t.baseblock.resize(p);
  t.recv.resize(p * static_cast<uint64_t>(t.q));
  t.send.resize(p * static_cast<uint64_t>(t.q));
  return t;
}

}  // namespace

Tables compute_tables(uint64_t p) {
  Tables t = shaped(p);
  t.recursive_calls.resize(p);
  t.violations.resize(p);
  const int q = t.q;
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, p, 4096), [&](const tbb::blocked_range<uint64_t>& range) {
    std::array<int64_t, 64> rb{}, sb{};
    for (uint64_t r = range.begin(); r != range.end(); ++r) {
      const RankCounters c = rank_schedule_into(r, t.skip, rb.data(), sb.data());
      for (int k = 0; k < q; ++k) {
        COLLCHECK_CHECK(rb[static_cast<size_t>(k)] >= -q && rb[static_cast<size_t>(k)] < q &&
                            sb[static_cast<size_t>(k)] >= -q && sb[static_cast<size_t>(k)] < q,
                        "Träff table value outside [-q, q-1]");
        t.recv[t.at(r, k)] = static_cast<int8_t>(rb[static_cast<size_t>(k)]);
        t.send[t.at(r, k)] = static_cast<int8_t>(sb[static_cast<size_t>(k)]);
      }
      t.baseblock[r] = static_cast<int8_t>(c.baseblock);
      t.recursive_calls[r] = static_cast<uint8_t>(c.recursive_calls > 255 ? 255 : c.recursive_calls);
      t.violations[r] = static_cast<uint8_t>(c.violations > 255 ? 255 : c.violations);
    }
  });
  return t;
}

Tables from_rank_schedules(const std::vector<RankSchedule>& s) {
  if (s.empty()) throw std::invalid_argument("Träff tables need p >= 1 rows");
  Tables t = shaped(s.size());
  const int q = t.q;
  for (uint64_t r = 0; r < t.p; ++r) {
    const RankSchedule& row = s[r];
    if (row.recvblock.size() != static_cast<size_t>(q) || row.sendblock.size() != static_cast<size_t>(q))
      throw std::invalid_argument("Träff tables: rank " + std::to_string(r) + " needs q = " + std::to_string(q) +
                                  " recvblock and sendblock entries");
    if (row.baseblock < 0 || row.baseblock > q)
      throw std::invalid_argument("Träff tables: baseblock of rank " + std::to_string(r) + " outside 0..q");
    t.baseblock[r] = static_cast<int8_t>(row.baseblock);
    for (int k = 0; k < q; ++k) {
      const int64_t a = row.recvblock[static_cast<size_t>(k)], b = row.sendblock[static_cast<size_t>(k)];
      if (a < -q || a >= q || b < -q || b >= q)
        throw std::invalid_argument("Träff tables: rank " + std::to_string(r) + " has a block outside [-q, q-1]");
      t.recv[t.at(r, k)] = static_cast<int8_t>(a);
      t.send[t.at(r, k)] = static_cast<int8_t>(b);
    }
  }
  return t;
}

}  // namespace collcheck::traff
