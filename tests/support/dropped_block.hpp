#pragma once
// A defective representative for quotient tests: an equivariant schedule's
// rank 0 with the lowest block of its first send dropped at one step, and
// that block's image dropped from the receive that mirrors it (rank 0's
// receive from q carries g_q of q's sends to rank 0). Every rank inherits
// the defect through the group, so the quotient must find it as
// enumeration does.
#include <memory>
#include <string>
#include <utility>

#include "schedules/symmetry.hpp"

namespace collcheck::test {

class DroppedBlock final : public EquivariantSchedule {
 public:
  // `step` < 0: the last step.
  DroppedBlock(std::unique_ptr<Schedule> inner, GroupAction action, int step)
      : step_(step), inner_(std::move(inner)), action_(std::move(action)) {}
  const CollectiveSpec& spec() const override { return inner_->spec(); }
  int num_steps() const override { return inner_->num_steps(); }
  void representative_step(int s, RankStep& out) const override {
    inner_->rank_step(0, s, out);
    if (s != (step_ < 0 ? num_steps() - 1 : step_)) return;
    Transfer& snd = out.sends.at(0);
    const Block b = snd.blocks.ranges().front().lo;
    snd.blocks.erase(b);
    // drop g_q(b) from the receive whose peer q sends to rank 0 with send index 0
    RankStep zero;
    inner_->rank_step(0, s, zero);
    for (Transfer& rcv : out.recvs) {
      const Rank q = rcv.peer;
      if (action_.rank(q, zero.sends[0].peer) == 0) rcv.blocks.erase(action_.block(q, b));
    }
  }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return "a defective rank 0, for the test"; }

 private:
  int step_;
  std::unique_ptr<Schedule> inner_;
  GroupAction action_;
};

}  // namespace collcheck::test
