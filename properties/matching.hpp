#pragma once
// Property "matching": every send r->q at step s has a receive at q from r in
// step s with the same BlockSet and combine mode, and every receive has such a
// send; no self-sends, no empty transfers, peers and blocks in range.
#include "properties/step_view.hpp"
#include "properties/verdict.hpp"

namespace collcheck {

// Checks rank r's transfers in one step; records failures into `v`.
void check_matching(const StepView& sv, Rank r, Verdict& v);

// The transfer in `list` from/to `peer` with the given blocks and combine, or nullptr.
const Transfer* find_transfer(const std::vector<Transfer>& list, Rank peer, const BlockSet& blocks,
                              Combine c);

// What a receive `recv` of rank `me` gets in the flow simulation, given its
// peer's sends and `me`'s own receives of that step. Matched, the send that
// matches it exactly: f(index, true), all of it arrives. Unmatched, every
// send of the peer to `me` with the same combine mode whose blocks meet the
// receive's and that no receive of `me` matches exactly: f(index, false),
// and only the blocks both ends list arrive. A block only one end lists
// moves nowhere (matching reports the pair); dropping the whole pair would
// also lose the blocks both ends agree on, a loss no execution shows (a
// stray extra block in a message does not empty the receiver's others).
// Returns whether anything was delivered (f called).
template <class F>
bool for_each_delivery(const std::vector<Transfer>& peer_sends, const std::vector<Transfer>& my_recvs, Rank me,
                       const Transfer& recv, F&& f) {
  if (const Transfer* m = find_transfer(peer_sends, me, recv.blocks, recv.combine)) {
    f(static_cast<size_t>(m - peer_sends.data()), true);
    return true;
  }
  bool any = false;
  for (size_t i = 0; i < peer_sends.size(); ++i) {
    const Transfer& s = peer_sends[i];
    if (s.peer != me || s.combine != recv.combine || !s.blocks.intersects(recv.blocks)) continue;
    if (find_transfer(my_recvs, recv.peer, s.blocks, s.combine)) continue;  // it has a receive of its own
    f(i, false);
    any = true;
  }
  return any;
}

// Whether `recv` of rank `me` is matched exactly or not at all, so that
// every delivery is a whole send or nothing (for_each_delivery).
bool delivered_whole_or_not_at_all(const std::vector<Transfer>& peer_sends, const std::vector<Transfer>& my_recvs,
                                   Rank me, const Transfer& recv);

}  // namespace collcheck
