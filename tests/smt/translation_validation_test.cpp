// Translation validation (smt/translation_validation.hpp): Z3 proves the
// postcondition of materialized schedules for all inputs, refutes mutated and
// literal-paper schedules, and every refutation is replayed by the threaded
// executor on the witness's inputs. The expected locations are not hard-coded:
// they come from the independent exact flow checker (verify's postcondition).
#include "tests/support/schedule_lookup.hpp"
#include "smt/translation_validation.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "smt/query_registry.hpp"
#include "tests/support/mutations.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 60000;  // generous: a timeout must never pass as "holds"

MaterializedSchedule make(const std::string& algo, const std::string& variant, uint64_t p) {
  const AlgorithmInfo* a = find_algorithm(algo);
  const VariantInfo* v = variant.empty() ? &a->default_variant() : a->find_variant(variant);
  return materialize(*v->make(InstanceParams{p, 0}));
}

const Verdict& postcondition_of(const MaterializedSchedule& m) {
  static thread_local InstanceCheck ic;
  ic = mutation::check(m, {Exactness::exact});
  return mutation::verdict(ic, "postcondition");
}

// A violation must come with a witness that the executor replays at the same
// rank and block with the same wrong value.
void expect_replayed(const MaterializedSchedule& m, const TvResult& r) {
  ASSERT_EQ(r.verdict.status, Status::violated);
  ASSERT_TRUE(r.witness.has_value());
  runtime::ExecResult e = replay_witness(m, *r.witness);
  EXPECT_TRUE(replay_confirms(e, *r.witness))
      << r.verdict.counterexample->message << "\nexecutor: "
      << (e.verdict.counterexample ? e.verdict.counterexample->message : "no counterexample");
  if (!r.witness->undefined) {
    ASSERT_TRUE(e.verdict.counterexample.has_value());
    EXPECT_EQ(e.verdict.counterexample->actual, std::to_string(r.witness->actual));
    EXPECT_EQ(e.verdict.counterexample->expected, std::to_string(r.witness->expected));
  }
}

// Same smallest (rank, block) as the exact flow checker's postcondition.
void expect_same_location(const MaterializedSchedule& m, const TvResult& r) {
  const Verdict& post = postcondition_of(m);
  ASSERT_EQ(post.status, Status::violated);
  ASSERT_TRUE(r.verdict.counterexample && post.counterexample);
  EXPECT_EQ(r.verdict.counterexample->rank, post.counterexample->rank);
  EXPECT_EQ(r.verdict.counterexample->block, post.counterexample->block);
  EXPECT_EQ(r.verdict.counterexample->step, post.counterexample->step);
}

TEST(TranslationValidation, EveryDefaultVariantHoldsAtSmallP) {
  for (const AlgorithmInfo& a : registry()) {
    for (uint64_t p : {2, 3, 4, 5, 6, 8, 9}) {
      const VariantInfo& v = a.default_variant();
      InstanceParams ip{p, 0};
      if (v.violates && v.violates(ip)) continue;
      MaterializedSchedule m = materialize(*v.make(ip));
      TvResult r = validate_translation(m, kBudgetMs);
      EXPECT_EQ(r.verdict.status, Status::holds) << a.name << " p=" << p << " " << r.verdict.stats["error"]
                                                  << (r.verdict.counterexample ? r.verdict.counterexample->message : "");
      EXPECT_EQ(r.verdict.mode, "z3");
      EXPECT_TRUE(r.verdict.stats.count("solver_seconds"));
      EXPECT_FALSE(r.witness.has_value());
    }
  }
}

TEST(TranslationValidation, DroppedTransferIsViolatedAndReplayed) {
  MaterializedSchedule m = make("swing", "", 8);
  // The last step's transfer 0 -> its peer (an allgather copy) never moves.
  int last = m.num_steps() - 1;
  Rank peer = mutation::send_peer(m, last, 0);
  mutation::drop_transfer(m, last, 0, peer);
  TvResult r = validate_translation(m, kBudgetMs);
  expect_replayed(m, r);
  expect_same_location(m, r);
}

TEST(TranslationValidation, DroppedReduceMissesOneContribution) {
  MaterializedSchedule m = make("recursive-doubling", "latency", 8);
  Rank peer = mutation::send_peer(m, 0, 3);
  mutation::drop_transfer(m, 0, 3, peer);  // rank 3's input never reaches `peer` in step 0
  TvResult r = validate_translation(m, kBudgetMs);
  expect_replayed(m, r);
  expect_same_location(m, r);
  // The final value is a sum with rank 3's input missing everywhere it should
  // have come through `peer`: the form has 7 distinct inputs, none doubled.
  EXPECT_EQ(r.witness->actual_form.find("x_3_0"), std::string::npos) << r.witness->actual_form;
}

TEST(TranslationValidation, DuplicatedTransferCountsTwice) {
  MaterializedSchedule m = make("recursive-doubling", "latency", 8);
  Rank peer = mutation::send_peer(m, 0, 0);
  mutation::duplicate_transfer(m, 0, 0, peer, 1, peer);  // the step-0 partial is added again in step 1
  TvResult r = validate_translation(m, kBudgetMs);
  expect_replayed(m, r);
  expect_same_location(m, r);
  EXPECT_NE(r.witness->actual_form.find("(* 2 x_0_0)"), std::string::npos) << r.witness->actual_form;
  EXPECT_GT(r.witness->actual, r.witness->expected);  // inputs are >= 1: a double count only adds
}

TEST(TranslationValidation, CopyOfTheWrongOriginIsViolated) {
  MaterializedSchedule m = make("traff-allgather", "", 5);
  // Flip the first copy of the schedule into a reduce: a block that starts
  // undefined at the receiver gets undefined data added.
  Rank peer = mutation::send_peer(m, 0, 0);
  mutation::flip_combine(m, 0, 0, peer);
  TvResult r = validate_translation(m, kBudgetMs);
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_TRUE(r.witness->undefined) << r.witness->actual_form;
  runtime::ExecResult e = replay_witness(m, *r.witness);
  EXPECT_EQ(e.verdict.status, Status::violated);
}

TEST(TranslationValidation, ReplayCheckRejectsAWrongWitness) {
  MaterializedSchedule m = make("recursive-doubling", "latency", 8);
  Rank peer = mutation::send_peer(m, 0, 3);
  mutation::drop_transfer(m, 0, 3, peer);
  TvResult r = validate_translation(m, kBudgetMs);
  ASSERT_TRUE(r.witness.has_value());
  TvWitness w = *r.witness;
  w.actual += 1;  // a value the executor does not see
  EXPECT_FALSE(replay_confirms(replay_witness(m, w), w));
  // and a correct schedule confirms nothing
  MaterializedSchedule ok = make("recursive-doubling", "latency", 8);
  EXPECT_FALSE(replay_confirms(replay_witness(ok, *r.witness), *r.witness));
}

// Every paper rule collcheck refutes: TV is violated exactly where the
// exact flow checker's postcondition is, at the same smallest (rank, block);
// where the schedule is not even matched (Eq. 2 at odd p is no involution),
// TV refuses to encode it and verify's matching fails at the same step.
TEST(TranslationValidation, PaperVariantsAgreeWithTheFlowChecker) {
  int refuted = 0;
  for (const AlgorithmInfo& a : registry()) {
    for (const VariantInfo& v : a.variants) {
      if (v.expected_to_hold) continue;
      for (uint64_t p = 2; p <= 10; ++p) {
        InstanceParams ip{p, 0};
        if (v.violates && v.violates(ip)) continue;
        MaterializedSchedule m = materialize(*v.make(ip));
        TvResult r = validate_translation(m, kBudgetMs);
        const Verdict& post = postcondition_of(m);
        SCOPED_TRACE(a.name + "/" + v.name + " p=" + std::to_string(p));
        if (r.verdict.stats.count("stage")) {
          // Not encodable (an unmatched transfer): verify's matching fails at
          // the same step.
          ++refuted;
          InstanceCheck ic = mutation::check(m, {Exactness::exact});
          const Verdict& matching = mutation::verdict(ic, "matching");
          ASSERT_EQ(matching.status, Status::violated);
          EXPECT_EQ(matching.counterexample->rank, r.verdict.counterexample->rank);
          EXPECT_EQ(matching.counterexample->step, r.verdict.counterexample->step);
          continue;
        }
        if (post.status == Status::holds) {
          EXPECT_EQ(r.verdict.status, Status::holds);
          continue;
        }
        ++refuted;
        expect_same_location(m, r);
        expect_replayed(m, r);
      }
    }
  }
  EXPECT_GT(refuted, 0);
}

TEST(TranslationValidation, OneEndedTransferIsAStructureViolation) {
  MaterializedSchedule m = make("swing", "", 8);
  Rank peer = mutation::send_peer(m, 1, 2);
  mutation::drop_recv(m, 1, 2, peer);
  TvResult r = validate_translation(m, kBudgetMs);
  ASSERT_EQ(r.verdict.status, Status::violated);
  EXPECT_EQ(r.verdict.stats["stage"], "structure (before encoding)");
  EXPECT_EQ(r.verdict.counterexample->step, 1);
}

TEST(TranslationValidation, TinyTimeoutIsUnknown) {
  MaterializedSchedule m = make("swing", "", 64);
  TvResult r = validate_translation(m, 1);
  EXPECT_EQ(r.verdict.status, Status::unknown);
  EXPECT_EQ(r.verdict.stats["reason_unknown"], "timeout");
}

TEST(TranslationValidation, WritesTheQueryAsSmt2) {
  auto dir = std::filesystem::temp_directory_path() / ("tv-smt2-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  MaterializedSchedule m = make("ring", "", 4);
  TvResult r = validate_translation(m, kBudgetMs, dir.string());
  EXPECT_EQ(r.verdict.status, Status::holds);
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NE(ss.str().find("(check-sat)"), std::string::npos);
    EXPECT_NE(ss.str().find("x_3_0"), std::string::npos);
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(TranslationValidation, RegistryQueryRunsAndReplays) {
  const Query* q = nullptr;
  for (const Query& x : queries())
    if (x.name == "smt-translation-validation") q = &x;
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(q->applies_to(test::registered_algorithm("swing"), test::registered_variant("swing", "paper-listing1")));
  EXPECT_TRUE(q->unsupported(InstanceParams{4096, 0}).has_value());
  EXPECT_FALSE(q->unsupported(InstanceParams{64, 0}).has_value());
  QueryContext ctx;
  Verdict ok = q->run(test::registered_algorithm("trivance"), test::registered_variant("trivance", "latency"), InstanceParams{9, 0}, ctx);
  EXPECT_EQ(ok.status, Status::holds);
  Verdict bad = q->run(test::registered_algorithm("swing"), test::registered_variant("swing", "paper-latency"), InstanceParams{6, 0}, ctx);
  ASSERT_EQ(bad.status, Status::violated);
  EXPECT_NE(bad.stats["replay"].find("threaded executor confirms"), std::string::npos);
  Verdict skipped = q->run(test::registered_algorithm("swing"), test::registered_variant("swing", "paper-odd"), InstanceParams{6, 0}, ctx);  // p odd only
  EXPECT_EQ(skipped.status, Status::skipped);
}

}  // namespace
}  // namespace collcheck::smt
