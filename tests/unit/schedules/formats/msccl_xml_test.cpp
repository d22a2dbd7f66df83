// MSCCL algorithm XML importer (schedules/formats/msccl_xml.hpp, msccl_check.hpp):
// the correct programs of tests/data/msccl hold, with message and chunk
// counts derived independently from the algorithms (ring: 2(p-1) sends per
// gpu; direct alltoall: p-1; all-pairs: 2(p-1)); each broken program is
// violated in the property its defect belongs to, naming gpu, tb and step;
// every malformed input is an InputError "FILE:LINE: ...".
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "schedules/formats/msccl_check.hpp"
#include "schedules/formats/msccl_clocks.hpp"
#include "schedules/formats/msccl_xml.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "tests/support/run_binary.hpp"

namespace collcheck::msccl {
namespace {

std::string data(const std::string& name) { return std::string(COLLCHECK_SOURCE_DIR) + "/tests/data/msccl/" + name; }

CheckResult check_file(const std::string& name) { return check_program(parse_program(test::read_file(data(name)), name)); }

const Verdict& verdict(const CheckResult& r, const std::string& property) {
  for (const Verdict& v : r.verdicts)
    if (v.property == property) return v;
  static Verdict none;
  ADD_FAILURE() << "no verdict " << property;
  return none;
}

std::string input_error(const std::string& text, const std::string& path = "x.xml") {
  try {
    check_program(parse_program(text, path));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

struct Correct {
  const char* file;
  int p;
  uint64_t messages;  // sends over all gpus, from the algorithm
};

TEST(MscclXml, CorrectProgramsHold) {
  const Correct cases[] = {
      {"ring_allreduce_4.xml", 4, 4 * 2 * 3},  {"ring_allreduce_8.xml", 8, 8 * 2 * 7},
      {"ring_allgather_4.xml", 4, 4 * 3},      {"ring_allgather_8.xml", 8, 8 * 7},
      {"alltoall_4.xml", 4, 4 * 3},            {"alltoall_8.xml", 8, 8 * 7},
      {"allpairs_allreduce_4.xml", 4, 4 * 2 * 3}};
  for (const Correct& c : cases) {
    SCOPED_TRACE(c.file);
    const CheckResult r = check_file(c.file);
    ASSERT_EQ(r.verdicts.size(), 4u);
    for (const Verdict& v : r.verdicts) {
      EXPECT_EQ(v.status, Status::holds) << v.property << ": "
                                         << (v.counterexample ? v.counterexample->message : std::string());
      EXPECT_GT(v.checks, 0u) << v.property;
    }
    EXPECT_EQ(r.stats.at("messages"), std::to_string(c.messages));
    EXPECT_EQ(r.stats.at("races_checked"), "yes");
  }
}

TEST(MscclXml, RingAllreduceSendsTwoPMinusOneChunksPerGpu) {
  // Ring allreduce: each gpu sends p-1 chunks in the reduce-scatter and p-1
  // in the allgather (one chunk of n/p each).
  for (int p : {4, 8}) {
    const CheckResult r = check_file("ring_allreduce_" + std::to_string(p) + ".xml");
    EXPECT_EQ(r.stats.at("max_chunks_sent"), std::to_string(2 * (p - 1)));
    // Every step waits for the previous one of its ring neighbour: 2(p-1)+1 levels.
    EXPECT_EQ(r.stats.at("depth"), std::to_string(2 * (p - 1) + 1));
  }
}

struct Broken {
  const char* file;
  const char* property;
  const char* names;  // the step the counterexample must name
  Rank rank;
};

TEST(MscclXml, BrokenProgramsAreViolatedWhereTheDefectIs) {
  const Broken cases[] = {
      // gpu 1's tb for peer 3 sends; gpu 3 has no receive for it.
      {"broken_unmatched_send.xml", "matching", "gpu 1 tb 2 step 0", 1},
      // gpu 2's reducer adds s[0] twice: its second re is the culprit.
      {"broken_reduced_twice.xml", "exactly-once", "gpu 2 tb 3 step 1", 2},
      // every gpu stops one hop early: o[1] of gpu 0 lacks gpu 1's chunk.
      {"broken_missing_chunk.xml", "postcondition", "o[1] of gpu 0", 0},
      // gpu 1's reducer waits for a receive without hasdep.
      {"broken_dependency_hasdep.xml", "causality", "gpu 1 tb 3 step 0", 1},
      // gpu 0's reducer waits for its own last step.
      {"broken_dependency_cycle.xml", "causality", "deadlock", 0},
      // gpu 0 sends i[0] before its reducer has finished writing it.
      {"broken_race.xml", "causality", "race on i[0] of gpu 0", 0},
  };
  for (const Broken& c : cases) {
    SCOPED_TRACE(c.file);
    const CheckResult r = check_file(c.file);
    const Verdict& v = verdict(r, c.property);
    ASSERT_EQ(v.status, Status::violated);
    ASSERT_TRUE(v.counterexample.has_value());
    EXPECT_NE(v.counterexample->message.find(c.names), std::string::npos) << v.counterexample->message;
    ASSERT_TRUE(v.counterexample->rank.has_value());
    EXPECT_EQ(*v.counterexample->rank, c.rank);
    EXPECT_EQ(v.counterexample->p, 4u);
  }
}

TEST(MscclXml, MissingChunkIsMissingOnEveryGpu) {
  // The ring stops one hop early on all four gpus: one chunk missing each.
  const CheckResult r = check_file("broken_missing_chunk.xml");
  EXPECT_EQ(verdict(r, "postcondition").violations, 4u);
  EXPECT_EQ(verdict(r, "matching").status, Status::holds);
}

struct Malformed {
  const char* file;
  const char* expect;  // FILE:LINE: and what was expected
};

TEST(MscclXml, MalformedFilesAreInputErrorsWithLine) {
  const Malformed cases[] = {
      {"malformed_truncated.xml", "malformed_truncated.xml:21: malformed XML"},
      {"malformed_attribute_type.xml", "malformed_attribute_type.xml:6: gpu 0 tb 0 step 2: attribute srcoff=\"two\" is not an integer"},
      {"malformed_cnt_fraction.xml", "malformed_cnt_fraction.xml:4: gpu 0 tb 0 step 0: attribute cnt=\"1.5\" is not an integer"},
      {"malformed_unknown_type.xml", "malformed_unknown_type.xml:5: gpu 0 tb 0 step 1: unknown step type \"rrx\""},
      {"malformed_dependency_range.xml", "malformed_dependency_range.xml:22: gpu 0 tb 3 step 0: depends on gpu 0 tb 0 step 7, which does not exist"},
      {"malformed_offset_range.xml", "malformed_offset_range.xml:5: gpu 0 tb 0 step 1: source i[4..5) is outside"},
      {"malformed_ngpus.xml", "malformed_ngpus.xml:1: <algo ngpus=\"5\"> but 4 <gpu> element(s)"},
  };
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string e = input_error(test::read_file(data(c.file)), c.file);
    EXPECT_EQ(e.rfind(c.expect, 0), 0u) << e;
  }
}

const char* kTiny =
    "<algo name=\"t\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allgather\" inplace=\"0\">\n"
    " <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n"
    "  <tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n"
    "   <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "   <step s=\"1\" type=\"s\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "   <step s=\"2\" type=\"r\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "  </tb>\n"
    " </gpu>\n"
    " <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n"
    "  <tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n"
    "   <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "   <step s=\"1\" type=\"s\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "   <step s=\"2\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "  </tb>\n"
    " </gpu>\n"
    "</algo>\n";

std::string tiny_with(const std::string& from, const std::string& to, size_t nth = 0) {
  std::string t = kTiny;
  size_t at = 0;
  for (size_t k = 0; k <= nth; ++k) {
    at = t.find(from, k ? at + 1 : 0);
    if (at == std::string::npos) return t;
  }
  return t.replace(at, from.size(), to);
}

TEST(MscclXml, TinyAllgatherHoldsAndRoundTrips) {
  const Program p = parse_program(kTiny, "tiny.xml");
  for (const Verdict& v : check_program(p).verdicts) EXPECT_EQ(v.status, Status::holds) << v.property;
  const Program q = parse_program(to_xml(p), "again.xml");
  EXPECT_EQ(to_xml(q), to_xml(p));
  EXPECT_EQ(q.num_steps(), 6u);
  EXPECT_EQ(q.chunk_factor, 1);
}

TEST(MscclXml, SendingAChunkBeforeItHoldsDataIsACausalityViolation) {
  // gpu 0 sends o[0] before copying its input there (steps swapped by s).
  std::string t = tiny_with("type=\"cpy\"", "type=\"nop\"");
  const CheckResult r = check_program(parse_program(t, "t.xml"));
  const Verdict& c = verdict(r, "causality");
  ASSERT_EQ(c.status, Status::violated);
  EXPECT_NE(c.counterexample->message.find("gpu 0 tb 0 step 1"), std::string::npos) << c.counterexample->message;
  EXPECT_NE(c.counterexample->message.find("holds no data"), std::string::npos);
}

TEST(MscclXml, ChunkCountMismatchIsAMatchingViolation) {
  // gpu 1's receive expects 2 chunks where gpu 0 sent 1 (o has room for 2).
  std::string t = tiny_with("srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\"", "srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"2\"", 2);
  const CheckResult r = check_program(parse_program(t, "t.xml"));
  const Verdict& m = verdict(r, "matching");
  ASSERT_EQ(m.status, Status::violated) << t;
  EXPECT_NE(m.counterexample->message.find("gpu 1 tb 0 step 2"), std::string::npos) << m.counterexample->message;
  EXPECT_EQ(m.counterexample->expected.rfind("cnt=1", 0), 0u);
}

TEST(MscclXml, StructuralErrorsNameLineAndWhatWasExpected) {
  struct Case {
    std::string text;
    std::string expect;
  };
  const Case cases[] = {
      {"<root/>", "x.xml:1: the root element is <root>, expected <algo>"},
      {"", "x.xml:1: malformed XML"},
      {tiny_with("coll=\"allgather\"", "coll=\"broadcast\""), "x.xml:1: <algo>: coll=\"broadcast\" is not a collective"},
      {tiny_with("nchunksperloop=\"2\"", "nchunksperloop=\"3\""), "x.xml:1: <algo>: nchunksperloop=3 is not a multiple of ngpus=2"},
      {tiny_with("<gpu id=\"1\"", "<gpu id=\"0\""), "x.xml:9: gpu 0 appears twice"},
      {tiny_with("<step s=\"1\"", "<step s=\"2\""), "x.xml:5: gpu 0 tb 0 step 2: steps must be numbered 0, 1, 2, ... in order; expected s=1"},
      {tiny_with("srcbuf=\"o\"", "srcbuf=\"q\""), "x.xml:5: gpu 0 tb 0 step 1: attribute srcbuf=\"q\" is not a buffer"},
      {tiny_with("send=\"1\"", "send=\"-1\""), "x.xml:5: gpu 0 tb 0 step 1: type s sends, but gpu 0 tb 0 has send=\"-1\""},
      {tiny_with("recv=\"1\"", "recv=\"0\""), "x.xml:3: gpu 0 tb 0: a threadblock cannot send to or receive from its own gpu"},
      {tiny_with("send=\"1\"", "send=\"7\""), "x.xml:3: gpu 0 tb 0: attribute send=7 is outside -1..1"},
      {tiny_with("depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"-1\""), "x.xml:4: gpu 0 tb 0 step 0: depid=0 deps=-1: both must be -1"},
      {tiny_with("o_chunks=\"2\"", "o_chunks=\"1\""), "x.xml:2: gpu 0: i_chunks=1 o_chunks=1, but the allgather of 2 gpus"},
      {tiny_with(" hasdep=\"0\"/>", "/>"), "x.xml:4: gpu 0 tb 0 step 0: missing attribute 'hasdep'"},
      {tiny_with("</tb>", "<x/></tb>"), "x.xml:7: gpu 0 tb 0: unexpected <x> inside <tb> (expected <step>)"},
      {tiny_with("name=\"t\"", "name=\"\xff\""), "x.xml:1: byte 255 is not valid UTF-8"},
      {std::string(kTiny) + "<algo/>", "x.xml:17: a second root element <algo> after </algo>"},
  };
  for (const Case& c : cases) {
    const std::string e = input_error(c.text);
    EXPECT_EQ(e.rfind(c.expect, 0), 0u) << "got: " << e << "\nwant: " << c.expect;
  }
}

TEST(MscclXml, DetectsTheAlgoRootElement) {
  EXPECT_TRUE(looks_like_msccl(kTiny));
  EXPECT_TRUE(looks_like_msccl("<?xml version=\"1.0\"?>\n<!-- x -->\n<algo ngpus=\"1\"/>"));
  EXPECT_FALSE(looks_like_msccl("{\"format\": \"collcheck-schedule/1\"}"));
  EXPECT_FALSE(looks_like_msccl("<algorithm/>"));
  EXPECT_FALSE(looks_like_msccl(""));
}

// pugixml keeps the first of two equal attributes; the
// importer refuses them (as the schedule reader refuses duplicate JSON keys),
// naming the line and the attribute, on any element.
TEST(MscclXml, DuplicateAttributesAreRefused) {
  std::string e = input_error(tiny_with("coll=\"allgather\"", "coll=\"allreduce\" coll=\"allgather\""));
  EXPECT_EQ(e, "x.xml:1: <algo>: attribute 'coll' appears twice (an attribute may appear once per element)");
  e = input_error(tiny_with(" hasdep=\"0\"/>", " hasdep=\"0\" cnt=\"1\"/>", 1));
  EXPECT_EQ(e.rfind("x.xml:5: <step>: attribute 'cnt' appears twice", 0), 0u) << e;
  e = input_error(tiny_with("</tb>", "<!-- x --></tb>").insert(0, "<?xml version=\"1.0\"?>\n<!DOCTYPE algo [<!ATTLIST algo a CDATA \"1\">]>\n") +
                  "<!-- <x a=\"1\" a=\"2\"/> -->");
  EXPECT_EQ(e, "");  // comments and the DOCTYPE's declarations are not elements
}

// A DOCTYPE before <algo> is part of the prolog: detection skips it (with an
// internal subset whose declarations hold '>' and ']' in literals), and
// its entities stay inert: pugixml expands none but the predefined ones, so
// an entity bomb is read as the literal text "&lol9;" (and is not a name the
// checker needs), and an external entity is never fetched.
TEST(MscclXml, DoctypeBeforeAlgoIsDetectedAndItsEntitiesAreInert) {
  std::string bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE algo [\n <!ENTITY lol \"lol\">\n";
  bomb += " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n";
  for (int k = 2; k <= 9; ++k) {
    bomb += " <!ENTITY lol" + std::to_string(k) + " \"";
    for (int i = 0; i < 10; ++i) bomb += "&lol" + std::to_string(k - 1) + ";";
    bomb += "\">\n";
  }
  bomb += " <!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n <!ENTITY odd \"]>\">\n]>\n";
  const std::string text = bomb + tiny_with("name=\"t\"", "name=\"&lol9;&xxe;\"");
  EXPECT_TRUE(looks_like_msccl(text));
  EXPECT_TRUE(looks_like_msccl("<!DOCTYPE algo SYSTEM \"algo.dtd\">\n<algo ngpus=\"1\"/>"));
  EXPECT_TRUE(looks_like_msccl("<!-- a --><?pi x?><!DOCTYPE algo [<!-- ] > --> <!ELEMENT algo ANY>]><algo/>"));
  EXPECT_FALSE(looks_like_msccl("<!DOCTYPE algo [ <!ENTITY x \"y\"> ]><root/>"));
  EXPECT_FALSE(looks_like_msccl("<!DOCTYPE algo [ <!ENTITY x \"y\">"));  // unterminated
  const Program p = parse_program(text, "bomb.xml");
  EXPECT_EQ(p.name, "&lol9;&xxe;");
  for (const Verdict& v : check_program(p).verdicts) EXPECT_EQ(v.status, Status::holds) << v.property;
}

// The memory guard: the text and the tree pugixml would
// build, estimated before it allocates; newlines no longer cost 8 bytes each
// in the line index (a block index: 1/256 of the text).
TEST(MscclXml, ParsingIsGuardedByTheMemoryLimit) {
  const std::string text = kTiny + std::string(1 << 20, '\n');
  EXPECT_NO_THROW(parse_program(text, "x.xml", 64 << 20));
  try {
    parse_program(text, "x.xml", 2 << 20);
    ADD_FAILURE() << "not refused";
  } catch (const ResourceRefusal& e) {
    EXPECT_EQ(std::string(e.what()).rfind("refused by the memory guard while reading x.xml: its text and document tree "
                                          "takes an estimated 2.0",
                                          0),
              0u)
        << e.what();
  }
  // Line numbers after a million newlines are still exact.
  const std::string e = input_error(std::string(1 << 20, '\n') + tiny_with("coll=\"allgather\"", "coll=\"x\""));
  EXPECT_EQ(e.rfind("x.xml:" + std::to_string((1 << 20) + 1) + ": <algo>: coll=\"x\"", 0), 0u) << e;
}

TEST(MscclXml, TooLargeToSimulateIsAnInputError) {
  // gpu 0 gets `chunks` scratch chunks and a peerless threadblock copying all
  // of them `copies` times: copies * 2 * chunks chunk accesses.
  auto program = [](int chunks, int copies) {
    std::string steps;
    for (int k = 0; k < copies; ++k)
      steps += "   <step s=\"" + std::to_string(k) + "\" type=\"cpy\" srcbuf=\"s\" srcoff=\"0\" dstbuf=\"s\" dstoff=\"0\" cnt=\"" +
               std::to_string(chunks) + "\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
    std::string t = tiny_with("o_chunks=\"2\" s_chunks=\"0\">", "o_chunks=\"2\" s_chunks=\"" + std::to_string(chunks) + "\">");
    const size_t at = t.find("  </tb>\n") + std::string("  </tb>\n").size();
    return t.insert(at, "  <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" + steps + "  </tb>\n");
  };
  // 9 * 2 * 2^20 > 2^24 accesses.
  const std::string big = input_error(program(1 << 20, 9));
  EXPECT_EQ(big.rfind("x.xml: too large to simulate chunk by chunk", 0), 0u) << big;
  // A small one is simply checked (its scratch holds no data: causality).
  const CheckResult r = check_program(parse_program(program(64, 9), "x.xml"));
  EXPECT_EQ(verdict(r, "causality").status, Status::violated);
}

// One gpu, two peerless threadblocks of `per_tb` copies each (2 * per_tb
// steps): tb 0 copies i[0] to s[0], then s[0] onto itself again and again,
// and last s[0] to o[0]; tb 1 copies i[0] to s[1] again and again, except
// that in its middle step it writes s[0]: unordered with tb 0's steps
// (racy: two steps of one gpu writing one chunk, nothing ordering them),
// after tb 0's last step (ordered: depid/deps), or not at all (disjoint).
enum class Sharing { disjoint, racy, ordered };
std::string two_copiers(int per_tb, Sharing sharing) {
  auto step = [](int s, const char* src, const char* dst, const std::string& dep = "depid=\"-1\" deps=\"-1\"",
                 int hasdep = 0) {
    return "   <step s=\"" + std::to_string(s) + "\" type=\"cpy\" srcbuf=\"" + src[0] + "\" srcoff=\"" + src[1] +
           "\" dstbuf=\"" + dst[0] + "\" dstoff=\"" + dst[1] + "\" cnt=\"1\" " + dep + " hasdep=\"" +
           std::to_string(hasdep) + "\"/>\n";
  };
  std::string t = "<algo name=\"copiers\" nchunksperloop=\"1\" ngpus=\"1\" coll=\"allreduce\" inplace=\"0\">\n"
                  " <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"2\">\n  <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n";
  const bool last_signals = sharing == Sharing::ordered;
  for (int s = 0; s < per_tb; ++s)
    t += step(s, s == 0 ? "i0" : "s0", s == per_tb - 1 ? "o0" : "s0", "depid=\"-1\" deps=\"-1\"",
              last_signals && s == per_tb - 1);
  t += "  </tb>\n  <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n";
  for (int s = 0; s < per_tb; ++s) {
    const bool middle = s == per_tb / 2 && sharing != Sharing::disjoint;
    t += step(s, "i0", middle ? "s0" : "s1",
              middle && sharing == Sharing::ordered ? "depid=\"0\" deps=\"" + std::to_string(per_tb - 1) + "\""
                                                    : "depid=\"-1\" deps=\"-1\"");
  }
  return t + "  </tb>\n </gpu>\n</algo>\n";
}

// Races are decided at any size, not only up to 16384 steps: a program of
// 23008 steps with a real race is violated, the same without the race holds.
TEST(MscclXml, RacesAreDecidedInProgramsOfMoreThan16384Steps) {
  const Program racy = parse_program(two_copiers(11504, Sharing::racy), "racy.xml");
  ASSERT_EQ(racy.num_steps(), 23008u);
  const CheckResult r = check_program(racy);
  const Verdict& c = verdict(r, "causality");
  ASSERT_EQ(c.status, Status::violated);
  // The minimal counterexample: tb 0's first write of s[0] against tb 1's.
  EXPECT_EQ(c.counterexample->message.rfind("gpu 0 tb 0 step 0 (line 4, cpy): race on s[0] of gpu 0 with gpu 0 tb 1 step 5752", 0),
            0u)
      << c.counterexample->message;
  EXPECT_EQ(c.counterexample->location(), "p=1 rank=0 step=0 block=0");
  EXPECT_EQ(verdict(r, "postcondition").status, Status::holds);
  EXPECT_EQ(r.stats.at("races_checked"), "yes");
  for (Sharing sharing : {Sharing::ordered, Sharing::disjoint}) {
    const CheckResult ok = check_program(parse_program(two_copiers(11504, sharing), "ok.xml"));
    for (const Verdict& v : ok.verdicts) EXPECT_EQ(v.status, Status::holds) << v.property;
    EXPECT_EQ(ok.stats.at("races_checked"), "yes");
  }
}

// A racy chunk with many accesses is not listed pair by pair, and its
// counterexample is still the minimal one: the same as the full listing's.
TEST(MscclXml, RacyChunkBeyondThePairListingHasTheMinimalCounterexample) {
  for (const std::string& text : {two_copiers(1000, Sharing::racy), test::read_file(data("broken_race.xml"))}) {
    const Program p = parse_program(text, "x.xml");
    Limits scan;
    scan.max_pair_listing = 0;
    const Verdict all = verdict(check_program(p), "causality");
    const Verdict few = verdict(check_program(p, modes(p).front(), scan), "causality");
    ASSERT_EQ(all.status, Status::violated);
    ASSERT_EQ(few.status, Status::violated);
    EXPECT_EQ(few.counterexample->location(), all.counterexample->location());
    EXPECT_EQ(few.counterexample->message, all.counterexample->message);
    EXPECT_LE(few.violations, all.violations);
  }
}

// Beyond the clock budget races are not checked, and causality says so:
// unknown with the reason, never holds (a race it could not see included).
TEST(MscclXml, RaceCheckBeyondTheClockBudgetIsUnknownNotHolds) {
  Limits tight;
  tight.max_clock_bytes = 1000;  // 2 threadblocks x 2000 steps x 4 bytes = 16000
  for (Sharing sharing : {Sharing::ordered, Sharing::racy}) {
    const bool race = sharing == Sharing::racy;
    SCOPED_TRACE(race);
    const Program p = parse_program(two_copiers(1000, sharing), "x.xml");
    const CheckResult r = check_program(p, Mode::out_of_place, tight);
    const Verdict& c = verdict(r, "causality");
    EXPECT_EQ(c.status, Status::unknown);
    EXPECT_EQ(c.stats.at("reason_unknown"),
              "races not checked on gpu 0: its vector clocks (2000 steps x the gpu's threadblocks x 4 bytes: 16000 "
              "bytes) exceed the budget of 1000 bytes");
    EXPECT_EQ(r.stats.at("races_checked").rfind("no (races not checked on gpu 0", 0), 0u) << r.stats.at("races_checked");
    EXPECT_EQ(check_program(p).verdicts[1].status, race ? Status::violated : Status::holds);
  }
  // Steps of one threadblock need no clocks: a program sharing no chunk
  // between threadblocks is decided whatever the budget.
  const CheckResult r = check_program(parse_program(two_copiers(1000, Sharing::disjoint), "x.xml"), Mode::out_of_place, tight);
  EXPECT_EQ(verdict(r, "causality").status, Status::holds);
}

// A deadlocked program fails causality; the races among the steps that run
// are checked and the stat says the others were not.
TEST(MscclXml, DeadlockSaysRacesWereNotCheckedForTheStepsThatNeverRun) {
  const CheckResult r = check_file("broken_dependency_cycle.xml");
  const Verdict& c = verdict(r, "causality");
  ASSERT_EQ(c.status, Status::violated);
  const std::string said = r.stats.at("races_checked");
  EXPECT_NE(said.find(" steps that run; not for the "), std::string::npos) << said;
  EXPECT_NE(said.find(" steps that never run (deadlock)"), std::string::npos) << said;
  EXPECT_EQ(c.stats.at("races_checked"), said);
}

// The transitive closure as a bit matrix (the race check's former method):
// reach[v] = the nodes that happen before v.
std::vector<std::vector<bool>> closure(const std::vector<std::vector<size_t>>& succ, const std::vector<size_t>& topo) {
  std::vector<std::vector<bool>> reach(succ.size(), std::vector<bool>(succ.size(), false));
  for (size_t v : topo)
    for (size_t w : succ[v]) {
      for (size_t a = 0; a < succ.size(); ++a)
        if (reach[v][a]) reach[w][a] = true;
      reach[w][v] = true;
    }
  return reach;
}

// Every (a, b) with a in chains [lo, hi) and b run: clocks and closure agree.
size_t expect_clocks_match_closure(const std::vector<std::vector<size_t>>& succ, const std::vector<size_t>& topo,
                                   const std::vector<uint32_t>& chain, const std::vector<int32_t>& pos, uint32_t lo,
                                   uint32_t hi) {
  const auto reach = closure(succ, topo);
  const ChainClocks hb(succ, topo, chain, pos, lo, hi);
  size_t compared = 0;
  for (size_t a = 0; a < succ.size(); ++a) {
    if (chain[a] < lo || chain[a] >= hi) continue;
    for (size_t b : topo) {
      EXPECT_EQ(hb.before(a, b), static_cast<bool>(reach[b][a])) << a << " before " << b;
      ++compared;
    }
  }
  return compared;
}

TEST(MscclXml, VectorClocksAgreeWithTheClosureOnTheTestPrograms) {
  size_t compared = 0;
  for (const char* f : {"ring_allreduce_4.xml", "ring_allreduce_8.xml", "ring_allgather_8.xml", "alltoall_8.xml",
                        "allpairs_allreduce_4.xml", "broken_race.xml", "broken_dependency_cycle.xml",
                        "broken_dependency_hasdep.xml", "broken_unmatched_send.xml", "broken_reduced_twice.xml"}) {
    SCOPED_TRACE(f);
    const StepGraph g = step_graph(parse_program(test::read_file(data(f)), f));
    for (size_t k = 0; k + 1 < g.gpu_chains.size(); ++k)
      compared += expect_clocks_match_closure(g.succ, g.topo, g.chain, g.pos, g.gpu_chains[k], g.gpu_chains[k + 1]);
  }
  EXPECT_GT(compared, 10000u);
}

// Random DAGs of chains: chain order, random forward edges, and a random
// suffix of the order that never runs.
RC_GTEST_PROP(MscclClocks, AgreeWithTheClosureOnRandomChainDags, ()) {
  const size_t n = *rc::gen::inRange<size_t>(1, 48);
  const uint32_t chains = *rc::gen::inRange<uint32_t>(1, 7);
  std::vector<uint32_t> chain(n);
  std::vector<int32_t> pos(n);
  std::vector<int32_t> next(chains, 0);
  std::vector<std::vector<size_t>> succ(n);
  std::vector<int64_t> last(chains, -1);
  for (size_t v = 0; v < n; ++v) {
    chain[v] = *rc::gen::inRange<uint32_t>(0, chains);
    pos[v] = next[chain[v]]++;
    if (last[chain[v]] >= 0) succ[static_cast<size_t>(last[chain[v]])].push_back(v);
    last[chain[v]] = static_cast<int64_t>(v);
  }
  const size_t extra = *rc::gen::inRange<size_t>(0, 2 * n);
  for (size_t k = 0; k < extra && n > 1; ++k) {
    const size_t a = *rc::gen::inRange<size_t>(0, n - 1);
    succ[a].push_back(*rc::gen::inRange<size_t>(a + 1, n));
  }
  std::vector<size_t> topo(*rc::gen::inRange<size_t>(0, n + 1));  // a prefix runs
  for (size_t v = 0; v < topo.size(); ++v) topo[v] = v;
  const uint32_t lo = *rc::gen::inRange<uint32_t>(0, chains);
  const uint32_t hi = *rc::gen::inRange<uint32_t>(lo + 1, chains + 1);
  expect_clocks_match_closure(succ, topo, chain, pos, lo, hi);
  RC_ASSERT(!::testing::Test::HasFailure());
}

// Two threadblocks of one gpu on one connection (same peer, same channel,
// same direction): well-formed XML, a program the runtime cannot run, so a
// matching violation naming both threadblocks, not malformed input.
TEST(MscclXml, TwoThreadblocksOnOneConnectionAreAMatchingViolation) {
  const std::string second =
      "  <tb id=\"1\" send=\"1\" recv=\"-1\" chan=\"0\">\n"
      "   <step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
      "  </tb>\n";
  for (const auto& [attrs, verb] : {std::pair<std::string, std::string>{"send=\"1\" recv=\"-1\"", "send to"},
                                    {"send=\"-1\" recv=\"1\"", "receive from"}}) {
    std::string t = kTiny;
    const size_t at = t.find("  </tb>\n") + std::string("  </tb>\n").size();
    std::string tb = second;
    tb.replace(tb.find("send=\"1\" recv=\"-1\""), 18, attrs);
    t.insert(at, tb);
    const CheckResult r = check_program(parse_program(t, "two.xml"));
    const Verdict& m = verdict(r, "matching");
    ASSERT_EQ(m.status, Status::violated) << verb;
    EXPECT_EQ(m.counterexample->message, "gpu 0 tb 0 (line 3) and tb 1 (line 8) both " + verb +
                                             " gpu 1 on channel 0: the connection is one FIFO, which the runtime "
                                             "gives to one threadblock, so it cannot run this program");
    EXPECT_EQ(m.counterexample->location(), "p=2 rank=0 peer=1");
  }
}

// coll="custom": no postcondition to judge, so exactly-once and
// postcondition are unknown ("not judged"), never holds; matching and
// causality are judged as for any collective.
TEST(MscclXml, CustomCollectiveIsCheckedExceptWhatNeedsThePostcondition) {
  const CheckResult r = check_program(parse_program(tiny_with("coll=\"allgather\"", "coll=\"custom\""), "c.xml"));
  EXPECT_EQ(verdict(r, "matching").status, Status::holds);
  EXPECT_EQ(verdict(r, "causality").status, Status::holds);
  for (const char* prop : {"exactly-once", "postcondition"}) {
    EXPECT_EQ(verdict(r, prop).status, Status::unknown) << prop;
    EXPECT_EQ(verdict(r, prop).stats.at("reason_unknown"), "not judged: coll=custom has no postcondition");
  }
  EXPECT_EQ(combined_status(r.verdicts), Status::unknown);
  // A defect matching or causality sees is still violated.
  const std::string racy = tiny_with("coll=\"allgather\"", "coll=\"custom\"");
  const CheckResult nodata = check_program(parse_program(
      std::string(racy).replace(racy.find("type=\"cpy\""), 10, "type=\"nop\""), "c.xml"));
  EXPECT_EQ(verdict(nodata, "causality").status, Status::violated);
}

// <algo outofplace>: every mode a file declares is checked.
TEST(MscclXml, EveryDeclaredModeIsChecked) {
  struct Case {
    const char* attrs;
    std::vector<Mode> modes;
  };
  const Case cases[] = {{"inplace=\"0\"", {Mode::out_of_place}},
                        {"inplace=\"1\"", {Mode::in_place}},
                        {"inplace=\"1\" outofplace=\"1\"", {Mode::in_place, Mode::out_of_place}},
                        {"inplace=\"0\" outofplace=\"1\"", {Mode::out_of_place}},
                        {"inplace=\"1\" outofplace=\"0\"", {Mode::in_place}},
                        {"outofplace=\"1\"", {Mode::out_of_place}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    const Program p = parse_program(tiny_with("inplace=\"0\"", c.attrs), "m.xml");
    const std::vector<CheckResult> rs = check_modes(p);
    ASSERT_EQ(rs.size(), c.modes.size());
    for (size_t k = 0; k < rs.size(); ++k) EXPECT_EQ(rs[k].mode, c.modes[k]);
    EXPECT_EQ(to_xml(parse_program(to_xml(p), "again.xml")), to_xml(p));
  }
  EXPECT_EQ(input_error(tiny_with("inplace=\"0\"", "inplace=\"0\" outofplace=\"0\"")),
            "x.xml:1: <algo>: inplace=\"0\" outofplace=\"0\": the program declares neither way of running it (the "
            "runtime never selects it)");
  // Racy in place only: both modes' verdicts, each its own.
  const std::vector<CheckResult> rs = check_modes(parse_program(test::read_file(data("allreduce_2_race_in_place.xml")), "a.xml"));
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(verdict(rs[0], "causality").status, Status::violated);
  EXPECT_EQ(combined_status(rs[1].verdicts), Status::holds);
}

// The data files that state their verdicts ("<!-- expect: MODE STATUS
// [PROPERTY=STATUS ...]; ... -->", tests/data/msccl/generate.py's MUTANTS)
// have them, one clause per declared mode.
TEST(MscclXml, DataFilesHaveTheVerdictsTheyState) {
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(data(""))) {
    if (e.path().extension() != ".xml") continue;
    const std::string text = test::read_file(e.path().string());
    const size_t at = text.find("<!-- expect: ");
    if (at == std::string::npos) continue;
    ++files;
    SCOPED_TRACE(e.path().filename().string());
    std::stringstream clauses(text.substr(at + 13, text.find(" -->", at) - at - 13));
    const std::vector<CheckResult> rs = check_modes(parse_program(text, e.path().filename().string()));
    std::string clause;
    size_t k = 0;
    for (; std::getline(clauses, clause, ';'); ++k) {
      std::stringstream words(clause);
      std::string mode, status, prop;
      words >> mode >> status;
      ASSERT_LT(k, rs.size()) << clause;
      EXPECT_EQ(to_string(rs[k].mode), mode);
      EXPECT_EQ(to_string(combined_status(rs[k].verdicts)), status) << mode;
      while (words >> prop) {
        const size_t eq = prop.find('=');
        EXPECT_EQ(to_string(verdict(rs[k], prop.substr(0, eq)).status), prop.substr(eq + 1)) << mode << " " << prop;
      }
    }
    EXPECT_EQ(k, rs.size());
  }
  EXPECT_GE(files, 6u);
}

// Fuzzing: random byte edits and random attribute values of a correct
// program never crash or hang the importer: it returns verdicts or throws
// InputError "FILE:LINE: ..." (or "FILE: ..." for size limits).
RC_GTEST_PROP(MscclXmlFuzz, ByteEditsGiveVerdictsOrInputErrors, ()) {
  std::string t = test::read_file(data("allpairs_allreduce_4.xml"));
  const int edits = *rc::gen::inRange(1, 6);
  for (int k = 0; k < edits; ++k) {
    const size_t at = *rc::gen::inRange<size_t>(0, t.size());
    const char c = *rc::gen::element('<', '>', '/', '"', '=', '-', '0', '1', '9', ' ', 'x', '\n', '\xff', '&');
    switch (*rc::gen::inRange(0, 3)) {
      case 0: t[at] = c; break;
      case 1: t.insert(at, 1, c); break;
      default: t.erase(at, 1); break;
    }
  }
  try {
    const CheckResult r = check_program(parse_program(t, "fuzz.xml"));
    RC_ASSERT(r.verdicts.size() == 4u);
  } catch (const InputError& e) {
    RC_ASSERT(std::string(e.what()).rfind("fuzz.xml:", 0) == 0u);
  }
}

RC_GTEST_PROP(MscclXmlFuzz, RandomAttributeValuesGiveVerdictsOrInputErrors, ()) {
  std::string t = test::read_file(data("allpairs_allreduce_4.xml"));
  // Replace a few numeric attribute values with small integers (in range or not).
  std::vector<size_t> quotes;
  for (size_t at = t.find("=\""); at != std::string::npos; at = t.find("=\"", at + 1)) quotes.push_back(at + 2);
  const int edits = *rc::gen::inRange(1, 4);
  for (int k = 0; k < edits; ++k) {
    const size_t start = quotes[*rc::gen::inRange<size_t>(0, quotes.size())];
    const size_t end = t.find('"', start);
    const std::string v = t.substr(start, end - start);
    if (v.empty() || !(std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-')) continue;
    const int x = *rc::gen::inRange(-2, 10);
    t.replace(start, end - start, std::to_string(x));
  }
  try {
    const CheckResult r = check_program(parse_program(t, "fuzz.xml"));
    RC_ASSERT(r.verdicts.size() == 4u);
  } catch (const InputError& e) {
    RC_ASSERT(std::string(e.what()).rfind("fuzz.xml", 0) == 0u);
  }
}

}  // namespace
}  // namespace collcheck::msccl
