#pragma once
// Mutation operators for materialized schedules, and small helpers to run the
// property checker on the result. Header-only (everything inline) so that any
// test executable can include it without a library of its own.
//
// A mutation takes a MaterializedSchedule (materialize(*schedule)) and edits
// it in place; wrap the result back into the lazy interface with
// MaterializedView to check it. Every operator names the transfer it edits by
// (step, src, dst) and throws std::logic_error if that transfer does not
// exist: a mutation that silently mutates nothing would make a test pass
// that proves nothing.
//
// "Both ends" operators keep the two lists consistent (the sender's `sends`
// and the receiver's `recvs`), so the matching property still holds and only
// the data flow changes. "One end" operators deliberately break matching.
#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::mutation {

// ---- locating transfers ------------------------------------------------------

inline RankStep& at(MaterializedSchedule& m, int step, Rank r) {
  if (step < 0 || step >= m.num_steps()) throw std::logic_error("mutation: no step " + std::to_string(step));
  auto& ranks = m.steps[static_cast<size_t>(step)];
  if (r >= ranks.size()) throw std::logic_error("mutation: no rank " + std::to_string(r));
  return ranks[r];
}

inline const RankStep& at(const MaterializedSchedule& m, int step, Rank r) {
  return at(const_cast<MaterializedSchedule&>(m), step, r);
}

inline std::string where(int step, Rank src, Rank dst) {
  return "step " + std::to_string(step) + " " + std::to_string(src) + "->" + std::to_string(dst);
}

// Index of the (first) transfer with that peer in `list`; throws if none.
inline size_t index_of(const std::vector<Transfer>& list, Rank peer, const std::string& what) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].peer == peer) return i;
  throw std::logic_error("mutation: no " + what);
}

inline Transfer& send_of(MaterializedSchedule& m, int step, Rank src, Rank dst) {
  auto& l = at(m, step, src).sends;
  return l[index_of(l, dst, "send at " + where(step, src, dst))];
}

inline Transfer& recv_of(MaterializedSchedule& m, int step, Rank src, Rank dst) {
  auto& l = at(m, step, dst).recvs;
  return l[index_of(l, src, "receive at " + where(step, src, dst))];
}

// The peer rank r sends to at `step` (its first send); throws if r is idle.
inline Rank send_peer(const MaterializedSchedule& m, int step, Rank r) {
  const auto& l = at(m, step, r).sends;
  if (l.empty()) throw std::logic_error("mutation: rank " + std::to_string(r) + " sends nothing at step " +
                                        std::to_string(step));
  return l.front().peer;
}

// The peer rank r receives from at `step` (its first receive); throws if none.
inline Rank recv_peer(const MaterializedSchedule& m, int step, Rank r) {
  const auto& l = at(m, step, r).recvs;
  if (l.empty()) throw std::logic_error("mutation: rank " + std::to_string(r) + " receives nothing at step " +
                                        std::to_string(step));
  return l.front().peer;
}

// ---- removing --------------------------------------------------------------------

// Drops the transfer src->dst at `step` at both ends (matching still holds;
// the data simply never moves). Returns the dropped transfer (sender's view).
inline Transfer drop_transfer(MaterializedSchedule& m, int step, Rank src, Rank dst) {
  auto& sends = at(m, step, src).sends;
  auto& recvs = at(m, step, dst).recvs;
  size_t si = index_of(sends, dst, "send at " + where(step, src, dst));
  size_t ri = index_of(recvs, src, "receive at " + where(step, src, dst));
  Transfer t = sends[si];
  sends.erase(sends.begin() + static_cast<std::ptrdiff_t>(si));
  recvs.erase(recvs.begin() + static_cast<std::ptrdiff_t>(ri));
  return t;
}

// Drops only the receiver's side of src->dst (one end: breaks matching).
inline Transfer drop_recv(MaterializedSchedule& m, int step, Rank src, Rank dst) {
  auto& recvs = at(m, step, dst).recvs;
  size_t ri = index_of(recvs, src, "receive at " + where(step, src, dst));
  Transfer t = recvs[ri];
  recvs.erase(recvs.begin() + static_cast<std::ptrdiff_t>(ri));
  return t;
}

// ---- adding ----------------------------------------------------------------------

// Appends `n` empty steps (every rank idle) at the end.
inline void append_steps(MaterializedSchedule& m, int n = 1) {
  for (int i = 0; i < n; ++i) m.steps.emplace_back(m.spec.p);
}

// Adds the transfer src->dst at `step` at both ends. `step` may be one past
// the last step, which appends a step.
inline void add_transfer(MaterializedSchedule& m, int step, Rank src, Rank dst, BlockSet blocks, Combine c) {
  if (step == m.num_steps()) append_steps(m);
  at(m, step, src).sends.push_back({dst, blocks, c});
  at(m, step, dst).recvs.push_back({src, std::move(blocks), c});
}

// Adds only the sender's side (one end: breaks matching).
inline void add_send_only(MaterializedSchedule& m, int step, Rank src, Rank dst, BlockSet blocks, Combine c) {
  at(m, step, src).sends.push_back({dst, std::move(blocks), c});
}

// Rank r sends `blocks` to itself at `step`, listed at both of its ends.
inline void add_self_send(MaterializedSchedule& m, int step, Rank r, BlockSet blocks, Combine c) {
  add_transfer(m, step, r, r, std::move(blocks), c);
}

// Copies the transfer src->dst of `step` to (to_step, src->to_dst) at both
// ends; the original stays. The same data is therefore sent twice.
inline void duplicate_transfer(MaterializedSchedule& m, int step, Rank src, Rank dst, int to_step, Rank to_dst) {
  Transfer t = send_of(m, step, src, dst);
  add_transfer(m, to_step, src, to_dst, t.blocks, t.combine);
}

// ---- changing --------------------------------------------------------------------

// Sends src->dst of `step` to new_dst instead, at both ends: the sender's
// peer changes, the receive moves from dst to new_dst.
inline void redirect_transfer(MaterializedSchedule& m, int step, Rank src, Rank dst, Rank new_dst) {
  Transfer t = drop_transfer(m, step, src, dst);
  add_transfer(m, step, src, new_dst, t.blocks, t.combine);
}

// Changes only the sender's peer (one end: breaks matching at both dst and new_dst).
inline void redirect_send_only(MaterializedSchedule& m, int step, Rank src, Rank dst, Rank new_dst) {
  send_of(m, step, src, dst).peer = new_dst;
}

// Re-pairs two exchanging pairs of one step: a<->b and c<->d become a<->d
// and c<->b (four both-end redirects). Every rank keeps one partner.
inline void swap_partners(MaterializedSchedule& m, int step, Rank a, Rank b, Rank c, Rank d) {
  redirect_transfer(m, step, a, b, d);
  redirect_transfer(m, step, b, a, c);
  redirect_transfer(m, step, c, d, b);
  redirect_transfer(m, step, d, c, a);
}

// Replaces block `from` by block `to` in the transfer src->dst, at both ends.
inline void swap_block(MaterializedSchedule& m, int step, Rank src, Rank dst, Block from, Block to) {
  Transfer& s = send_of(m, step, src, dst);
  Transfer& r = recv_of(m, step, src, dst);
  if (!s.blocks.contains(from)) throw std::logic_error("mutation: " + where(step, src, dst) + " does not carry block " +
                                                       std::to_string(from));
  if (s.blocks.contains(to)) throw std::logic_error("mutation: " + where(step, src, dst) + " already carries block " +
                                                    std::to_string(to));
  for (Transfer* t : {&s, &r}) {
    t->blocks.erase(from);
    t->blocks.insert(to);
  }
}

// Adds block `b` to the transfer src->dst, at both ends.
inline void add_block(MaterializedSchedule& m, int step, Rank src, Rank dst, Block b) {
  Transfer& s = send_of(m, step, src, dst);
  Transfer& r = recv_of(m, step, src, dst);
  if (s.blocks.contains(b)) throw std::logic_error("mutation: " + where(step, src, dst) + " already carries block " +
                                                   std::to_string(b));
  s.blocks.insert(b);
  r.blocks.insert(b);
}

// Adds block `b` to one end of a transfer (send_of or recv_of): the two ends
// then agree on the other blocks only (breaks matching).
inline void add_block_at_one_end(Transfer& t, Block b) {
  if (t.blocks.contains(b)) throw std::logic_error("mutation: the transfer already carries block " + std::to_string(b));
  t.blocks.insert(b);
}

// Moves the transfer src->dst from `step` to `new_step`, at both ends.
inline void move_transfer(MaterializedSchedule& m, int step, Rank src, Rank dst, int new_step) {
  Transfer t = drop_transfer(m, step, src, dst);
  add_transfer(m, new_step, src, dst, t.blocks, t.combine);
}

inline Combine flipped(Combine c) { return c == Combine::copy ? Combine::reduce : Combine::copy; }

// copy <-> reduce for the transfer src->dst, at both ends.
inline void flip_combine(MaterializedSchedule& m, int step, Rank src, Rank dst) {
  Transfer& s = send_of(m, step, src, dst);
  Transfer& r = recv_of(m, step, src, dst);
  s.combine = flipped(s.combine);
  r.combine = flipped(r.combine);
}

// copy <-> reduce at the receiver only (one end: breaks matching).
inline void flip_recv_combine_only(MaterializedSchedule& m, int step, Rank src, Rank dst) {
  Transfer& r = recv_of(m, step, src, dst);
  r.combine = flipped(r.combine);
}

// ---- checking --------------------------------------------------------------------

struct CheckArgs {
  Exactness mode = Exactness::exact;
  const Claim* claim = nullptr;  // nullptr: cost is skipped
  StepHook hook = {};                 // empty: no step-hook verdict (swing-hop-distance)
};

inline InstanceCheck check(const Schedule& s, const CheckArgs& a) {
  CheckOptions o;
  o.exactness = a.mode;
  return check_schedule(s, a.claim, a.hook, o);
}

inline InstanceCheck check(const MaterializedSchedule& m, const CheckArgs& a) {
  MaterializedView view(m);
  return check(view, a);
}

// The variant's step hook at p (Swing: its hop claims; empty for the others).
inline StepHook hops_of(const VariantInfo& v, uint64_t p) { return family_step_hook(v, InstanceParams{p, 0}); }

inline std::set<std::string> violated(const InstanceCheck& ic) {
  std::set<std::string> out;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) out.insert(v.property);
  return out;
}

inline const Verdict& verdict(const InstanceCheck& ic, const std::string& property) {
  for (const auto& v : ic.verdicts)
    if (v.property == property) return v;
  throw std::logic_error("no verdict for property " + property);
}

// "matching=holds ports=violated[p=8 rank=0 step=1 ...] ..." for failure messages.
inline std::string describe(const InstanceCheck& ic) {
  std::ostringstream os;
  for (const auto& v : ic.verdicts) {
    os << v.property << "=" << to_string(v.status);
    if (v.counterexample) {
      const Counterexample& c = *v.counterexample;
      os << "[" << c.location() << " | " << c.message << " | expected: " << c.expected << " | actual: " << c.actual
         << "]";
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace collcheck::mutation
