#include "properties/causality.hpp"

#include "properties/step_view.hpp"

namespace collcheck {

void causality_sender_holds_nothing(Verdict& v, uint64_t p, Rank r, int step, Block b, Rank peer) {
  Counterexample c = Counterexample::at(p, r, step, b, peer);
  c.expected = "sender holds block " + std::to_string(b) + " before the step";
  c.actual = "sender holds no contribution to it";
  c.message = "rank sends a block it does not hold yet";
  v.fail(std::move(c));
}

void causality_reduce_into_undefined(Verdict& v, uint64_t p, Rank receiver, int step, Block b, Rank sender) {
  Counterexample c = Counterexample::at(p, receiver, step, b, sender);
  c.expected = "receiver holds block " + std::to_string(b) + " before reducing into it";
  c.actual = "receiver holds no value (undefined buffer)";
  c.message = "reduce from rank " + std::to_string(sender) + " combines with a block the receiver never received";
  v.fail(std::move(c));
}

std::string copy_loss_text(uint64_t had, uint64_t got) {
  return std::to_string(had - got) + " contribution(s) (holds " + std::to_string(had) + ", copy has " +
         std::to_string(got) + ")";
}

void causality_copy_discards(Verdict& v, uint64_t p, Rank receiver, int step, Block b, Rank sender,
                             std::string lost) {
  Counterexample c = Counterexample::at(p, receiver, step, b, sender);
  c.expected = "copied value has at least as many contributions as the receiver holds";
  c.actual = "would discard " + lost;
  c.message = "copy from rank " + std::to_string(sender) +
              " overwrites contributions the receiver already holds (sent before it was complete)";
  v.fail(std::move(c));
}

void check_receive_races(const StepView& sv, Rank r, Verdict& v) {
  const auto& recvs = sv.at(r).recvs;
  for (size_t i = 0; i < recvs.size(); ++i) {
    for (size_t j = i + 1; j < recvs.size(); ++j) {
      ++v.checks;
      if (recvs[i].combine == Combine::reduce && recvs[j].combine == Combine::reduce) continue;
      BlockSet both = recvs[i].blocks.intersect(recvs[j].blocks);
      if (both.empty()) continue;
      Counterexample c;
      c.p = sv.p;
      c.rank = r;
      c.step = sv.step;
      c.block = both.ranges().front().lo;
      c.peer = recvs[j].peer;
      c.expected = "at most one write per block and step when a copy is involved";
      c.actual = std::string(to_string(recvs[i].combine)) + " from rank " + std::to_string(recvs[i].peer) + " and " +
                 to_string(recvs[j].combine) + " from rank " + std::to_string(recvs[j].peer);
      c.message = "two receives write block " + std::to_string(*c.block) +
                  " in one step; the result depends on the order they are applied";
      v.fail(std::move(c));
    }
  }
}

}  // namespace collcheck
