#include "properties/matching.hpp"

namespace collcheck {

const Transfer* find_transfer(const std::vector<Transfer>& list, Rank peer, const BlockSet& blocks,
                              Combine c) {
  for (const Transfer& t : list)
    if (t.peer == peer && t.combine == c && t.blocks == blocks) return &t;
  return nullptr;
}

bool delivered_whole_or_not_at_all(const std::vector<Transfer>& peer_sends, const std::vector<Transfer>& my_recvs,
                                   Rank me, const Transfer& recv) {
  bool part = false;
  for_each_delivery(peer_sends, my_recvs, me, recv, [&](size_t, bool whole) { part = part || !whole; });
  return !part;
}

void check_matching(const StepView& sv, Rank r, Verdict& v) {
  const RankStep& mine = sv.at(r);
  auto cx = [&](Rank peer, const Transfer& t, std::string expected, std::string actual, std::string msg) {
    Counterexample c;
    c.p = sv.p;
    c.rank = r;
    c.step = sv.step;
    c.peer = peer;
    if (!t.blocks.empty()) c.block = t.blocks.ranges().front().lo;
    c.expected = std::move(expected);
    c.actual = std::move(actual);
    c.message = std::move(msg);
    v.fail(std::move(c));
  };
  for (int dir = 0; dir < 2; ++dir) {
    const bool is_send = dir == 0;
    for (const Transfer& t : is_send ? mine.sends : mine.recvs) {
      ++v.checks;
      const char* verb = is_send ? "sends" : "receives";
      if (t.peer >= sv.p) {
        cx(t.peer, t, "peer in 0.." + std::to_string(sv.p - 1), "peer " + std::to_string(t.peer),
           std::string("rank ") + verb + " to/from a rank that does not exist");
        continue;
      }
      if (t.peer == r) {
        cx(t.peer, t, "a peer other than itself", "self-transfer",
           std::string("rank ") + verb + " to/from itself");
        continue;
      }
      if (t.blocks.empty()) {
        cx(t.peer, t, "a non-empty block set", "{}", "empty transfer");
        continue;
      }
      if (t.blocks.ranges().back().hi > sv.nblocks) {
        cx(t.peer, t, "blocks in 0.." + std::to_string(sv.nblocks - 1), t.blocks.to_string(),
           "transfer names a block that does not exist (nblocks = " + std::to_string(sv.nblocks) + ")");
        continue;
      }
      const RankStep& other = sv.at(t.peer);
      const auto& counterpart = is_send ? other.recvs : other.sends;
      // One-to-one: k identical sends need k identical receives.
      auto same = [&](const Transfer& o, Rank peer) {
        return o.peer == peer && o.combine == t.combine && o.blocks == t.blocks;
      };
      size_t here = 0, there = 0;
      for (const Transfer& o : is_send ? mine.sends : mine.recvs) here += same(o, t.peer);
      for (const Transfer& o : counterpart) there += same(o, r);
      if (there > 0 && here != there) {
        cx(t.peer, t, std::to_string(here) + " matching " + (is_send ? "receive(s)" : "send(s)") + " at rank " + std::to_string(t.peer),
           std::to_string(there),
           "rank " + std::to_string(r) + " lists " + std::to_string(here) + " identical " + (is_send ? "sends" : "receives") +
               " of " + t.blocks.to_string() + " but the peer lists " + std::to_string(there) + "; messages stay unmatched");
        continue;
      }
      if (there == 0) {
        // Describe what the peer does list, to make the mismatch obvious.
        std::string actual = "none";
        for (const Transfer& o : counterpart)
          if (o.peer == r) actual = o.blocks.to_string() + " " + to_string(o.combine);
        cx(t.peer, t,
           std::string(is_send ? "receive " : "send ") + t.blocks.to_string() + " " + to_string(t.combine) +
               " at rank " + std::to_string(t.peer),
           actual,
           "rank " + std::to_string(r) + " " + verb + " " + t.blocks.to_string() + (is_send ? " to " : " from ") +
               std::to_string(t.peer) + " but the peer lists no matching " + (is_send ? "receive" : "send"));
      }
    }
  }
}

}  // namespace collcheck
