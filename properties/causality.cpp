#include "properties/causality.hpp"

namespace collcheck {

void causality_sender_holds_nothing(Verdict& v, uint64_t p, Rank r, int step, Block b, Rank peer) {
  Counterexample c;
  c.p = p;
  c.rank = r;
  c.step = step;
  c.block = b;
  c.peer = peer;
  c.expected = "sender holds block " + std::to_string(b) + " before the step";
  c.actual = "sender holds no contribution to it";
  c.message = "rank sends a block it does not hold yet";
  v.fail(std::move(c));
}

void causality_copy_discards(Verdict& v, uint64_t p, Rank receiver, int step, Block b, Rank sender,
                             std::string lost) {
  Counterexample c;
  c.p = p;
  c.rank = receiver;
  c.step = step;
  c.block = b;
  c.peer = sender;
  c.expected = "copied value contains everything the receiver holds";
  c.actual = "would discard " + lost;
  c.message = "copy from rank " + std::to_string(sender) +
              " overwrites contributions the receiver already holds (sent before it was complete)";
  v.fail(std::move(c));
}

}  // namespace collcheck
