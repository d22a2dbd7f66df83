// Regression: the minimal counterexample schedules of refuted paper rules,
// stored as schedule files (docs/schedule-format.md) so that neither a
// generator change nor a checker change can silently alter them: two inline,
// two in tests/data/swing/ (written by `collcheck dump`'s version-1 writer).
//
// Each stored schedule states its expected verdict next to it (cvc5 style).
// The tests check (1) reading the stored text and checking it gives that
// verdict, in exact and fingerprint mode, and (2) the registry still
// generates exactly the stored schedule.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "properties/catalog.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/formats/schedule_json.hpp"

namespace collcheck {
namespace {

// swing/paper-odd, p = 3 (ring of 2 plus the extra node 2, 2 ports).
// EXPECT: violated {postcondition}; p=3 rank=0 step=1 block=1, missing ranks {2}
// (ring rank 1 is never served by the extra node, so block 1 lacks rank 2).
// Root cause: rank 2 sends nothing to rank 1 in step 0 (offset +2 mod 3,
// used by 2 of the step's 4 sends: 0->2 and 1->0), and rank 1's block 1 is
// what rank 0 copies in step 1.
const char* kPaperOddP3 = R"({"collective":"allreduce","format":"collcheck-schedule/1","nblocks":3,"p":3,"ports":2,"root":0,"steps":[[{"rank":0,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":1},{"blocks":[[0,1]],"combine":"reduce","peer":2}],"sends":[{"blocks":[[1,2]],"combine":"reduce","peer":1},{"blocks":[[2,3]],"combine":"reduce","peer":2}]},{"rank":1,"recvs":[{"blocks":[[1,2]],"combine":"reduce","peer":0}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":0}]},{"rank":2,"recvs":[{"blocks":[[2,3]],"combine":"reduce","peer":0}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":0}]}],[{"rank":0,"recvs":[{"blocks":[[1,2]],"combine":"copy","peer":1},{"blocks":[[2,3]],"combine":"copy","peer":2}],"sends":[{"blocks":[[0,1]],"combine":"copy","peer":1},{"blocks":[[0,1]],"combine":"copy","peer":2}]},{"rank":1,"recvs":[{"blocks":[[0,1]],"combine":"copy","peer":0}],"sends":[{"blocks":[[1,2]],"combine":"copy","peer":0}]},{"rank":2,"recvs":[{"blocks":[[0,1]],"combine":"copy","peer":0}],"sends":[{"blocks":[[2,3]],"combine":"copy","peer":0}]}]]})";

// swing/paper-latency, p = 3 (Eq. 2 on an odd ring: pi is not an involution).
// EXPECT: violated {matching, postcondition}; matching at p=3 rank=2 step=0
// block=0 peer=0 (4 unmatched transfers: rank 2's at step 0, rank 0's at
// step 1; the first in time is rank 2's receive from rank 0, which sends to
// rank 1); postcondition at p=3 rank=0 step=1 block=0, missing ranks {2},
// root cause: rank 0's step-1 receive from rank 2, which rank 2 does not
// send (it sends to rank 1): rank 0's final block rests on it, so it is not
// what any execution would produce (kind unmatched, nothing traced from it).
const char* kPaperLatencyP3 = R"({"collective":"allreduce","format":"collcheck-schedule/1","nblocks":1,"p":3,"ports":1,"root":0,"steps":[[{"rank":0,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":1}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":1}]},{"rank":1,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":0}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":0}]},{"rank":2,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":0}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":0}]}],[{"rank":0,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":2}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":2}]},{"rank":1,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":2}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":2}]},{"rank":2,"recvs":[{"blocks":[[0,1]],"combine":"reduce","peer":1}],"sends":[{"blocks":[[0,1]],"combine":"reduce","peer":1}]}]]})";

// Stored in tests/data/swing/.
std::string stored(const std::string& name) {
  std::ifstream f(std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/swing/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  if (ss.str().empty()) throw std::runtime_error("cannot read tests/data/swing/" + name);
  return ss.str();
}

InstanceCheck check_text(const std::string& text, Exactness mode) {
  MaterializedView view(schedule_from_json(text));
  CheckOptions o;
  o.exactness = mode;
  return check_schedule(view, nullptr, {}, o);
}

std::set<std::string> violated(const InstanceCheck& ic) {
  std::set<std::string> out;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) out.insert(v.property);
  return out;
}

const Verdict& verdict(const InstanceCheck& ic, const std::string& prop) {
  for (const auto& v : ic.verdicts)
    if (v.property == prop) return v;
  throw std::logic_error("no verdict for " + prop);
}

std::string generated(const char* variant, uint64_t p) {
  return to_json(materialize(*find_algorithm("swing")->find_variant(variant)->make({p, 0})));
}

TEST(PaperCounterexamples, PaperOddP3) {
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    InstanceCheck ic = check_text(kPaperOddP3, mode);
    EXPECT_EQ(violated(ic), std::set<std::string>{prop::postcondition}) << to_string(mode);
    const Verdict& v = verdict(ic, prop::postcondition);
    ASSERT_TRUE(v.counterexample);
    EXPECT_EQ(v.counterexample->location(), "p=3 rank=0 step=1 block=1");
    const std::optional<RootCause>& rc = v.counterexample->root_cause;
    ASSERT_TRUE(rc);
    EXPECT_EQ(*rc, (RootCause{RootCause::Kind::lost, Rank{2}, 0, Rank{2}, Rank{1},
                              "rank 2 held its own contribution to block 1 from the start but sent nothing to rank 1 "
                              "in step 0, although 2 of the 4 sends of that step go to the rank 2 further on (mod "
                              "p) (rank 1's block 1 reaches rank 0)"}));
  }
  EXPECT_EQ(verdict(check_text(kPaperOddP3, Exactness::exact), prop::postcondition).counterexample->actual,
            "missing ranks {2}");
  EXPECT_EQ(generated("paper-odd", 3), kPaperOddP3) << "the generator's output changed";
}

TEST(PaperCounterexamples, PaperLatencyP3) {
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    InstanceCheck ic = check_text(kPaperLatencyP3, mode);
    EXPECT_EQ(violated(ic), (std::set<std::string>{prop::matching, prop::postcondition})) << to_string(mode);
    const Verdict& m = verdict(ic, prop::matching);
    ASSERT_TRUE(m.counterexample);
    EXPECT_EQ(m.counterexample->location(), "p=3 rank=2 step=0 block=0 peer=0");
    EXPECT_EQ(m.counterexample->message, "rank 2 receives {0} from 0 but the peer lists no matching send");
    EXPECT_EQ(m.violations, 4u);
    const Counterexample& post = *verdict(ic, prop::postcondition).counterexample;
    EXPECT_EQ(post.location(), "p=3 rank=0 step=1 block=0");
    ASSERT_TRUE(post.root_cause);
    EXPECT_EQ(*post.root_cause,
              (RootCause{RootCause::Kind::unmatched, std::nullopt, 1, Rank{0}, Rank{2},
                         "matching fails first on this value's path: rank 0 lists a receive of {0} reduce from rank 2 "
                         "in step 1, and its block 0 arrives from no send (rank 2 sends nothing to rank 0 there); "
                         "rank 0's block 0 depends on that receive, so its final value is not what any execution "
                         "would produce, and no root cause is traced from it"}));
  }
  EXPECT_EQ(verdict(check_text(kPaperLatencyP3, Exactness::exact), prop::postcondition).counterexample->actual,
            "missing ranks {2}");
  EXPECT_EQ(generated("paper-latency", 3), kPaperLatencyP3) << "the generator's output changed";
}

// swing/paper-listing1-printed, p = 4 (Listing 1's printed call).
// EXPECT: violated {causality, postcondition}; causality at p=4 rank=0 step=3
// block=3 peer=1 (the allgather copies rank 1's partial {0,1} of block 3 over
// rank 0's complete one), postcondition at the same (rank, block), missing
// ranks {2,3}. (A schedule file has no claims here, so cost is skipped.)
TEST(PaperCounterexamples, PaperListing1PrintedP4) {
  const std::string text = stored("paper-listing1-printed_p4.json");
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    InstanceCheck ic = check_text(text, mode);
    EXPECT_EQ(violated(ic), (std::set<std::string>{prop::causality, prop::postcondition})) << to_string(mode);
    EXPECT_EQ(verdict(ic, prop::causality).counterexample->location(), "p=4 rank=0 step=3 block=3 peer=1");
    EXPECT_EQ(verdict(ic, prop::postcondition).counterexample->location(), "p=4 rank=0 step=3 block=3");
  }
  EXPECT_EQ(verdict(check_text(text, Exactness::exact), prop::postcondition).counterexample->actual,
            "missing ranks {2,3}");
  EXPECT_EQ(generated("paper-listing1-printed", 4), text) << "the generator's output changed";
}

// swing/paper-later, p = 10 (the later-step rule without the own-block
// exclusion: rank 0 sends its own block 0 at step 0).
// EXPECT: violated {exactly-once, postcondition}; exactly-once at p=10 rank=0
// step=3 block=0 peer=5 (rank 0's own contribution comes back), every one of
// the 100 final (rank, block) values counts a contribution twice.
TEST(PaperCounterexamples, PaperLaterP10) {
  const std::string text = stored("paper-later_p10.json");
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    InstanceCheck ic = check_text(text, mode);
    EXPECT_EQ(violated(ic), (std::set<std::string>{prop::exactly_once, prop::postcondition})) << to_string(mode);
    EXPECT_EQ(verdict(ic, prop::postcondition).violations, 100u) << to_string(mode);
  }
  const InstanceCheck exact = check_text(text, Exactness::exact);
  const Verdict& eo = verdict(exact, prop::exactly_once);
  EXPECT_EQ(eo.counterexample->location(), "p=10 rank=0 step=3 block=0 peer=5");
  EXPECT_EQ(eo.counterexample->expected, "contribution of rank 0 at most once");
  EXPECT_EQ(generated("paper-later", 10), text) << "the generator's output changed";
}

}  // namespace
}  // namespace collcheck
