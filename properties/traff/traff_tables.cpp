#include "properties/traff/traff_tables.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
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
  // Ranks are computed in tiles of kTile into a row-major scratch tile, then
  // copied column by column: one contiguous run of kTile bytes per round
  // instead of 2q scattered byte stores per rank (measured: the scattered
  // stores cost about as much as the checks).
  constexpr uint64_t kTile = 256;
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, (p + kTile - 1) / kTile, 16),
                    [&](const tbb::blocked_range<uint64_t>& tiles) {
    std::array<int64_t, 64> rb{}, sb{};
    std::vector<int8_t> rtile(kTile * static_cast<uint64_t>(q)), stile(kTile * static_cast<uint64_t>(q));
    for (uint64_t tile = tiles.begin(); tile != tiles.end(); ++tile) {
      const uint64_t lo = tile * kTile, hi = std::min(p, lo + kTile);
      for (uint64_t r = lo; r < hi; ++r) {
        const RankCounters c = rank_schedule_into(r, t.skip, rb.data(), sb.data());
        for (int k = 0; k < q; ++k) {
          COLLCHECK_CHECK(rb[static_cast<size_t>(k)] >= -q && rb[static_cast<size_t>(k)] < q &&
                              sb[static_cast<size_t>(k)] >= -q && sb[static_cast<size_t>(k)] < q,
                          "Träff table value outside [-q, q-1]");
          rtile[static_cast<size_t>(k) * kTile + (r - lo)] = static_cast<int8_t>(rb[static_cast<size_t>(k)]);
          stile[static_cast<size_t>(k) * kTile + (r - lo)] = static_cast<int8_t>(sb[static_cast<size_t>(k)]);
        }
        t.baseblock[r] = static_cast<int8_t>(c.baseblock);
        t.recursive_calls[r] = static_cast<uint8_t>(c.recursive_calls > 255 ? 255 : c.recursive_calls);
        t.violations[r] = static_cast<uint8_t>(c.violations > 255 ? 255 : c.violations);
      }
      for (int k = 0; k < q; ++k) {
        std::copy_n(&rtile[static_cast<size_t>(k) * kTile], hi - lo, &t.recv[t.at(lo, k)]);
        std::copy_n(&stile[static_cast<size_t>(k) * kTile], hi - lo, &t.send[t.at(lo, k)]);
      }
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
