// Message traces (runtime/trace/message_trace.hpp): from per-rank events to a
// schedule, without MPI. Every finding is shown on a trace that has it and
// its absence on one that does not; the schedule a correct trace gives is
// checked with every property.
#include "runtime/trace/message_trace.hpp"

#include <gtest/gtest.h>

#include "properties/instance_checker.hpp"

namespace collcheck::runtime::trace {
namespace {

// An allreduce on p ranks with nblocks blocks, read as tagged-counters.
TraceSpec allreduce(uint64_t p, uint64_t nblocks) {
  TraceSpec s;
  s.collective.kind = Collective::allreduce;
  s.collective.p = p;
  s.collective.nblocks = nblocks;
  return s;
}

// One tagged-counters element: counts per rank, then (block + 1) x their sum.
void put(std::vector<int64_t>& data, uint32_t block, std::vector<int64_t> counts) {
  int64_t sum = 0;
  for (int64_t c : counts) sum += c;
  data.insert(data.end(), counts.begin(), counts.end());
  data.push_back((block + 1) * sum);
}

Event send(int peer, uint64_t elements, int tag = 0) {
  Event e;
  e.kind = Event::Kind::send;
  e.peer = peer, e.tag = tag, e.elements = elements;
  return e;
}

Event recv(int peer, uint64_t posted, std::vector<int64_t> data, uint64_t elements, int tag = 0) {
  Event e;
  e.kind = Event::Kind::recv;
  e.peer = peer, e.tag = tag, e.posted = posted, e.elements = elements, e.data = std::move(data);
  return e;
}

Result result(std::vector<std::pair<uint32_t, std::vector<int64_t>>> elements) {
  Result r;
  for (auto& [b, counts] : elements) {
    r.blocks.push_back(b);
    put(r.data, b, counts);
  }
  return r;
}

// Two ranks exchange both blocks and reduce: one round, reduce transfers.
struct Exchange {
  std::vector<std::vector<Event>> events{2};
  std::vector<Result> results;
  Exchange() {
    std::vector<int64_t> from1, from0;
    put(from1, 0, {0, 1}), put(from1, 1, {0, 1});
    put(from0, 0, {1, 0}), put(from0, 1, {1, 0});
    events[0] = {send(1, 2), recv(1, 0, from1, 2)};
    events[1] = {send(0, 2), recv(0, 0, from0, 2)};
    results = {result({{0, {1, 1}}, {1, {1, 1}}}), result({{0, {1, 1}}, {1, {1, 1}}})};
  }
};

TEST(MessageTrace, ACorrectExchangeIsOneRoundOfReducesAndHoldsEveryProperty) {
  Exchange x;
  const TraceReport r = analyze(allreduce(2, 2), x.events, x.results);
  ASSERT_FALSE(r.untraceable) << *r.untraceable;
  EXPECT_FALSE(r.defect);
  EXPECT_FALSE(r.local_change);
  EXPECT_EQ(r.messages, 2u);
  EXPECT_EQ(r.rounds, 1);
  ASSERT_EQ(r.schedule.steps.size(), 1u);
  ASSERT_EQ(r.schedule.steps[0][0].sends.size(), 1u);
  EXPECT_EQ(r.schedule.steps[0][0].sends[0], (Transfer{1, BlockSet::range(0, 2), Combine::reduce}));
  EXPECT_EQ(r.schedule.steps[0][1].recvs[0], (Transfer{0, BlockSet::range(0, 2), Combine::reduce}));
  const InstanceCheck ic = check_schedule(MaterializedView(r.schedule), nullptr, {}, CheckOptions{});
  for (const Verdict& v : ic.verdicts) EXPECT_NE(v.status, Status::violated) << v.property;
}

TEST(MessageTrace, ASendAfterAReceiveIsInALaterRoundAndACopyContainingWhatIsHeldIsACopy) {
  // reduce to rank 1, then broadcast back: 0 -> 1 (reduce), 1 -> 0 (copy)
  std::vector<int64_t> to1, to0;
  put(to1, 0, {1, 0});
  put(to0, 0, {1, 1});
  std::vector<std::vector<Event>> ev(2);
  ev[0] = {send(1, 1), recv(1, 0, to0, 1)};
  ev[1] = {recv(0, 0, to1, 1), send(0, 1)};
  const TraceReport r = analyze(allreduce(2, 1), ev, {result({{0, {1, 1}}}), result({{0, {1, 1}}})});
  ASSERT_FALSE(r.untraceable) << *r.untraceable;
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(r.schedule.steps[0][1].recvs[0].combine, Combine::reduce);
  EXPECT_EQ(r.schedule.steps[1][0].recvs[0].combine, Combine::copy);
  const InstanceCheck ic = check_schedule(MaterializedView(r.schedule), nullptr, {}, CheckOptions{});
  for (const Verdict& v : ic.verdicts) EXPECT_NE(v.status, Status::violated) << v.property;
}

TEST(MessageTrace, AMessageCarryingAContributionTwiceIsNamed) {
  // rank 1 reduces rank 0's data in twice and passes it on to rank 2
  TraceSpec s = allreduce(3, 1);
  std::vector<int64_t> a, b;
  put(a, 0, {1, 0, 0});
  put(b, 0, {2, 1, 0});
  std::vector<std::vector<Event>> ev(3);
  ev[0] = {send(1, 1), send(1, 1, 1)};
  ev[1] = {recv(0, 0, a, 1), recv(0, 1, a, 1, 1), send(2, 1)};
  ev[2] = {recv(1, 0, b, 1)};
  const TraceReport r = analyze(s, ev, {});
  ASSERT_TRUE(r.defect);
  EXPECT_EQ(*r.defect, "rank 1's message to rank 2 in round 1 (tag 0) carries rank 0's contribution to element 0 a second time");
  // the schedule still describes the messages; exactly-once refutes it at rank 1's second reduce
  ASSERT_FALSE(r.untraceable) << *r.untraceable;
  const InstanceCheck ic = check_schedule(MaterializedView(r.schedule), nullptr, {}, CheckOptions{});
  bool refuted = false;
  for (const Verdict& v : ic.verdicts)
    if (v.property == "exactly-once") refuted = v.status == Status::violated && v.counterexample->rank == 1u;
  EXPECT_TRUE(refuted);
}

TEST(MessageTrace, ARankWhoseDataChangesBetweenMessagesIsNotTraceable) {
  // rank 1 forwards {0, 1, 2} having received only rank 0's contribution
  std::vector<int64_t> a, b;
  put(a, 0, {1, 0, 0});
  put(b, 0, {1, 1, 1});
  std::vector<std::vector<Event>> ev(3);
  ev[0] = {send(1, 1)};
  ev[1] = {recv(0, 0, a, 1), send(2, 1)};
  ev[2] = {recv(1, 0, b, 1)};
  const TraceReport r = analyze(allreduce(3, 1), ev, {});
  ASSERT_TRUE(r.untraceable);
  EXPECT_NE(r.untraceable->find("rank 1's message to rank 2 in round 1 (tag 0) carries the contributions {0, 1, 2} for "
                                "element 0, but the messages rank 1 had received by then give {0, 1}"),
            std::string::npos)
      << *r.untraceable;
  EXPECT_FALSE(r.defect);
  EXPECT_TRUE(r.schedule.steps.empty());
}

TEST(MessageTrace, AResultChangedAfterTheLastMessageIsALocalChange) {
  Exchange x;
  x.results[1] = result({{0, {1, 2}}, {1, {1, 1}}});
  const TraceReport r = analyze(allreduce(2, 2), x.events, x.results);
  ASSERT_FALSE(r.untraceable);
  ASSERT_TRUE(r.local_change);
  EXPECT_EQ(*r.local_change,
            "rank 1's result for element 0 holds {0, 1 (x2)}, but the messages it received give {0, 1}: it changed after "
            "or outside the traced messages (rank 1's contribution added again locally)");
}

TEST(MessageTrace, AReduceIntoDataItContainsIsTakenAsAReduceWhenTheRankIsSeenHoldingBoth) {
  // rank 1 sends {1} to rank 0, gets {0, 1} back and reduces it: its result {0, 1 x2}
  std::vector<int64_t> to0, to1;
  put(to0, 0, {0, 1});
  put(to1, 0, {1, 1});
  std::vector<std::vector<Event>> ev(2);
  ev[0] = {recv(1, 0, to0, 1), send(1, 1)};
  ev[1] = {send(0, 1), recv(0, 0, to1, 1)};
  const TraceReport r = analyze(allreduce(2, 1), ev, {result({{0, {1, 1}}}), result({{0, {1, 2}}})});
  ASSERT_FALSE(r.untraceable) << *r.untraceable;
  EXPECT_EQ(r.schedule.steps[1][1].recvs[0].combine, Combine::reduce);
  EXPECT_FALSE(r.local_change);
  // seen holding only what it received: a copy
  const TraceReport c = analyze(allreduce(2, 1), ev, {result({{0, {1, 1}}}), result({{0, {1, 1}}})});
  ASSERT_FALSE(c.untraceable) << *c.untraceable;
  EXPECT_EQ(c.schedule.steps[1][1].recvs[0].combine, Combine::copy);
}

TEST(MessageTrace, UnreadableTracesSayWhy) {
  Exchange x;
  auto untraceable = [&](std::vector<std::vector<Event>> ev) {
    const TraceReport r = analyze(allreduce(2, 2), ev, x.results);
    return r.untraceable.value_or("(traceable)");
  };
  auto ev = x.events;
  ev[1].pop_back();  // rank 0's message never received
  EXPECT_NE(untraceable(ev).find("rank 0's send to rank 1 (tag 0, 2 elements) was never received"), std::string::npos);
  ev = x.events;
  ev[0][0].payload_type = false;
  EXPECT_NE(untraceable(ev).find("in another datatype"), std::string::npos);
  ev = x.events;
  ev[1][0].same_comm = false;
  EXPECT_NE(untraceable(ev).find("on another communicator"), std::string::npos);
  ev = x.events;
  ev[1][1].tag = 9;  // a receive no send matches
  EXPECT_NE(untraceable(ev).find("matches no traced send of rank 0"), std::string::npos);
  ev = x.events;
  ev[0][1].data[0] = -7777777777;  // the receive sentinel
  EXPECT_NE(untraceable(ev).find("carries no element of the payload"), std::string::npos);
  const TraceReport none = analyze(allreduce(2, 2), {{}, {}}, x.results);
  ASSERT_TRUE(none.untraceable);
  EXPECT_NE(none.untraceable->find("no message passed through the traced point-to-point calls"), std::string::npos);
}

TEST(MessageTrace, DecodeReadsTagsAndRefusesWhatNoElementIs) {
  const TraceSpec s = allreduce(2, 3);
  std::string why;
  const int64_t ok[] = {1, 1, 6};  // block 2 (tag 3 x 2 contributions)
  auto e = decode(s, ok, why);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->block, 2u);
  EXPECT_EQ(e->counts, (std::vector<uint32_t>{1, 1}));
  const int64_t empty[] = {0, 0, 0};
  ASSERT_TRUE(decode(s, empty, why));
  EXPECT_TRUE(decode(s, empty, why)->empty());
  const int64_t bad_tag[] = {1, 1, 5}, beyond[] = {1, 0, 4}, negative[] = {-1, 1, 0};
  EXPECT_FALSE(decode(s, bad_tag, why));
  EXPECT_EQ(why, "tag 5 is no block's for 2 contributions");
  EXPECT_FALSE(decode(s, beyond, why));
  EXPECT_FALSE(decode(s, negative, why));
  // source-tagged allgather: origin * S + j is block origin * S + j
  TraceSpec g;
  g.collective = {Collective::allgather, 3, 6, 0};
  g.encoding = Encoding::source_tagged;
  g.source_elements = 2;
  const int64_t v[] = {5};
  e = decode(g, v, why);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->block, 5u);
  EXPECT_EQ(e->counts, (std::vector<uint32_t>{0, 0, 1}));
  const int64_t out_of_range[] = {6};
  EXPECT_FALSE(decode(g, out_of_range, why));
}

}  // namespace
}  // namespace collcheck::runtime::trace
