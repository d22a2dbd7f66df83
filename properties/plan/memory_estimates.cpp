#include "properties/plan/memory_estimates.hpp"

#include <algorithm>
#include <bit>

#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/held_enumeration.hpp"
#include "properties/flow/run_cells.hpp"
#include "schedules/input_error.hpp"
#include "schedules/int_math.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {

Exactness resolved_exactness(uint64_t p, const CheckOptions& o) {
  if (o.exactness != Exactness::automatic) return o.exactness;
  return p <= o.exact_max_p ? Exactness::exact : Exactness::fingerprint;
}

std::string cell_count(uint64_t p, uint64_t nblocks) {
  const uint64_t c = sat_mul(p, nblocks);
  return c == UINT64_MAX ? "more than 2^64 - 2" : std::to_string(c);
}

RankZeroSize rank_zero_size(const Schedule& s) {
  RankZeroSize z;
  RankStep rs;
  for (int st = 0; st < s.num_steps(); ++st) {
    s.rank_step(0, st, rs);
    uint64_t ranges = 0, sent = 0, recv = 0;
    for (const Transfer& t : rs.sends) ranges += t.blocks.ranges().size(), sent += t.blocks.size();
    for (const Transfer& t : rs.recvs) ranges += t.blocks.ranges().size(), recv += t.blocks.size();
    z.ranges = std::max(z.ranges, ranges);
    z.transfers = std::max<uint64_t>(z.transfers, rs.sends.size() + rs.recvs.size());
    z.sent_blocks = std::max(z.sent_blocks, sent);
    z.recv_blocks = std::max(z.recv_blocks, recv);
    z.sent_total += sent;
    z.recv_total += recv;
  }
  return z;
}

bool held_takes(const Schedule& s, const CheckOptions& o, Exactness e) {
  return e == Exactness::exact && o.bookkeeping != Bookkeeping::dense && flow::held_enumeration_applies(s);
}

namespace {
// Every rank's transfers of one step, and their outbox, as large as rank 0's.
// Heap blocks carry ~16 bytes of malloc overhead and round up to 32.
uint64_t transfers_bytes(uint64_t p, const RankZeroSize& z) {
  return p * (sizeof(RankStep) + 2 * 16 + z.transfers * (sizeof(Transfer) + 32) + z.ranges * sizeof(BlockSet::Range));
}
uint64_t outbox_bytes(uint64_t p, const RankZeroSize& z, uint64_t blocks, uint64_t cell_bytes) {
  return p * (sizeof(RankStep) + z.transfers * (2 * 40 + 2 * 32)) + p * blocks * (sizeof(Block) + cell_bytes);
}
}  // namespace

MemoryEstimate generic_estimate(const Schedule& s, const CheckOptions& o, Exactness e, const RankZeroSize& z) {
  const uint64_t p = s.p(), nb = s.num_blocks();
  const uint64_t ops = transfers_bytes(p, z);
  MemoryEstimate m;
  if (held_takes(s, o, e)) {
    const uint64_t cell_bytes = 8;  // one word per block (a single contribution; sets are copied as they come)
    const uint64_t state = flow::held_enumeration_bytes(s, z.recv_total);
    const uint64_t outbox = outbox_bytes(p, z, z.sent_blocks, cell_bytes);
    m.bytes = state + ops + outbox + p * 8 + kProcessBaseline;
    m.how = "exact simulation, held cells only: at most " + gib(state) + " of cells (" + std::to_string(p) +
            " own and " + std::to_string(z.recv_total) + " received blocks per rank), transfers " + gib(ops) +
            ", outbox " + gib(outbox) + ", process 0.0312 GiB (every rank taken to be like rank 0)";
    return m;
  }
  const uint64_t cell_bytes = e == Exactness::exact ? ((p + 63) / 64 + 1) * 8 : 16;
  const uint64_t per_block = std::max<uint64_t>(1, p * cell_bytes);
  const uint64_t chunk = std::clamp<uint64_t>(o.memory_budget / per_block, 1, std::max<uint64_t>(nb, 1));
  const uint64_t state = chunk * per_block;
  const uint64_t outbox = outbox_bytes(p, z, std::min<uint64_t>(z.sent_blocks, chunk), cell_bytes);
  const uint64_t per_rank = p * 8 * 2 + kProcessBaseline;  // send volume, fingerprint weights
  m.bytes = state + ops + outbox + per_rank;
  m.how = std::string(e == Exactness::exact ? "exact" : "fingerprint") + " simulation: contribution state " +
          gib(state) + " (" + std::to_string(chunk) + " of " + std::to_string(nb) + " blocks per chunk), transfers " +
          gib(ops) + ", outbox " + gib(outbox) + ", process 0.0312 GiB (every rank taken to be like rank 0)";
  return m;
}

MemoryEstimate rotation_estimate(const Schedule& s, const RankZeroSize& z) {
  const uint64_t p = s.p(), nb = s.num_blocks();
  const EquivariantSchedule* eq = equivariant_view(s);
  const uint64_t words = eq ? flow::quotient_cell_words(*eq) : (p + 63) / 64 + 1;
  MemoryEstimate m;
  const uint64_t state = sat_mul(sat_mul(nb, words), 8);
  const uint64_t inbox = 2 * z.recv_blocks * words * 8;
  // RankStep headers for every rank; rank 0, its peers and one per thread in full.
  const uint64_t ops = p * sizeof(RankStep) + (z.transfers + 8) * (z.ranges * sizeof(BlockSet::Range) + sizeof(Transfer) + 32);
  m.bytes = state + inbox + ops + kProcessBaseline;
  m.how = "exact by symmetry: rank 0's contribution state " + gib(state) + ", received cells " + gib(inbox) +
          ", transfers " + gib(ops) + ", process 0.0312 GiB";
  return m;
}

// The certified quotient of an all-to-all (blocks as pairs): the cells rank
// 0 touches, at most its own p, the p it is judged on, and every block it
// sends or receives (a sent block it does not hold is touched too), one
// RankStep per rank, rank 0's and its peers' transfers.
MemoryEstimate held_estimate(const Schedule& s, const RankZeroSize& z) {
  MemoryEstimate m;
  const uint64_t held = 2 * s.p() + z.sent_total + z.recv_total;
  const uint64_t cells = held * 64;  // a hash map node (key, cell) and its bucket
  const uint64_t ops = s.p() * sizeof(RankStep) + (z.transfers + 8) * (z.ranges * sizeof(BlockSet::Range) + 64);
  m.bytes = cells + ops + kProcessBaseline;
  m.how = "exact by symmetry, rank 0's held blocks only: at most " + std::to_string(held) + " cells, " + gib(cells) +
          ", transfers " + gib(ops) + ", process 0.0312 GiB";
  return m;
}

// Rank 0's cells (about log2 p runs each; their real size is checked as the
// quotient runs, at most the memory budget), one RankStep per rank, rank 0's
// and its peers' transfers.
MemoryEstimate runs_estimate(const Schedule& s, const RankZeroSize& z) {
  MemoryEstimate m;
  const uint64_t cells = uint64_t{s.num_blocks()} * (sizeof(flow::RunSet) + 8 * (2 + std::bit_width(s.p())));
  const uint64_t ops = s.p() * sizeof(RankStep) + (z.transfers + 8) * (z.ranges * sizeof(BlockSet::Range) + 64);
  m.bytes = cells + ops + kProcessBaseline;
  m.how = "exact by symmetry, runs of ranks: rank 0's cells about " + gib(cells) +
          " (checked as they grow, at most the memory budget), transfers " + gib(ops) + ", process 0.0312 GiB";
  return m;
}

std::optional<flow::IntervalPlan> interval_plan(const Schedule& s, const CheckOptions& o, Exactness e) {
  if (e != Exactness::fingerprint || o.bookkeeping == Bookkeeping::dense) return std::nullopt;
  flow::IntervalPlan plan = flow::plan_intervals(s);
  if (o.bookkeeping == Bookkeeping::intervals || plan.cheaper()) return plan;
  if (sat_mul(s.p(), s.num_blocks()) > kMaxDenseCells)
    throw InputError("p * nblocks = " + cell_count(s.p(), s.num_blocks()) +
                     " (rank, block) cells exceed the dense checker's limit of 2^32, and the transfers are too "
                     "scattered for interval bookkeeping to pay (" + plan.how + ")");
  return std::nullopt;
}

}  // namespace collcheck
