// Property-based equivalence of the interval bookkeeping
// (properties/flow/flow_interval.hpp) with the dense fingerprint simulation, on
// arbitrary schedules, not only on generated algorithms: every collective
// kind, p in 1..7, random transfers per step (random block sets, some past
// nblocks; self-sends, peers out of range, copies and reduces mixed, several
// receives into one block, receives missing or not matching their send).
// Every verdict (status, checks, violations, minimal counterexample with its
// texts) must be equal, whatever the schedule does wrong; the dense side
// runs in one chunk or one block per chunk. CTest runs 2000 cases
// (RC_PARAMS in tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "properties/instance_checker.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {
namespace {

MaterializedSchedule random_schedule() {
  MaterializedSchedule m;
  const auto kind = *rc::gen::element(Collective::allreduce, Collective::reduce_scatter, Collective::reduce,
                                      Collective::allgather, Collective::broadcast, Collective::alltoall);
  const uint64_t p = *rc::gen::inRange<uint64_t>(1, 8);
  const uint32_t per = *rc::gen::inRange<uint32_t>(1, 4);
  m.spec.kind = kind;
  m.spec.p = p;
  m.spec.nblocks = kind == Collective::alltoall ? static_cast<uint32_t>(p * p) : static_cast<uint32_t>(p * per);
  m.spec.root = *rc::gen::inRange<Rank>(0, static_cast<Rank>(p));
  m.ports = *rc::gen::inRange(1, 3);
  const int steps = *rc::gen::inRange(1, 6);
  const Block span = m.spec.nblocks + 2;  // a few blocks past the end
  m.steps.assign(steps, std::vector<RankStep>(p));
  for (int s = 0; s < steps; ++s) {
    const int transfers = *rc::gen::inRange(0, static_cast<int>(3 * p));
    for (int i = 0; i < transfers; ++i) {
      const Rank src = *rc::gen::inRange<Rank>(0, static_cast<Rank>(p));
      const Rank dst = *rc::gen::weightedOneOf<Rank>(
          {{12, rc::gen::inRange<Rank>(0, static_cast<Rank>(p))}, {1, rc::gen::just(static_cast<Rank>(p + 1))}});
      BlockSet blocks;
      const int ranges = *rc::gen::inRange(1, 4);
      for (int k = 0; k < ranges; ++k) {
        const Block lo = *rc::gen::inRange<Block>(0, span);
        const Block len = *rc::gen::inRange<Block>(1, std::max<Block>(2, span / 2));
        blocks.insert_range(lo, std::min<Block>(lo + len, span));
      }
      const Combine c = *rc::gen::element(Combine::copy, Combine::reduce);
      m.steps[s][src].sends.push_back({dst, blocks, c});
      const int recv_kind = *rc::gen::inRange(0, 10);  // 0: none, 1: other blocks, 2: other combine, else same
      if (dst >= p || recv_kind == 0) continue;
      Transfer t{src, blocks, c};
      if (recv_kind == 1) t.blocks.insert(*rc::gen::inRange<Block>(0, span));
      if (recv_kind == 2) t.combine = c == Combine::copy ? Combine::reduce : Combine::copy;
      m.steps[s][dst].recvs.push_back(t);
    }
  }
  return m;
}

// chunked: the dense state one block at a time (every chunk re-runs the
// steps, with and without an outbox).
InstanceCheck run(const Schedule& s, Bookkeeping b, bool chunked = false) {
  CheckOptions o;
  o.exactness = Exactness::fingerprint;
  o.bookkeeping = b;
  o.seed = 7;
  if (chunked) o.memory_budget = 1;
  return check_schedule(s, nullptr, {}, o);
}

RC_GTEST_PROP(IntervalProps, SameVerdictsAsDenseOnArbitrarySchedules, ()) {
  const MaterializedView view(random_schedule());
  const bool chunked = *rc::gen::arbitrary<bool>();
  const InstanceCheck dense = run(view, Bookkeeping::dense, chunked), iv = run(view, Bookkeeping::intervals);
  RC_ASSERT(iv.stats.count("method") == 1u);
  RC_TAG(to_string(combined_status(dense.verdicts)));
  RC_ASSERT(dense.verdicts.size() == iv.verdicts.size());
  for (size_t i = 0; i < dense.verdicts.size(); ++i) {
    const Verdict& x = dense.verdicts[i];
    const Verdict& y = iv.verdicts[i];
    RC_LOG() << x.property << ": dense " << to_string(x.status) << " " << x.checks << "/" << x.violations
             << (x.counterexample ? " " + x.counterexample->location() + " " + x.counterexample->actual : "")
             << " | intervals " << to_string(y.status) << " " << y.checks << "/" << y.violations
             << (y.counterexample ? " " + y.counterexample->location() + " " + y.counterexample->actual : "") << "\n";
    RC_ASSERT(x.status == y.status);
    RC_ASSERT(x.checks == y.checks);
    RC_ASSERT(x.violations == y.violations);
    RC_ASSERT(x.counterexample.has_value() == y.counterexample.has_value());
    if (x.counterexample) {
      RC_ASSERT(x.counterexample->location() == y.counterexample->location());
      RC_ASSERT(x.counterexample->expected == y.counterexample->expected);
      RC_ASSERT(x.counterexample->actual == y.counterexample->actual);
      RC_ASSERT(x.counterexample->message == y.counterexample->message);
    }
  }
}

}  // namespace
}  // namespace collcheck
