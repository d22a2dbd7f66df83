// judge_file_claims: the `claims` verdict of check-file holds only when every
// property the file asserts was judged and holds; a violated one fails it, an
// undecided one (unknown, skipped, absent) makes it unknown, and nothing is
// judged after a memory-guard refusal.
#include <gtest/gtest.h>

#include "checker/sweep/file_claims.hpp"

namespace collcheck {
namespace {

Verdict verdict(const std::string& property, Status status) {
  Verdict v;
  v.property = property;
  v.status = status;
  if (status == Status::violated) {
    Counterexample cx;
    cx.message = "broken";
    v.fail(cx);
  }
  return v;
}

const Verdict& claims_of(const InstanceCheck& ic) {
  for (const Verdict& v : ic.verdicts)
    if (v.property == kClaimsProperty) return v;
  throw std::runtime_error("no claims verdict");
}

FileClaims asserting(std::vector<std::string> names) {
  FileClaims c;
  c.properties = std::move(names);
  return c;
}

TEST(FileClaims, HoldsOnlyWhenEveryAssertedPropertyHolds) {
  InstanceCheck ic;
  ic.verdicts = {verdict("matching", Status::holds), verdict("exactly-once", Status::holds)};
  judge_file_claims(asserting({"matching", "exactly-once"}), ic);
  EXPECT_EQ(claims_of(ic).status, Status::holds);
  EXPECT_EQ(claims_of(ic).checks, 2u);
}

TEST(FileClaims, ViolatedAssertionFailsTheClaims) {
  InstanceCheck ic;
  ic.verdicts = {verdict("matching", Status::holds), verdict("exactly-once", Status::violated)};
  judge_file_claims(asserting({"matching", "exactly-once"}), ic);
  EXPECT_EQ(claims_of(ic).status, Status::violated);
  ASSERT_TRUE(claims_of(ic).counterexample);
  EXPECT_NE(claims_of(ic).counterexample->message.find("exactly-once"), std::string::npos);
}

TEST(FileClaims, UndecidedAssertionIsUnknownNotHolds) {
  for (Status s : {Status::unknown, Status::skipped}) {
    InstanceCheck ic;
    ic.verdicts = {verdict("matching", Status::holds), verdict("postcondition", s)};
    judge_file_claims(asserting({"matching", "postcondition"}), ic);
    EXPECT_EQ(claims_of(ic).status, Status::unknown);
    EXPECT_EQ(claims_of(ic).stats.at("undecided"), "postcondition");
  }
  InstanceCheck absent;  // the asserted property never ran
  absent.verdicts = {verdict("matching", Status::holds)};
  judge_file_claims(asserting({"causality"}), absent);
  EXPECT_EQ(claims_of(absent).status, Status::unknown);
}

TEST(FileClaims, ViolationWinsOverUndecided) {
  InstanceCheck ic;
  ic.verdicts = {verdict("causality", Status::violated), verdict("postcondition", Status::unknown)};
  judge_file_claims(asserting({"causality", "postcondition"}), ic);
  EXPECT_EQ(claims_of(ic).status, Status::violated);
  InstanceCheck reversed;  // the order of the assertions does not matter
  reversed.verdicts = ic.verdicts;
  reversed.verdicts.pop_back();
  reversed.verdicts.insert(reversed.verdicts.begin(), verdict("postcondition", Status::unknown));
  judge_file_claims(asserting({"postcondition", "causality"}), reversed);
  EXPECT_EQ(claims_of(reversed).status, Status::violated);
}

TEST(FileClaims, NothingJudgedAfterAMemoryGuardRefusal) {
  InstanceCheck ic;
  ic.refused = Refusal{Refusal::Kind::memory_before, "refused by the memory guard before allocating"};
  judge_file_claims(asserting({"matching"}), ic);
  for (const Verdict& v : ic.verdicts) EXPECT_NE(v.property, kClaimsProperty);
}

}  // namespace
}  // namespace collcheck
