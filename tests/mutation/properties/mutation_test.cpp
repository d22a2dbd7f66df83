// Mutation tests: each property of the checker must catch the defect it is
// about, and only that defect.
//
// Every test takes a real schedule from the registry (swing bandwidth p = 8,
// 12, 16; swing latency p = 8; recursive-doubling bandwidth p = 8; ring p = 5;
// a folded swing latency p = 12 where idle ranks are needed), applies one
// mutation from tests/support/mutations.hpp to its materialized form, and
// asserts
//   * the EXACT set of violated properties (so a property that fires on
//     everything, or never, fails the test),
//   * the counterexample's location (rank, step, block, peer) at the mutated
//     transfer wherever that is determinable, and its expected/actual text,
//   * for the flow-based properties (causality, exactly-once, postcondition)
//     the verdicts of both exact and fingerprint mode.
// What an allreduce cannot show (every rank holds a value of every block from
// the start) uses small hand-built schedules: binomial broadcasts and a
// recursive-doubling allgather for "sender holds nothing" and "reduce into an
// undefined buffer", and a block index out of range for matching.
// Checks run without a cost claim (cost = skipped) except in the cost tests,
// and with the registry's hop claims for Swing schedules.
//
// Semantics pinned down here (properties/causality.hpp, instance_checker.cpp):
//   * causality (b), "a copy never discards", compares contribution COUNTS, in
//     both modes, with the same text ("would discard N contribution(s) (holds
//     X, copy has Y)"): a copy violates it only if it carries fewer
//     contributions than the receiver holds. A copy that replaces a partial
//     result with a different one of the same or larger size is not a
//     causality violation in either mode; the lost contributions show up in
//     the postcondition, or nowhere if a later copy repairs the value. In
//     swing and recursive doubling, moving an allgather copy earlier or
//     turning rank 0's first reduce into a copy never lowers a count (the
//     copy brings an equal-sized or larger partial), so
//     the causality tests use mutations that do lower the count (a block
//     the sender has not received yet copied over the receiver's result, a
//     reduce turned into a copy where the de-duplicated swing p = 12
//     schedule makes the receiver hold more, premature ring copies), and
//     separate tests pin that the equal-sized swaps pass causality.
//   * causality (a), the sender holds the block, also covers sends nobody
//     receives; (d) a reduce into a block the receiver holds no value of
//     (allgather, broadcast, all-to-all buffers start undefined) is a
//     violation; (c) two writes of one block in one step with a copy
//     involved is a race.
//   * exact mode keeps contribution sets plus a per-cell "counted more than
//     once" flag that travels with the value through reduces and copies: a
//     double count is reported by exactly-once at the reduce that adds it
//     (naming the rank counted twice) and, like in fingerprint mode, by the
//     postcondition wherever it reaches a required final value ("some
//     contribution counted more than once"). So both modes agree on the
//     postcondition. A double count in a cell that is overwritten before the
//     end and never forwarded reaches no final value: only exact mode's
//     exactly-once sees it. Fingerprint mode reports exactly-once at the final
//     value (too many contributions, or the right count with the wrong sum).
//   * matching also reports transfers naming a block >= nblocks.
// Bugs these tests found, now fixed (the tests pin the fixes):
//   * matching was not one-to-one: a send listed twice with one receive passed;
//   * two receives of one block in one step were applied in list order, so a
//     copy/reduce race passed or failed depending on that order (causality
//     now flags the race itself).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/mutations.hpp"

namespace collcheck {
namespace {

using namespace mutation;
using Props = std::set<std::string>;

// ---- subjects ------------------------------------------------------------------------

struct Subject {
  std::string name;
  const VariantInfo* variant = nullptr;
  uint64_t p = 0;
  MaterializedSchedule m;
  Claim claim;
  int last() const { return m.num_steps() - 1; }
  StepHook hops() const { return hops_of(*variant, p); }
};

Subject subject(const char* algo, const char* variant, uint64_t p) {
  const AlgorithmInfo* a = find_algorithm(algo);
  if (!a || !a->find_variant(variant)) throw std::logic_error(std::string("no ") + algo + "/" + variant);
  Subject s;
  s.name = std::string(algo) + "/" + variant + " p=" + std::to_string(p);
  s.variant = a->find_variant(variant);
  s.p = p;
  s.m = materialize(*s.variant->make(InstanceParams{p, 0}));
  s.claim = s.variant->claim(InstanceParams{p, 0});
  return s;
}

Subject swing_bw(uint64_t p) { return subject("swing", "bandwidth", p); }
Subject swing_lat(uint64_t p) { return subject("swing", "latency", p); }
Subject rd_bw(uint64_t p) { return subject("recursive-doubling", "bandwidth", p); }
Subject ring(uint64_t p) { return subject("ring", "bandwidth", p); }

std::vector<Subject> all_subjects() { return {swing_bw(8), swing_bw(12), swing_bw(16), swing_lat(8), rd_bw(8), ring(5)}; }
// Subjects with a copy (allgather) phase.
std::vector<Subject> two_phase_subjects() { return {swing_bw(8), swing_bw(12), swing_bw(16), rd_bw(8), ring(5)}; }

// The first step of the allgather phase (copies start there).
int first_copy_step(const MaterializedSchedule& m) {
  for (int s = 0; s < m.num_steps(); ++s)
    for (const auto& rs : m.steps[static_cast<size_t>(s)])
      for (const Transfer& t : rs.sends)
        if (t.combine == Combine::copy) return s;
  throw std::logic_error("schedule has no copies");
}

Block first_block(const BlockSet& b) { return b.ranges().front().lo; }

// The first step >= `from` in which rank r receives block b; -1 if never.
int first_recv_step(const MaterializedSchedule& m, Rank r, Block b, int from) {
  for (int s = from; s < m.num_steps(); ++s)
    for (const Transfer& t : at(m, s, r).recvs)
      if (t.blocks.contains(b)) return s;
  return -1;
}

// Binomial-tree broadcast from rank 0, p = 4, one block: 0->2, then 0->1 and
// 2->3 (the registry has no broadcast yet).
MaterializedSchedule binomial_broadcast4() {
  MaterializedSchedule m;
  m.spec = {Collective::broadcast, 4, 1, 0};
  m.steps.assign(2, std::vector<RankStep>(4));
  add_transfer(m, 0, 0, 2, BlockSet::single(0), Combine::copy);
  add_transfer(m, 1, 0, 1, BlockSet::single(0), Combine::copy);
  add_transfer(m, 1, 2, 3, BlockSet::single(0), Combine::copy);
  return m;
}

// Recursive-doubling allgather, p = 4, block b owned by rank b: step 0
// exchanges own blocks with r^1, step 1 exchanges pairs with r^2.
MaterializedSchedule recursive_doubling_allgather4() {
  MaterializedSchedule m;
  m.spec = {Collective::allgather, 4, 4, 0};
  m.steps.assign(2, std::vector<RankStep>(4));
  for (Rank r = 0; r < 4; ++r) {
    add_transfer(m, 0, r, r ^ 1, BlockSet::single(r), Combine::copy);
    add_transfer(m, 1, r, r ^ 2, BlockSet::range((r / 2) * 2, (r / 2) * 2 + 2), Combine::copy);
  }
  return m;
}

// ---- checking ------------------------------------------------------------------------

struct Both {
  InstanceCheck exact, fp;
};

Both check_both(const Subject& s, const MaterializedSchedule& m, bool with_claim = false) {
  const Claim* c = with_claim ? &s.claim : nullptr;
  return {check(m, {Exactness::exact, c, s.hops()}), check(m, {Exactness::fingerprint, c, s.hops()})};
}

::testing::AssertionResult violates_exactly(const InstanceCheck& ic, const Props& want) {
  Props got = violated(ic);
  if (got == want) return ::testing::AssertionSuccess();
  auto list = [](const Props& ps) {
    std::string s = "{";
    for (const auto& p : ps) s += (s.size() > 1 ? ", " : "") + p;
    return s + "}";
  };
  return ::testing::AssertionFailure() << "mode " << ic.mode << ": violated " << list(got) << ", expected "
                                       << list(want) << "\n"
                                       << describe(ic);
}

const Counterexample& cx(const InstanceCheck& ic, const std::string& property) {
  const Verdict& v = verdict(ic, property);
  if (!v.counterexample) throw std::logic_error(property + " has no counterexample:\n" + describe(ic));
  return *v.counterexample;
}

std::string loc(uint64_t p, Rank rank, int step, std::optional<Block> block, std::optional<Rank> peer) {
  Counterexample c;
  c.p = p;
  c.rank = rank;
  c.step = step;
  c.block = block;
  c.peer = peer;
  return c.location();
}

// Per step, the multiset of sends equals the multiset of receives.
bool balanced(const MaterializedSchedule& m) {
  for (const auto& step : m.steps) {
    std::map<std::string, int> n;
    for (Rank r = 0; r < step.size(); ++r) {
      for (const Transfer& t : step[r].sends)
        n[std::to_string(r) + ">" + std::to_string(t.peer) + t.blocks.to_string() + to_string(t.combine)]++;
      for (const Transfer& t : step[r].recvs)
        n[std::to_string(t.peer) + ">" + std::to_string(r) + t.blocks.to_string() + to_string(t.combine)]--;
    }
    for (const auto& [k, c] : n)
      if (c) return false;
  }
  return true;
}

bool same_steps(const MaterializedSchedule& a, const MaterializedSchedule& b) { return a.steps == b.steps; }

// ---- baseline and the operators themselves ----------------------------------------------

TEST(Baseline, SubjectsHoldBeforeMutation) {
  auto subjects = all_subjects();
  subjects.push_back(swing_lat(12));
  for (const Subject& s : subjects) {
    SCOPED_TRACE(s.name);
    Both r = check_both(s, s.m, /*with_claim=*/true);
    EXPECT_TRUE(violates_exactly(r.exact, {}));
    EXPECT_TRUE(violates_exactly(r.fp, {}));
    EXPECT_EQ(verdict(r.exact, prop::cost).status, Status::holds);
    EXPECT_TRUE(balanced(s.m));
  }
}

TEST(Operators, BothEndOperatorsKeepTheListsBalanced) {
  const Subject s = swing_bw(8);
  const int L = 3;
  auto changed_and_balanced = [&](const MaterializedSchedule& m) {
    EXPECT_FALSE(same_steps(m, s.m)) << "the mutation changed nothing";
    EXPECT_TRUE(balanced(m));
  };
  {
    auto m = s.m;
    Transfer t = drop_transfer(m, 0, 1, 0);
    EXPECT_EQ(t.blocks, BlockSet::from_blocks({0, 3, 4, 7}));
    EXPECT_TRUE(at(m, 0, 1).sends.empty());
    EXPECT_TRUE(at(m, 0, 0).recvs.empty());
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    redirect_transfer(m, 0, 0, 1, 2);
    EXPECT_EQ(send_peer(m, 0, 0), Rank{2});
    EXPECT_EQ(at(m, 0, 2).recvs.size(), 2u);
    EXPECT_EQ(at(m, 0, 1).recvs.size(), 0u);
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    swap_block(m, 2, 0, 3, 3, 5);
    EXPECT_EQ(send_of(m, 2, 0, 3).blocks, BlockSet::single(5));
    EXPECT_EQ(recv_of(m, 2, 0, 3).blocks, BlockSet::single(5));
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    move_transfer(m, L, 3, 0, L - 1);
    EXPECT_EQ(at(m, L - 1, 0).recvs.size(), 2u);
    EXPECT_TRUE(at(m, L, 0).recvs.empty());
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    flip_combine(m, 0, 1, 0);
    EXPECT_EQ(send_of(m, 0, 1, 0).combine, Combine::copy);
    EXPECT_EQ(recv_of(m, 0, 1, 0).combine, Combine::copy);
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    add_block(m, 2, 0, 3, 6);
    EXPECT_EQ(send_of(m, 2, 0, 3).blocks, BlockSet::from_blocks({3, 6}));
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    duplicate_transfer(m, 0, 1, 0, 1, 0);
    EXPECT_EQ(at(m, 1, 1).sends.size(), 2u);
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    swap_partners(m, 0, 0, 1, 3, 2);
    EXPECT_EQ(send_peer(m, 0, 0), Rank{2});
    EXPECT_EQ(recv_peer(m, 0, 0), Rank{2});
    EXPECT_EQ(send_peer(m, 0, 3), Rank{1});
    changed_and_balanced(m);
  }
  {
    auto m = s.m;
    add_transfer(m, m.num_steps(), 0, 1, BlockSet::single(0), Combine::copy);
    EXPECT_EQ(m.num_steps(), s.m.num_steps() + 1);
    changed_and_balanced(m);
  }
}

TEST(Operators, OneEndOperatorsBreakTheBalance) {
  const Subject s = swing_bw(8);
  auto m1 = s.m, m2 = s.m, m3 = s.m, m4 = s.m;
  drop_recv(m1, 0, 1, 0);
  redirect_send_only(m2, 0, 0, 1, 2);
  add_send_only(m3, 0, 0, 2, BlockSet::single(0), Combine::reduce);
  flip_recv_combine_only(m4, 0, 1, 0);
  for (const auto* m : {&m1, &m2, &m3, &m4}) EXPECT_FALSE(balanced(*m));
}

TEST(Operators, MissingTargetsThrowInsteadOfMutatingNothing) {
  const Subject s = swing_bw(8);
  auto m = s.m;
  EXPECT_THROW(drop_transfer(m, 0, 0, 5), std::logic_error);  // 0 does not send to 5 at step 0
  EXPECT_THROW(drop_recv(m, 0, 5, 0), std::logic_error);
  EXPECT_THROW(send_of(m, 99, 0, 1), std::logic_error);
  EXPECT_THROW(send_of(m, 0, 8, 1), std::logic_error);
  EXPECT_THROW(swap_block(m, 2, 0, 3, 4, 5), std::logic_error);  // 0 -> 3 carries {3} only
  EXPECT_THROW(swap_block(m, 2, 0, 3, 3, 3), std::logic_error);
  EXPECT_THROW(add_block(m, 2, 0, 3, 3), std::logic_error);
  EXPECT_TRUE(same_steps(m, s.m));
}

// ---- matching ----------------------------------------------------------------------------

// Rank 0 forgets to receive its first reduce: the sender's message is
// unmatched (the counterexample is at the sender), and the contribution never
// arrives (postcondition). Where an allgather follows, the incomplete result
// (p - 1 contributions) is copied over partial results with fewer: the data
// is wrong, but no copy lowers a count, so causality holds in both modes.
TEST(Matching, OneSidedDropOfAReceive) {
  for (const Subject& s : all_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    const Rank q = recv_peer(m, 0, 0);
    const Transfer t = drop_recv(m, 0, q, 0);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::matching, prop::postcondition}));
      const Counterexample& c = cx(*ic, prop::matching);
      EXPECT_EQ(c.location(), loc(s.p, q, 0, first_block(t.blocks), 0));
      EXPECT_EQ(c.expected, "receive " + t.blocks.to_string() + " reduce at rank 0");
      EXPECT_EQ(c.actual, "none");
      EXPECT_EQ(verdict(*ic, prop::matching).violations, 1u);
      EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
    }
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {" + std::to_string(q) + "}");
    EXPECT_EQ(cx(r.fp, prop::postcondition).actual, std::to_string(s.p - 1) + " contribution(s), fingerprint differs");
    EXPECT_EQ(verdict(r.exact, prop::postcondition).violations, verdict(r.fp, prop::postcondition).violations);
  }
}

// Folded swing latency p = 12: ranks 8..11 are idle in the inner steps, so a
// self-send there disturbs nothing else.
TEST(Matching, SelfSendOnAnIdleRank) {
  const Subject s = swing_lat(12);
  auto m = s.m;
  ASSERT_TRUE(at(m, 1, 9).empty());
  add_self_send(m, 1, 9, BlockSet::single(0), Combine::reduce);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching}));
    const Counterexample& c = cx(*ic, prop::matching);
    EXPECT_EQ(c.location(), "p=12 rank=9 step=1 block=0 peer=9");
    EXPECT_EQ(c.actual, "self-transfer");
    EXPECT_EQ(verdict(*ic, prop::matching).violations, 2u) << "both the send and the receive side";
  }
}

TEST(Matching, SelfSendOnABusyRankAlsoBreaksPortsAndHops) {
  const Subject s = swing_bw(8);
  auto m = s.m;
  add_self_send(m, 3, 0, BlockSet::single(0), Combine::copy);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching, prop::ports, prop::swing_hops}));
    EXPECT_EQ(cx(*ic, prop::matching).location(), "p=8 rank=0 step=3 block=0 peer=0");
    EXPECT_EQ(cx(*ic, prop::ports).location(), "p=8 rank=0 step=3");
    EXPECT_EQ(cx(*ic, prop::swing_hops).actual, "ring distance 0");
  }
}

// Only the sender changes its mind: 0 sends to 15 (also at distance 1, so
// the hop claim still holds) while 1 still waits for 0 and 15 expects nothing.
// Rank 0's contribution to 1's half is lost; the allgather spreads results
// with 15 contributions over smaller partials (no causality violation).
TEST(Matching, RedirectOneEnd) {
  const Subject s = swing_bw(16);
  auto m = s.m;
  redirect_send_only(m, 0, 0, 1, 15);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching, prop::postcondition}));
    const Counterexample& c = cx(*ic, prop::matching);
    EXPECT_EQ(c.location(), "p=16 rank=0 step=0 block=1 peer=15");
    EXPECT_EQ(c.message, "rank 0 sends {1-2,5-6,9-10,13-14} to 15 but the peer lists no matching receive");
    EXPECT_EQ(verdict(*ic, prop::matching).violations, 2u) << "0's send to 15 and 1's receive from 0";
    EXPECT_EQ(cx(*ic, prop::postcondition).location(), "p=16 rank=0 step=7 block=1");
  }
  EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {0}");
  EXPECT_EQ(cx(r.fp, prop::postcondition).actual, "15 contribution(s), fingerprint differs");
}

TEST(Matching, PeerOutOfRange) {
  const Subject s = swing_lat(12);
  auto m = s.m;
  add_send_only(m, 1, 9, 12, BlockSet::single(0), Combine::reduce);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching}));
    const Counterexample& c = cx(*ic, prop::matching);
    EXPECT_EQ(c.location(), "p=12 rank=9 step=1 block=0 peer=12");
    EXPECT_EQ(c.expected, "peer in 0..11");
  }
  auto m2 = s.m;
  at(m2, 2, 10).recvs.push_back({99, BlockSet::single(0), Combine::copy});
  Both r2 = check_both(s, m2);
  EXPECT_TRUE(violates_exactly(r2.exact, {prop::matching}));
  EXPECT_EQ(cx(r2.exact, prop::matching).location(), "p=12 rank=10 step=2 block=0 peer=99");
}

// A transfer naming a block the schedule does not have (nblocks = 1, block
// 1), listed at both ends between ranks idle in that step, in a hand-built
// broadcast wrapped in MaterializedView: matching reports both ends; the
// data flow ignores the block, so nothing else changes.
TEST(Matching, BlockOutOfRange) {
  MaterializedSchedule m = binomial_broadcast4();
  ASSERT_TRUE(at(m, 0, 1).empty() && at(m, 0, 3).empty());
  add_transfer(m, 0, 1, 3, BlockSet::single(1), Combine::copy);
  const MaterializedView view(m);
  ASSERT_EQ(view.spec().nblocks, 1u);
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    InstanceCheck ic = check(view, {mode, nullptr, {}});
    EXPECT_TRUE(violates_exactly(ic, {prop::matching}));
    const Counterexample& c = cx(ic, prop::matching);
    EXPECT_EQ(c.location(), "p=4 rank=1 step=0 block=1 peer=3");
    EXPECT_EQ(c.expected, "blocks in 0..0");
    EXPECT_EQ(c.actual, "{1}");
    EXPECT_EQ(c.message, "transfer names a block that does not exist (nblocks = 1)");
    EXPECT_EQ(verdict(ic, prop::matching).violations, 2u) << "the send and the receive";
  }
  // Partly out of range: the one real block plus one past the end, in the
  // folded swing latency p = 12 (whole-vector exchanges: nblocks = 1),
  // between ranks idle in that step (ring distance 1, as the step claims).
  const Subject s = swing_lat(12);
  auto m2 = s.m;
  ASSERT_EQ(m2.spec.nblocks, 1u);
  ASSERT_TRUE(at(m2, 1, 9).empty() && at(m2, 1, 10).empty());
  add_transfer(m2, 1, 9, 10, BlockSet::range(0, 2), Combine::copy);
  Both r = check_both(s, m2);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching}));
    const Counterexample& c = cx(*ic, prop::matching);
    EXPECT_EQ(c.location(), "p=12 rank=9 step=1 block=0 peer=10");
    EXPECT_EQ(c.expected, "blocks in 0..0");
    EXPECT_EQ(c.actual, "{0-1}");
    EXPECT_EQ(c.message, "transfer names a block that does not exist (nblocks = 1)");
    EXPECT_EQ(verdict(*ic, prop::matching).violations, 2u);
  }
}

TEST(Matching, UnmatchedExtraSendBetweenIdleRanks) {
  const Subject s = swing_lat(12);
  auto m = s.m;
  add_send_only(m, 1, 9, 10, BlockSet::single(0), Combine::reduce);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching}));
    EXPECT_EQ(cx(*ic, prop::matching).location(), "p=12 rank=9 step=1 block=0 peer=10");
    EXPECT_EQ(cx(*ic, prop::matching).actual, "none");
  }
}

// The receiver lists a reduce where the sender lists a copy (one end changed).
TEST(Matching, CombineModesDisagree) {
  const Subject s = ring(5);
  auto m = s.m;
  flip_recv_combine_only(m, 7, 4, 0);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::matching, prop::postcondition}));
    const Counterexample& c = cx(*ic, prop::matching);
    EXPECT_EQ(c.location(), "p=5 rank=0 step=7 block=2 peer=4");
    EXPECT_EQ(c.expected, "send {2} reduce at rank 4");
    EXPECT_EQ(c.actual, "{2} copy");
  }
}

// Regression (properties/matching.cpp): matching used to look for *a*
// counterpart, not a distinct one, so a send listed twice with a single
// receive passed every property once the port budget allowed two sends.
TEST(Matching, DuplicatedSendNeedsItsOwnReceive) {
  const Subject s = swing_bw(8);
  auto m = s.m;
  m.ports = 2;
  const Transfer t = send_of(m, 0, 1, 0);
  add_send_only(m, 0, 1, 0, t.blocks, t.combine);
  Both r = check_both(s, m);
  EXPECT_TRUE(violates_exactly(r.exact, {prop::matching}));
  // Rank 0 lists one receive for the two identical sends of rank 1; the
  // minimal counterexample is the receiver's side.
  EXPECT_EQ(cx(r.exact, prop::matching).location(), "p=8 rank=0 step=0 block=0 peer=1");
  EXPECT_EQ(cx(r.exact, prop::matching).actual, "2");
}

// ---- ports ---------------------------------------------------------------------------------

struct Extra {
  Subject s;
  int step;
  Rank src, dst;
  Block block;
  std::string ports_location, ports_actual;
};

// A copy of a block that both ends already hold final (or receive final in
// the same step): the data flow is unchanged, only the port count grows. For
// Swing the extra peer is rank 0's other neighbour, so the hop claim of the
// last step (distance 1) still holds.
std::vector<Extra> neutral_extras() {
  return {
      {swing_bw(8), 5, 0, 7, 0, "p=8 rank=0 step=5", "2 sends, 1 receives"},
      {swing_bw(12), 7, 0, 11, 0, "p=12 rank=0 step=7", "2 sends, 1 receives"},
      {swing_bw(16), 7, 0, 15, 0, "p=16 rank=0 step=7", "2 sends, 1 receives"},
      {rd_bw(8), 5, 0, 1, 0, "p=8 rank=0 step=5", "2 sends, 1 receives"},
      {ring(5), 7, 4, 0, 0, "p=5 rank=0 step=7", "1 sends, 2 receives"},
  };
}

TEST(Ports, AnExtraTransferExceedsTheOnePortModel) {
  for (const Extra& e : neutral_extras()) {
    SCOPED_TRACE(e.s.name);
    auto m = e.s.m;
    ASSERT_EQ(m.ports, 1);
    add_transfer(m, e.step, e.src, e.dst, BlockSet::single(e.block), Combine::copy);
    Both r = check_both(e.s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::ports}));
      const Counterexample& c = cx(*ic, prop::ports);
      EXPECT_EQ(c.location(), e.ports_location);
      EXPECT_EQ(c.actual, e.ports_actual);
      EXPECT_EQ(c.expected, "<= 1 sends and <= 1 receives");
      EXPECT_EQ(verdict(*ic, prop::ports).violations, 2u) << "the sender sends 2, the receiver receives 2";
    }
  }
}

TEST(Ports, TheBudgetIsTheSchedulesOwn) {
  for (const Extra& e : neutral_extras()) {
    SCOPED_TRACE(e.s.name);
    auto m = e.s.m;
    add_transfer(m, e.step, e.src, e.dst, BlockSet::single(e.block), Combine::copy);
    m.ports = 2;
    Both r = check_both(e.s, m);
    EXPECT_TRUE(violates_exactly(r.exact, {}));
    EXPECT_TRUE(violates_exactly(r.fp, {}));
  }
}

// ---- causality -------------------------------------------------------------------------------

// "Send before receive": at the first allgather step, rank q (rank 0's
// partner there) sends rank 0's result block instead of its own. q receives
// that block only later (swing and recursive doubling: from rank 0 in this
// very step; ring: at the last step), so what it sends is its own partial,
// and that partial overwrites rank 0's complete result: fewer contributions
// than the receiver holds, causality at the mutated transfer, the same
// verdict and text in both modes. Rank 0's result is lost (postcondition).
TEST(Causality, SendBeforeReceive) {
  struct Case {
    Subject s;
    std::string discard;       // causality actual, both modes
    Block lost_block;          // minimal postcondition block at rank 0
    std::string exact_missing; // exact postcondition actual
    uint64_t fp_count;         // contributions in that block at the end
    uint64_t causality_violations;
  };
  std::vector<Case> cases = {
      {swing_bw(8), "would discard 4 contribution(s) (holds 8, copy has 4)", 0, "missing ranks {0,1,6,7}", 4, 1},
      {swing_bw(12), "would discard 6 contribution(s) (holds 12, copy has 6)", 0, "missing ranks {0,1,2,3,10,11}", 6, 1},
      {swing_bw(16), "would discard 8 contribution(s) (holds 16, copy has 8)", 0, "missing ranks {0,1,2,3,4,5,14,15}",
       8, 1},
      {rd_bw(8), "would discard 4 contribution(s) (holds 8, copy has 4)", 0, "missing ranks {0,2,4,6}", 4, 1},
      // Ring: rank 0's result is block 1. Its block 0 never arrives, and its
      // stale {0} travels on around the ring at steps 5, 6 and 7, each time
      // over a larger partial (ranks 1, 2, 3 hold 2, 3, 4 contributions):
      // three more violations.
      {ring(5), "would discard 1 contribution(s) (holds 5, copy has 4)", 0, "missing ranks {1,2,3,4}", 1, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.s.name);
    auto m = c.s.m;
    const int ag = first_copy_step(m);
    const Rank q = recv_peer(m, ag, 0);
    const Transfer in = send_of(m, ag, q, 0);
    ASSERT_EQ(in.blocks.size(), 1u);
    const Block z = first_block(send_of(m, ag, 0, send_peer(m, ag, 0)).blocks);  // rank 0's result
    const int q_gets_z = first_recv_step(m, q, z, ag);
    ASSERT_GE(q_gets_z, ag) << "q receives block " << z << " in or after the step it now sends it";
    swap_block(m, ag, q, 0, first_block(in.blocks), z);
    Both r = check_both(c.s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::causality, prop::postcondition}));
      const Counterexample& e = cx(*ic, prop::causality);
      EXPECT_EQ(e.location(), loc(c.s.p, 0, ag, z, q));
      EXPECT_EQ(e.expected, "copied value has at least as many contributions as the receiver holds");
      EXPECT_EQ(e.actual, c.discard);
      EXPECT_EQ(e.message, "copy from rank " + std::to_string(q) +
                               " overwrites contributions the receiver already holds (sent before it was complete)");
      EXPECT_EQ(verdict(*ic, prop::causality).violations, c.causality_violations);
      EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(c.s.p, 0, c.s.last(), c.lost_block, {}));
    }
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, c.exact_missing);
    EXPECT_EQ(cx(r.fp, prop::postcondition).actual, std::to_string(c.fp_count) + " contribution(s), fingerprint differs");
  }
}

// The first allgather copy into rank 0 moved one step earlier, before its
// sender has the final block. In swing and recursive doubling the sender's
// partial then has as many contributions as the stale partial rank 0 holds
// of that block (the two partials the last reduce-scatter step combines), so
// the copy swaps equal-sized values: not a causality violation in either
// mode. The final block never arrives (postcondition). In the ring the moved
// copy also swaps equal sizes (rank 4's {4} over rank 0's {0}), but rank 0
// forwards the wrong value at step 5, over rank 1's two contributions:
// causality catches that forward, not the moved copy.
TEST(Causality, SendBeforeReceiveOfAnEqualSizedPartialIsLeftToThePostcondition) {
  struct Case {
    Subject s;
    std::string exact_missing;
    uint64_t fp_count;
    std::string causality_location;  // empty: causality holds
  };
  std::vector<Case> cases = {
      {swing_bw(8), "missing ranks {0,1,6,7}", 4, ""},
      {swing_bw(12), "missing ranks {0,1,2,3,10,11}", 6, ""},
      {swing_bw(16), "missing ranks {0,1,2,3,4,5,14,15}", 8, ""},
      {rd_bw(8), "missing ranks {0,2,4,6}", 4, ""},
      {ring(5), "missing ranks {0,1,2,3}", 1, "p=5 rank=1 step=5 block=0 peer=0"},
  };
  for (const Case& c : cases) {
    for (int ports : {1, 2}) {
      SCOPED_TRACE(c.s.name + " ports=" + std::to_string(ports));
      auto m = c.s.m;
      m.ports = ports;
      const int ag = first_copy_step(m);
      const Rank q = recv_peer(m, ag, 0);
      const Transfer t = send_of(m, ag, q, 0);
      move_transfer(m, ag, q, 0, ag - 1);
      Both r = check_both(c.s, m);
      Props want = {prop::postcondition};
      if (ports == 1) want.insert(prop::ports);  // the moved copy shares a step with a reduce
      if (!c.causality_location.empty()) want.insert(prop::causality);
      for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
        EXPECT_TRUE(violates_exactly(*ic, want));
        EXPECT_GT(verdict(*ic, prop::causality).checks, 0u);
        EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(c.s.p, 0, c.s.last(), first_block(t.blocks), {}));
        if (!c.causality_location.empty()) {
          EXPECT_EQ(cx(*ic, prop::causality).location(), c.causality_location);
          EXPECT_EQ(cx(*ic, prop::causality).actual, "would discard 1 contribution(s) (holds 2, copy has 1)");
        }
      }
      EXPECT_EQ(cx(r.exact, prop::postcondition).actual, c.exact_missing);
      EXPECT_EQ(cx(r.fp, prop::postcondition).actual, std::to_string(c.fp_count) + " contribution(s), fingerprint differs");
    }
  }
}

// In an allreduce every rank holds its own contribution to every block, so a
// premature send is never empty. A broadcast shows the other half of
// causality: rank 2 forwards block 0 in the step it receives it, i.e. before
// it holds anything.
TEST(Causality, SendBeforeReceiveInABroadcast) {
  MaterializedSchedule m = binomial_broadcast4();
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint})
    ASSERT_TRUE(violates_exactly(check(m, {mode, nullptr, {}}), {})) << "the unmutated broadcast is correct";
  move_transfer(m, 1, 2, 3, 0);
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    InstanceCheck ic = check(m, {mode, nullptr, {}});
    EXPECT_TRUE(violates_exactly(ic, {prop::causality, prop::postcondition}));
    const Counterexample& c = cx(ic, prop::causality);
    EXPECT_EQ(c.location(), "p=4 rank=2 step=0 block=0 peer=3");
    EXPECT_EQ(c.message, "rank sends a block it does not hold yet");
    EXPECT_EQ(c.expected, "sender holds block 0 before the step");
    EXPECT_EQ(c.actual, "sender holds no contribution to it");
    EXPECT_EQ(cx(ic, prop::postcondition).location(), "p=4 rank=3 step=1 block=0");
  }
}

// The same check for a send nobody receives (a matching violation too): the
// sender must still hold what it sends. Two paths: rank 3 sends at step 0
// while no rank both sends and receives a block in that step (receives read
// the senders' state directly), and rank 2 sends block 0 in the step it
// receives it (every send is snapshotted first). Both ends listed, on the
// direct path, for comparison: causality alone.
TEST(Causality, UnreceivedSendOfABlockTheSenderDoesNotHold) {
  struct Case {
    std::string name;
    Rank src, dst;
    bool both_ends;
    std::string location;
  };
  std::vector<Case> cases = {
      {"direct, one end", 3, 1, false, "p=4 rank=3 step=0 block=0 peer=1"},
      {"snapshot, one end", 2, 3, false, "p=4 rank=2 step=0 block=0 peer=3"},
      {"direct, both ends", 3, 1, true, "p=4 rank=3 step=0 block=0 peer=1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MaterializedSchedule m = binomial_broadcast4();
    if (c.both_ends)
      add_transfer(m, 0, c.src, c.dst, BlockSet::single(0), Combine::copy);
    else
      add_send_only(m, 0, c.src, c.dst, BlockSet::single(0), Combine::copy);
    for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
      InstanceCheck ic = check(m, {mode, nullptr, {}});
      EXPECT_TRUE(violates_exactly(ic, c.both_ends ? Props{prop::causality} : Props{prop::matching, prop::causality}));
      const Counterexample& e = cx(ic, prop::causality);
      EXPECT_EQ(e.location(), c.location);
      EXPECT_EQ(e.message, "rank sends a block it does not hold yet");
      EXPECT_EQ(verdict(ic, prop::causality).violations, 1u);
      if (!c.both_ends) {
        EXPECT_EQ(cx(ic, prop::matching).location(), c.location);
        EXPECT_EQ(cx(ic, prop::matching).actual, "none");
      }
    }
  }
}

// Rule (d): a reduce needs a defined value at the receiver. In a broadcast
// (and an allgather) buffers are undefined until received; a reduce instead
// of a copy combines rank 0's block with garbage. The value that results
// happens to be right, so only causality can tell, in both modes alike.
TEST(Causality, ReduceIntoAnUndefinedBlock) {
  {
    MaterializedSchedule m = binomial_broadcast4();
    flip_combine(m, 0, 0, 2);
    for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
      InstanceCheck ic = check(m, {mode, nullptr, {}});
      EXPECT_TRUE(violates_exactly(ic, {prop::causality}));
      const Counterexample& c = cx(ic, prop::causality);
      EXPECT_EQ(c.location(), "p=4 rank=2 step=0 block=0 peer=0");
      EXPECT_EQ(c.expected, "receiver holds block 0 before reducing into it");
      EXPECT_EQ(c.actual, "receiver holds no value (undefined buffer)");
      EXPECT_EQ(c.message, "reduce from rank 0 combines with a block the receiver never received");
      EXPECT_EQ(verdict(ic, prop::causality).violations, 1u);
    }
  }
  {
    // Every transfer a reduce: ranks 2, then 1 and 3, each reduce into
    // nothing; the first in time is rank 2's, at step 0.
    MaterializedSchedule m = binomial_broadcast4();
    flip_combine(m, 0, 0, 2);
    flip_combine(m, 1, 0, 1);
    flip_combine(m, 1, 2, 3);
    for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
      InstanceCheck ic = check(m, {mode, nullptr, {}});
      EXPECT_TRUE(violates_exactly(ic, {prop::causality}));
      EXPECT_EQ(cx(ic, prop::causality).location(), "p=4 rank=2 step=0 block=0 peer=0");
      EXPECT_EQ(verdict(ic, prop::causality).violations, 3u);
    }
  }
  {
    // Allgather: at step 1 rank 0 reduces {2,3} from rank 2 into blocks it
    // does not have yet (rank 0 holds blocks 0 and 1 only).
    MaterializedSchedule m = recursive_doubling_allgather4();
    for (Exactness mode : {Exactness::exact, Exactness::fingerprint})
      ASSERT_TRUE(violates_exactly(check(m, {mode, nullptr, {}}), {})) << "the unmutated allgather is correct";
    flip_combine(m, 1, 2, 0);
    for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
      InstanceCheck ic = check(m, {mode, nullptr, {}});
      EXPECT_TRUE(violates_exactly(ic, {prop::causality}));
      const Counterexample& c = cx(ic, prop::causality);
      EXPECT_EQ(c.location(), "p=4 rank=0 step=1 block=2 peer=2");
      EXPECT_EQ(c.expected, "receiver holds block 2 before reducing into it");
      EXPECT_EQ(verdict(ic, prop::causality).violations, 2u) << "blocks 2 and 3";
    }
  }
  {
    // A reduce into a block the receiver does hold is no causality
    // violation: rank 1 (holding block 0 since step 0) reduces it into rank
    // 0's block 0 at step 1. Rank 0's contribution is counted twice instead:
    // exactly-once and postcondition.
    MaterializedSchedule m = recursive_doubling_allgather4();
    m.ports = 2;
    add_transfer(m, 1, 1, 0, BlockSet::single(0), Combine::reduce);
    for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
      InstanceCheck ic = check(m, {mode, nullptr, {}});
      EXPECT_TRUE(violates_exactly(ic, {prop::exactly_once, prop::postcondition}));
      EXPECT_EQ(cx(ic, prop::postcondition).location(), "p=4 rank=0 step=1 block=0");
    }
    EXPECT_EQ(cx(check(m, {Exactness::exact, nullptr, {}}), prop::exactly_once).location(),
              "p=4 rank=0 step=1 block=0 peer=1");
    EXPECT_EQ(cx(check(m, {Exactness::exact, nullptr, {}}), prop::postcondition).actual,
              "some contribution counted more than once");
  }
}

// A premature extra copy that carries fewer contributions than the receiver
// holds, repaired by the correct copy later: the final values are right, so
// only causality can tell, and it does in both modes alike. Ring p = 5: rank
// 0 copies block 0 to rank 1 at step e (as well as at step 5); until step 4
// rank 0 holds only its own contribution to it, rank 1 two.
TEST(Causality, EarlyDuplicateOfACopyIsCaughtByCausalityAlone) {
  const Subject s = ring(5);
  {
    auto m = s.m;
    ASSERT_EQ(send_of(m, 5, 0, 1).blocks, BlockSet::single(0));
  }
  for (int e = 1; e <= 4; ++e) {
    SCOPED_TRACE("duplicate at step " + std::to_string(e));
    auto m = s.m;
    m.ports = 2;
    duplicate_transfer(m, 5, 0, 1, e, 1);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::causality}));
      const Counterexample& c = cx(*ic, prop::causality);
      EXPECT_EQ(c.location(), loc(5, 1, e, 0, 0));
      EXPECT_EQ(c.actual, "would discard 1 contribution(s) (holds 2, copy has 1)");
      EXPECT_EQ(verdict(*ic, prop::causality).violations, 1u);
    }
  }
}

// The same premature copy as in
// SendBeforeReceiveOfAnEqualSizedPartialIsLeftToThePostcondition, but as an
// extra copy, with the correct copy still following: the early copy swaps equal-sized
// partial results and the final values are right, so no property fails, in
// either mode. (Pinned on purpose: an equal-sized swap is not a causality
// violation.)
TEST(Causality, EarlyDuplicateOfAnEqualSizedCopyPassesEveryProperty) {
  for (const Subject& s : two_phase_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    m.ports = 2;
    const int ag = first_copy_step(m);
    const Rank q = recv_peer(m, ag, 0);
    duplicate_transfer(m, ag, q, 0, ag - 1, 0);
    ASSERT_FALSE(same_steps(m, s.m));
    Both r = check_both(s, m);
    EXPECT_TRUE(violates_exactly(r.exact, {}));
    EXPECT_TRUE(violates_exactly(r.fp, {}));
  }
}

// Where the premature copy has fewer contributions than the receiver holds,
// fingerprint mode sees it too, with the very same counterexample.
TEST(Causality, FingerprintSeesACopyWithFewerContributions) {
  const Subject s = ring(5);
  auto m = s.m;
  m.ports = 2;
  duplicate_transfer(m, 5, 4, 0, 4, 0);  // block 4, final at rank 4 only after step 4
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::causality}));
    const Counterexample& c = cx(*ic, prop::causality);
    EXPECT_EQ(c.location(), "p=5 rank=0 step=4 block=4 peer=4");
    EXPECT_EQ(c.expected, "copied value has at least as many contributions as the receiver holds");
    EXPECT_EQ(c.actual, "would discard 1 contribution(s) (holds 2, copy has 1)");
  }
  EXPECT_EQ(cx(r.exact, prop::causality).message, cx(r.fp, prop::causality).message);
}

// "Copy of incomplete data": a reduce into rank 0 becomes a copy (both ends)
// where the sender's partial is smaller than rank 0's. The de-duplicated
// swing p = 12 schedule has one: at step 2 rank 0 holds {0,1,10,11} of block
// 0, rank 3 only {2,3} (it got block 0 at step 0 and not at step 1).
TEST(Causality, CopyOfIncompleteData) {
  const Subject s = swing_bw(12);
  auto m = s.m;
  ASSERT_EQ(recv_peer(m, 2, 0), Rank{3});
  ASSERT_EQ(send_of(m, 2, 3, 0).blocks, BlockSet::from_blocks({0, 7}));
  flip_combine(m, 2, 3, 0);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::causality, prop::postcondition}));
    const Counterexample& c = cx(*ic, prop::causality);
    EXPECT_EQ(c.location(), "p=12 rank=0 step=2 block=0 peer=3");
    EXPECT_EQ(c.actual, "would discard 2 contribution(s) (holds 4, copy has 2)");
    EXPECT_EQ(cx(*ic, prop::postcondition).location(), "p=12 rank=0 step=7 block=0");
  }
  EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {0,1,10,11}");
  EXPECT_EQ(cx(r.fp, prop::postcondition).actual, "8 contribution(s), fingerprint differs");
}

// Rank 0's first reduce becomes a copy (both ends): rank 0's own
// contribution is replaced by the peer's, one contribution by one. An
// equal-sized swap: not a causality violation in either mode; the lost
// contribution shows in the postcondition.
TEST(Causality, ReduceTurnedIntoAnEqualSizedCopyIsLeftToThePostcondition) {
  for (const Subject& s : all_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    const Rank q = recv_peer(m, 0, 0);
    const Transfer t = send_of(m, 0, q, 0);
    flip_combine(m, 0, q, 0);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::postcondition}));
      EXPECT_GT(verdict(*ic, prop::causality).checks, 0u);
      EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
    }
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {0}");
    EXPECT_EQ(cx(r.fp, prop::postcondition).actual, std::to_string(s.p - 1) + " contribution(s), fingerprint differs");
  }
}

// ---- exactly-once ----------------------------------------------------------------------------

// The last allgather copy into rank 0 becomes a reduce: rank 0 adds the final
// block to the partial block it still holds, counting itself twice. The
// doubled value is rank 0's final value: postcondition in both modes.
TEST(ExactlyOnce, CopyTurnedIntoReduceCountsTwice) {
  for (const Subject& s : two_phase_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    const Rank q = recv_peer(m, s.last(), 0);
    const Transfer t = send_of(m, s.last(), q, 0);
    ASSERT_EQ(t.combine, Combine::copy);
    flip_combine(m, s.last(), q, 0);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::exactly_once, prop::postcondition}));
      EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
    }
    const Counterexample& e = cx(r.exact, prop::exactly_once);
    EXPECT_EQ(e.location(), loc(s.p, 0, s.last(), first_block(t.blocks), q));
    EXPECT_EQ(e.expected, "contribution of rank 0 at most once");
    EXPECT_EQ(e.actual, "twice (already held, and again from rank " + std::to_string(q) + ")");
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "some contribution counted more than once");
    // Fingerprint: the final value has too many contributions.
    const Counterexample& f = cx(r.fp, prop::exactly_once);
    EXPECT_EQ(f.location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
    EXPECT_EQ(f.message, "some contribution was combined more than once");
    EXPECT_EQ(verdict(r.exact, prop::postcondition).violations, verdict(r.fp, prop::postcondition).violations);
  }
}

// A reduce transfer listed twice at both ends in the same step: the receiver
// adds the sender's contribution twice, and the double count reaches rank
// 0's final value.
TEST(ExactlyOnce, DuplicateReduceInTheSameStep) {
  for (const Subject& s : {swing_bw(8), swing_lat(8), rd_bw(8), ring(5)}) {
    for (int ports : {1, 2}) {
      SCOPED_TRACE(s.name + " ports=" + std::to_string(ports));
      auto m = s.m;
      m.ports = ports;
      const Rank q = recv_peer(m, 0, 0);
      const Transfer t = send_of(m, 0, q, 0);
      duplicate_transfer(m, 0, q, 0, 0, 0);
      Both r = check_both(s, m);
      Props want = {prop::exactly_once, prop::postcondition};
      if (ports == 1) want.insert(prop::ports);
      for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
        EXPECT_TRUE(violates_exactly(*ic, want));
        EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
      }
      const Counterexample& e = cx(r.exact, prop::exactly_once);
      EXPECT_EQ(e.location(), loc(s.p, 0, 0, first_block(t.blocks), q));
      EXPECT_EQ(e.expected, "contribution of rank " + std::to_string(q) + " at most once");
      EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "some contribution counted more than once");
      const Counterexample& f = cx(r.fp, prop::exactly_once);
      EXPECT_EQ(f.actual, std::to_string(s.p + 1) + " contributions, fingerprint differs");
      EXPECT_EQ(f.rank, Rank{0});
      EXPECT_EQ(cx(r.fp, prop::postcondition).actual, std::to_string(s.p + 1) + " contribution(s), fingerprint differs");
    }
  }
}

// The same data sent again one step later to the same peer (hop distance of
// step 1 is also 1, so only the data flow is wrong).
TEST(ExactlyOnce, DuplicateReduceIntoALaterStep) {
  const Subject s = swing_bw(16);
  auto m = s.m;
  m.ports = 2;
  duplicate_transfer(m, 0, 1, 0, 1, 0);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::exactly_once, prop::postcondition}));
    EXPECT_EQ(cx(*ic, prop::postcondition).location(), "p=16 rank=0 step=7 block=0");
  }
  EXPECT_EQ(cx(r.exact, prop::exactly_once).location(), "p=16 rank=0 step=1 block=0 peer=1");
  EXPECT_EQ(cx(r.exact, prop::exactly_once).expected, "contribution of rank 1 at most once");
  EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "some contribution counted more than once");
  EXPECT_EQ(cx(r.fp, prop::exactly_once).location(), "p=16 rank=0 step=7 block=0");
  EXPECT_EQ(cx(r.fp, prop::exactly_once).actual, "17 contributions, fingerprint differs");
  EXPECT_EQ(cx(r.fp, prop::postcondition).actual, "17 contribution(s), fingerprint differs");
}

// Ring p = 5, step 1: rank 4 sends block 4 (already sent at step 0) instead
// of block 3. Rank 0 adds rank 4's contribution to block 4 a second time
// (exactly-once, exact mode, at the reduce) and block 3 misses 3 and 4
// (postcondition). The doubled cell is dead: rank 0 forwards block 4 in that
// same step (sends read the state before it) and the final copy overwrites
// it, so the double count reaches no final value: both modes judge the same
// final values (postcondition, loss only), and fingerprint mode, which sees
// double counts only there, misses it. The copies of the incomplete block 3
// (3 contributions) never lower a count: no causality violation.
TEST(ExactlyOnce, SwapABlockResendsOneAndLosesAnother) {
  const Subject s = ring(5);
  auto m = s.m;
  ASSERT_EQ(send_of(m, 1, 4, 0).blocks, BlockSet::single(3));
  swap_block(m, 1, 4, 0, 3, 4);
  Both r = check_both(s, m);
  EXPECT_TRUE(violates_exactly(r.exact, {prop::exactly_once, prop::postcondition}));
  EXPECT_EQ(cx(r.exact, prop::exactly_once).location(), "p=5 rank=0 step=1 block=4 peer=4");
  EXPECT_EQ(cx(r.exact, prop::exactly_once).expected, "contribution of rank 4 at most once");
  EXPECT_EQ(verdict(r.exact, prop::exactly_once).violations, 1u);
  EXPECT_EQ(cx(r.exact, prop::postcondition).location(), "p=5 rank=0 step=7 block=3");
  EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {3,4}");
  EXPECT_TRUE(violates_exactly(r.fp, {prop::postcondition}));
  EXPECT_EQ(cx(r.fp, prop::postcondition).location(), "p=5 rank=0 step=7 block=3");
  EXPECT_EQ(cx(r.fp, prop::postcondition).actual, "3 contribution(s), fingerprint differs");
  EXPECT_EQ(verdict(r.exact, prop::postcondition).violations, 5u) << "block 3 at every rank";
  EXPECT_EQ(verdict(r.fp, prop::postcondition).violations, 5u);
}

// Swing latency p = 8, last step re-paired (0,3),(6,1) -> (0,1),(6,3): rank 0
// holds {0,1,6,7} and receives {0,1,2,3}: 0 and 1 twice, 4 and 5 missing,
// 8 contributions in all. Only the weighted sum can tell in fingerprint mode;
// exact mode's postcondition names both defects.
TEST(ExactlyOnce, FingerprintSeesOneDoubleAndOneMissingWithTheRightCount) {
  const Subject s = swing_lat(8);
  auto m = s.m;
  swap_partners(m, 2, 0, 3, 6, 1);
  Both r = check_both(s, m);
  EXPECT_TRUE(violates_exactly(r.exact, {prop::exactly_once, prop::postcondition, prop::swing_hops}));
  EXPECT_EQ(cx(r.exact, prop::exactly_once).location(), "p=8 rank=0 step=2 block=0 peer=1");
  EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {4,5}; some contribution counted more than once");
  EXPECT_TRUE(violates_exactly(r.fp, {prop::exactly_once, prop::postcondition, prop::swing_hops}));
  const Counterexample& f = cx(r.fp, prop::exactly_once);
  EXPECT_EQ(f.location(), "p=8 rank=0 step=2 block=0");
  EXPECT_EQ(f.actual, "8 contributions, fingerprint differs");
  EXPECT_EQ(f.message, "one contribution counted twice while another is missing");
  EXPECT_EQ(cx(r.fp, prop::postcondition).actual, "8 contribution(s), fingerprint differs");
}

// ---- postcondition -------------------------------------------------------------------------------

// The last transfer into rank 0 is dropped at both ends: matching holds,
// nothing is forwarded afterwards, so only the result is wrong.
TEST(Postcondition, DropTheLastTransferAtBothEnds) {
  for (const Subject& s : all_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    const Rank q = recv_peer(m, s.last(), 0);
    const Transfer t = drop_transfer(m, s.last(), q, 0);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::postcondition}));
      EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
    }
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual.rfind("missing ranks {", 0), 0u);
    EXPECT_EQ(cx(r.fp, prop::postcondition).expected, "all " + std::to_string(s.p) + " contributions (fingerprint)");
  }
  // Two spelled out.
  {
    const Subject s = swing_lat(8);
    auto m = s.m;
    drop_transfer(m, 2, 3, 0);
    Both r = check_both(s, m);
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {2,3,4,5}");
    EXPECT_EQ(cx(r.fp, prop::postcondition).actual, "4 contribution(s), fingerprint differs");
  }
  {
    const Subject s = ring(5);
    auto m = s.m;
    drop_transfer(m, 7, 4, 0);
    Both r = check_both(s, m);
    EXPECT_EQ(cx(r.exact, prop::postcondition).location(), "p=5 rank=0 step=7 block=2");
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {1}");
  }
}

// Dropping the first reduce into rank 0 (both ends) loses one contribution;
// both modes see it missing from rank 0's result. The allgather then copies
// the incomplete result (p - 1 contributions) over smaller partials: no copy
// lowers a count, so causality holds.
TEST(Postcondition, DropTheFirstTransferAtBothEndsLosesAContribution) {
  for (const Subject& s : all_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    const Rank q = recv_peer(m, 0, 0);
    const Transfer t = drop_transfer(m, 0, q, 0);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::postcondition}));
      EXPECT_EQ(cx(*ic, prop::postcondition).location(), loc(s.p, 0, s.last(), first_block(t.blocks), {}));
    }
    EXPECT_EQ(cx(r.exact, prop::postcondition).actual, "missing ranks {" + std::to_string(q) + "}");
    EXPECT_EQ(cx(r.fp, prop::postcondition).actual, std::to_string(s.p - 1) + " contribution(s), fingerprint differs");
    EXPECT_EQ(verdict(r.exact, prop::postcondition).violations, verdict(r.fp, prop::postcondition).violations);
  }
}

// ---- cost ------------------------------------------------------------------------------------------

// A step's worth of extra traffic at the end (each rank copies block 0, final
// everywhere by then, to its last-step peer): the result is still right, the
// original claim is not.
TEST(Cost, AnExtraStepOfTrafficBreaksTheClaim) {
  for (const Subject& s : all_subjects()) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    const int extra = m.num_steps();
    for (Rank r = 0; r < s.p; ++r) add_transfer(m, extra, r, send_peer(m, s.last(), r), BlockSet::single(0), Combine::copy);
    Both r = check_both(s, m, /*with_claim=*/true);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::cost}));
      const Verdict& v = verdict(*ic, prop::cost);
      EXPECT_EQ(v.violations, 2u) << "steps and volume";
      const Counterexample& c = *v.counterexample;  // the step count: no rank, sorts first
      EXPECT_FALSE(c.rank.has_value());
      EXPECT_EQ(c.expected.rfind(std::to_string(s.claim.steps) + " steps (" + s.claim.steps_formula, 0), 0u) << c.expected;
      EXPECT_EQ(c.actual, std::to_string(s.claim.steps + 1) + " steps");
      EXPECT_EQ(v.stats.at("measured_steps"), std::to_string(s.claim.steps + 1));
      EXPECT_EQ(v.stats.at("measured_volume_blocks"), std::to_string(s.claim.volume_blocks + 1));
    }
  }
}

TEST(Cost, ExtraVolumeInAnExistingStep) {
  const Subject s = ring(5);
  auto m = s.m;
  add_block(m, 7, 4, 0, 0);  // block 0 is final at both ranks already
  Both r = check_both(s, m, /*with_claim=*/true);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::cost}));
    const Counterexample& c = cx(*ic, prop::cost);
    EXPECT_EQ(c.location(), "p=5 rank=4");
    EXPECT_EQ(c.expected.rfind("8 blocks (2(p-1) blocks of n/p", 0), 0u) << c.expected;
    EXPECT_EQ(c.actual, "9 blocks");
    EXPECT_EQ(c.message, "per-rank volume differs from the claim");
  }
}

// ---- swing hop distance ----------------------------------------------------------------------------

// Swing latency p = 8: before the last step ranks 0 and 7 hold the same
// contributions {0,1,6,7}, and 3 and 4 hold {2,3,4,5}. Re-pairing
// (0,3),(7,4) as (0,4),(7,3) keeps the result exact but talks at distance 4
// where Swing's step 2 claims delta(2) = 3.
TEST(SwingHops, RepairingLatencyAtTheWrongDistance) {
  const Subject s = swing_lat(8);
  auto m = s.m;
  swap_partners(m, 2, 0, 3, 7, 4);
  ASSERT_TRUE(balanced(m));
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::swing_hops}));
    const Counterexample& c = cx(*ic, prop::swing_hops);
    EXPECT_EQ(c.location(), "p=8 rank=0 step=2 peer=4");
    EXPECT_EQ(c.expected, "ring distance 3");
    EXPECT_EQ(c.actual, "ring distance 4");
    EXPECT_EQ(verdict(*ic, prop::swing_hops).violations, 8u) << "4 ranks, a send and a receive each";
  }
}

// Swing bandwidth, step 0: every rank holds only its own data, so re-pairing
// (0,1),(3,2) as (0,2),(3,1) keeps the result exact, at distance 2, not 1.
TEST(SwingHops, RepairingBandwidthAtTheWrongDistance) {
  for (const Subject& s : {swing_bw(8), swing_bw(12), swing_bw(16)}) {
    SCOPED_TRACE(s.name);
    auto m = s.m;
    swap_partners(m, 0, 0, 1, 3, 2);
    Both r = check_both(s, m);
    for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
      EXPECT_TRUE(violates_exactly(*ic, {prop::swing_hops}));
      const Counterexample& c = cx(*ic, prop::swing_hops);
      EXPECT_EQ(c.location(), loc(s.p, 0, 0, {}, 2));
      EXPECT_EQ(c.expected, "ring distance 1");
      EXPECT_EQ(c.actual, "ring distance 2");
    }
  }
}

// One transfer redirected at both ends to a peer at the wrong distance:
// the hop claim and the receiver's port budget break; the data still adds up.
TEST(SwingHops, RedirectOneTransferAtBothEnds) {
  const Subject s = swing_bw(16);
  auto m = s.m;
  redirect_transfer(m, 0, 0, 1, 2);
  Both r = check_both(s, m);
  for (const InstanceCheck* ic : {&r.exact, &r.fp}) {
    EXPECT_TRUE(violates_exactly(*ic, {prop::swing_hops, prop::ports}));
    EXPECT_EQ(cx(*ic, prop::swing_hops).location(), "p=16 rank=0 step=0 peer=2");
    EXPECT_EQ(cx(*ic, prop::swing_hops).actual, "ring distance 2");
    EXPECT_EQ(cx(*ic, prop::ports).location(), "p=16 rank=2 step=0");
    EXPECT_EQ(cx(*ic, prop::ports).actual, "1 sends, 2 receives");
  }
}

// ---- races ----------------------------------------------------------------------------------------------

// Regression (properties/causality.cpp): receives of one step used to be
// applied in the order the receiver lists them. With 2 ports, rank 1 of swing
// latency p = 8 receiving at step 1 both its reduce from 2 and an extra copy
// of {0,1} from 0 is a write race on block 0: listed after the reduce the copy
// discarded rank 2's and 3's contributions (caught), listed before it, every
// property held. The verdict must not depend on list order: receives are now
// applied in a canonical order and causality flags the race itself.
TEST(Races, CopyAndReduceIntoOneBlockInOneStepIsOrderIndependent) {
  const Subject s = swing_lat(8);
  std::vector<Props> verdicts;
  for (bool copy_first : {false, true}) {
    auto m = s.m;
    m.ports = 2;
    add_transfer(m, 1, 0, 1, BlockSet::single(0), Combine::copy);
    auto& recvs = at(m, 1, 1).recvs;
    if (copy_first) std::swap(recvs.front(), recvs.back());
    verdicts.push_back(violated(check(m, {Exactness::exact, nullptr, s.hops()})));
  }
  EXPECT_FALSE(verdicts[0].empty());
  EXPECT_EQ(verdicts[0], verdicts[1]);
}

}  // namespace
}  // namespace collcheck
