// Mutation test of the MSCCL importer: every single-step corruption of the
// small correct programs in tests/data/msccl is rejected (a violated property
// or an InputError), and the rejection names a step as "gpu G tb T step S"
// and the rank (the counterexample's rank = gpu). Corruptions, for every
// step: drop it (type nop, keeping the numbering), shift the source offset,
// shift the destination offset (only operands the step type uses: the
// runtime ignores a send's dstbuf/dstoff and a receive's srcbuf/srcoff, and
// so does collcheck), and drop its dependency (depid/deps).
// A rejection whose only symptom is an output chunk that no step writes (the
// dropped step was its only writer) cannot name a step, as none is left to
// name: it names the rank and the chunk ("o[j] of gpu G ... no step writes
// it"); the test accepts that and counts such mutants.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "schedules/formats/msccl_check.hpp"
#include "schedules/formats/msccl_xml.hpp"
#include "schedules/input_error.hpp"

namespace collcheck::msccl {
namespace {

Program load(const std::string& name) {
  std::ifstream f(std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/msccl/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_program(ss.str(), name);
}

struct Outcome {
  bool rejected = false;
  bool names_step = false;  // some rejection names "gpu G tb T step S" and a rank
  bool names_mutated = false;
  bool names_unwritten_output = false;  // "o[j] of gpu G ends ... (no step writes it)" with the rank
  std::string what;
};

// Serializes the mutant and runs parser and checker, as check-file does.
Outcome judge(const Program& mutant, const std::string& mutated) {
  static const std::regex kStep("gpu [0-9]+ tb [0-9]+ step [0-9]+");
  Outcome o;
  try {
    const CheckResult r = check_program(parse_program(to_xml(mutant), "mutant.xml"));
    for (const Verdict& v : r.verdicts) {
      if (v.status != Status::violated) continue;
      o.rejected = true;
      const Counterexample& cx = *v.counterexample;
      o.what += v.property + ": " + cx.message + "\n";
      if (cx.rank && std::regex_search(cx.message, kStep)) o.names_step = true;
      if (cx.rank && cx.block && cx.message.find("of gpu " + std::to_string(*cx.rank)) != std::string::npos &&
          cx.message.find("no step writes it") != std::string::npos)
        o.names_unwritten_output = true;
      if (cx.message.find(mutated) != std::string::npos) o.names_mutated = true;
    }
  } catch (const InputError& e) {
    o.rejected = true;
    o.what = e.what();
    o.names_step = std::regex_search(o.what, kStep);
    o.names_mutated = o.what.find(mutated) != std::string::npos;
  }
  return o;
}

using Mutation = std::function<bool(Step&, const Gpu&)>;  // false: not applicable

int64_t size_of(const Gpu& g, Buf b) { return b == Buf::input ? g.i_chunks : b == Buf::output ? g.o_chunks : g.s_chunks; }

TEST(MscclMutation, EverySingleStepCorruptionIsRejectedAndNamed) {
  const std::vector<std::pair<std::string, Mutation>> mutations = {
      {"drop", [](Step& s, const Gpu&) {
         if (s.type == OpType::nop) return false;
         s.type = OpType::nop;
         return true;
       }},
      {"src+1", [](Step& s, const Gpu& g) {
         if (!reads_src(s.type) || size_of(g, s.srcbuf) < 2) return false;
         s.srcoff = (s.srcoff + 1) % size_of(g, s.srcbuf);
         return true;
       }},
      {"dst+1", [](Step& s, const Gpu& g) {
         if (!writes_dst(s.type) || size_of(g, s.dstbuf) < 2) return false;
         s.dstoff = (s.dstoff + 1) % size_of(g, s.dstbuf);
         return true;
       }},
      {"nodep", [](Step& s, const Gpu&) {
         if (s.depid < 0) return false;
         s.depid = s.deps = -1;
         return true;
       }},
  };
  size_t mutants = 0, named_mutated = 0, unwritten_only = 0;
  for (const char* file : {"ring_allreduce_4.xml", "ring_allgather_4.xml", "alltoall_4.xml", "allpairs_allreduce_4.xml"}) {
    const Program base = load(file);
    for (const Verdict& v : check_program(base).verdicts) ASSERT_EQ(v.status, Status::holds) << file;
    for (const Gpu& g : base.gpus)
      for (const ThreadBlock& tb : g.tbs)
        for (const Step& st : tb.steps)
          for (const auto& [name, mutate] : mutations) {
            Program m = base;
            Step& target = m.gpus[g.id].tbs[tb.id].steps[st.s];
            if (!mutate(target, g)) continue;
            ++mutants;
            const std::string id = step_name(g.id, tb.id, st.s);
            const Outcome o = judge(m, id);
            EXPECT_TRUE(o.rejected) << file << ": " << name << " of " << id << " was accepted";
            EXPECT_TRUE(o.names_step || ((name == "drop" || name == "dst+1") && o.names_unwritten_output))
                << file << ": " << name << " of " << id << ":\n" << o.what;
            named_mutated += o.names_mutated;
            unwritten_only += !o.names_step;
          }
  }
  // Four programs of 4 gpus: every step has at least the drop mutant.
  EXPECT_GE(mutants, 100u);
  std::cout << "[ msccl mutation ] " << mutants << " mutants, all rejected; " << named_mutated
            << " name the mutated step itself; " << unwritten_only
            << " name only the rank and the unwritten output chunk\n";
}

}  // namespace
}  // namespace collcheck::msccl
