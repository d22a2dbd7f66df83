// Property-based test of the certified quotient: random
// equivariant schedules, built from a random representative (rank 0's
// transfers at every step) and a group (translations or swing-dihedral,
// blocks as ranks or fixed), with random defects injected into the
// representative, are decided by the quotient exactly as enumeration decides
// them: same status, checks, violations and minimal counterexample per
// property. Small p (<= 12), so enumeration is exact and cheap.
//
// The representative pairs rank 0 with a peer q whose group element sends q
// back to 0 (a reflection x -> q - x for odd q under swing-dihedral; under
// translations rank p - q sends to 0), so an undamaged exchange is matched;
// the defects then change a receive's blocks or combine mode, add an
// unmatched send, or turn a reduce into a copy, at random.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "properties/instance_checker.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

class RandomRepresentative final : public EquivariantSchedule {
 public:
  RandomRepresentative(CollectiveSpec spec, SymmetryGroup g, BlockAction b, std::vector<RankStep> rep)
      : spec_(spec), action_(g, b, spec_), rep_(std::move(rep)) {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return static_cast<int>(rep_.size()); }
  void representative_step(int s, RankStep& out) const override { out = rep_.at(static_cast<size_t>(s)); }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return "random test representative"; }

 private:
  CollectiveSpec spec_;
  GroupAction action_;
  std::vector<RankStep> rep_;
};

// Why two checks differ, "" if they agree.
std::string difference(const InstanceCheck& a, const InstanceCheck& b) {
  std::ostringstream o;
  if (a.verdicts.size() != b.verdicts.size()) return "verdict count";
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    const Verdict& x = a.verdicts[i];
    const Verdict& y = b.verdicts[i];
    if (x.status != y.status || x.checks != y.checks || x.violations != y.violations)
      o << x.property << ": " << to_string(x.status) << "/" << x.checks << "/" << x.violations << " vs "
        << to_string(y.status) << "/" << y.checks << "/" << y.violations << "; ";
    if (x.counterexample.has_value() != y.counterexample.has_value()) o << x.property << ": counterexample presence; ";
    else if (x.counterexample && (x.counterexample->location() != y.counterexample->location() ||
                                  x.counterexample->actual != y.counterexample->actual ||
                                  x.counterexample->message != y.counterexample->message))
      o << x.property << ": " << x.counterexample->location() << " " << x.counterexample->actual << " vs "
        << y.counterexample->location() << " " << y.counterexample->actual << "; ";
  }
  return o.str();
}

RC_GTEST_PROP(QuotientProps, RandomRepresentativeWithDefectsAgreesWithEnumeration, ()) {
  const bool dihedral = *rc::gen::arbitrary<bool>().as("swing-dihedral");
  const uint64_t p = dihedral ? 2 * *rc::gen::inRange<uint64_t>(1, 7).as("p/2") : *rc::gen::inRange<uint64_t>(1, 11).as("p");
  const bool as_ranks = *rc::gen::arbitrary<bool>().as("blocks as ranks");
  const uint64_t nb = as_ranks ? static_cast<uint32_t>(p) : *rc::gen::inRange<uint32_t>(1, 4).as("blocks");
  const SymmetryGroup g = dihedral ? SymmetryGroup::swing_dihedral : SymmetryGroup::translations;
  const BlockAction ba = as_ranks ? BlockAction::as_ranks : BlockAction::fixed;
  const CollectiveSpec spec{Collective::allreduce, p, nb, 0};
  const GroupAction act(g, ba, spec);
  const int steps = *rc::gen::inRange(1, 5).as("steps");
  std::vector<RankStep> rep(static_cast<size_t>(steps));
  for (RankStep& st : rep) {
    const int exchanges = *rc::gen::inRange(0, 3).as("exchanges");
    for (int k = 0; k < exchanges && p > 1; ++k) {
      // A peer q with g_q(q) = 0: odd q under swing-dihedral; under
      // translations rank 0 sends to q and receives from p - q.
      Rank q = static_cast<Rank>(*rc::gen::inRange<uint64_t>(1, p).as("peer"));
      if (dihedral && q % 2 == 0) q = static_cast<Rank>(q - 1);
      const Rank from = dihedral ? q : static_cast<Rank>((p - q) % p);
      std::vector<Block> blocks;
      for (Block b = 0; b < nb; ++b)
        if (*rc::gen::inRange(0, 3).as("block taken")) blocks.push_back(b);
      if (blocks.empty()) blocks.push_back(0);
      const Combine c = *rc::gen::inRange(0, 4).as("copy?") == 0 ? Combine::copy : Combine::reduce;
      const BlockSet sent = BlockSet::from_blocks(blocks);
      st.add_send(q, c).blocks = sent;
      // What `from` sends to 0: g_from of the send (its peer g_from(q) = 0).
      BlockSet got;
      act.blocks(from, sent, got);
      Transfer& r = st.add_recv(from, c);
      r.blocks = got;
      switch (*rc::gen::inRange(0, 6).as("defect")) {
        case 0: r.blocks.insert(static_cast<Block>(*rc::gen::inRange<uint32_t>(0, nb).as("extra block"))); break;
        case 1:
          if (r.blocks.size() > 1) r.blocks.erase(r.blocks.ranges().front().lo);
          break;
        case 2: r.combine = r.combine == Combine::copy ? Combine::reduce : Combine::copy; break;
        case 3: st.add_send(static_cast<Rank>(*rc::gen::inRange<uint64_t>(0, p).as("stray peer")), Combine::reduce).blocks = BlockSet::single(0); break;
        default: break;  // undamaged
      }
    }
  }
  RandomRepresentative s(spec, g, ba, rep);
  CheckOptions o;
  o.exactness = Exactness::exact;
  const InstanceCheck q = check_schedule(s, nullptr, {}, o);
  o.use_symmetry = false;
  const InstanceCheck e = check_schedule(s, nullptr, {}, o);
  RC_TAG(q.stats.count("method") ? "quotient" : "declined");
  const std::string diff = difference(q, e);
  RC_ASSERT(diff == "");
}

}  // namespace
}  // namespace collcheck
