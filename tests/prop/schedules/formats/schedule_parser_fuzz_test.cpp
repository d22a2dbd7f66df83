// Fuzzing the schedule-file readers (schedules/formats/schedule_file.hpp, both
// encodings) with rapidcheck-generated input:
//
//  * random bytes, random JSON values over the format's own vocabulary (keys
//    and values that almost fit), and structured mutations of valid JSON and
//    JSON-lines files (byte flips, deletions, duplications, inserted tokens
//    such as -1, 1e999, 2^64, \xff, swapped and dropped lines, truncation);
//  * the reader, forced to either encoding or detecting it, either accepts
//    or throws InputError with one line naming the source; never another
//    exception, a crash or a hang (each parse is timed, bounded by 2 s);
//  * whatever it accepts is well-formed: p rank entries per step, peers < p,
//    non-empty blocks within nblocks, and check_schedule runs on it;
//  * random valid schedules survive both encodings unchanged (JSON and JSON
//    lines give the same MaterializedSchedule as the one written);
//  * the JSON-lines fast path and the SAX path agree on mutated files: both
//    accept with the same schedule, or both reject with the same message.
// Run under -fsanitize=address,undefined once (see /tmp/notes/h7-readme.md).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"
#include "schedules/formats/schedule_file.hpp"
#include "schedules/formats/schedule_reader.hpp"

namespace collcheck {
namespace {

using nlohmann::json;

std::string valid_text(ScheduleEncoding enc, const char* algo, uint64_t p) {
  auto s = find_algorithm(algo)->default_variant().make(InstanceParams{p, 0});
  FileMeta meta;
  meta.claims = FileClaims{};
  meta.claims->steps = s->num_steps();
  meta.claims->properties = {"matching", "postcondition"};
  meta.producer = {{"tool", "fuzz"}};
  std::ostringstream out;
  if (enc == ScheduleEncoding::json) write_schedule_json(out, *s, meta, true);
  else write_schedule_jsonl(out, *s, meta);
  return out.str();
}

// The reader's contract on arbitrary input; returns how many of the three
// readings (auto, json, jsonl) accepted it.
int accept_or_input_error(const std::string& text) {
  int accepted = 0;
  for (std::optional<ScheduleEncoding> enc :
       {std::optional<ScheduleEncoding>(), std::optional(ScheduleEncoding::json), std::optional(ScheduleEncoding::jsonl)}) {
    const auto start = std::chrono::steady_clock::now();
    try {
      ScheduleDocument d = parse_schedule_text(text, "fuzz.in", enc);
      const MaterializedSchedule& m = d.schedule;
      RC_ASSERT(m.spec.p >= 1);
      for (const auto& step : m.steps) {
        RC_ASSERT(step.size() == m.spec.p);
        for (const RankStep& rs : step)
          for (const auto* l : {&rs.sends, &rs.recvs})
            for (const Transfer& t : *l) {
              RC_ASSERT(t.peer < m.spec.p);
              RC_ASSERT(!t.blocks.empty());
              RC_ASSERT(t.blocks.ranges().back().hi <= m.spec.nblocks);
            }
      }
      if (m.spec.p <= 64 && m.spec.nblocks <= 4096) {
        MaterializedView view(m);
        check_schedule(view, nullptr, {}, CheckOptions{});
      }
      ++accepted;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      RC_ASSERT(msg.find('\n') == std::string::npos);
      RC_ASSERT(msg.find("fuzz.in") != std::string::npos);
    } catch (const std::exception& e) {
      RC_FAIL(std::string("not an InputError: ") + e.what());
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    RC_ASSERT(secs < 2.0);
  }
  return accepted;
}

RC_GTEST_PROP(ScheduleParserFuzz, RandomBytes, (const std::string& bytes)) { accept_or_input_error(bytes); }

RC_GTEST_PROP(ScheduleParserFuzz, RandomBytesAfterAValidPrefix, (const std::string& bytes)) {
  const std::string head = *rc::gen::element<std::string>(
      "{\"format\": \"collcheck-schedule/2\", \"collective\": \"allreduce\", \"p\": 2, \"nblocks\": 2, \"steps\": [",
      "{\"format\": \"collcheck-schedule-lines/2\", \"collective\": \"allreduce\", \"p\": 2, \"nblocks\": 2, \"steps\": 1}\n",
      "{\"format\": \"collcheck-schedule/2\", \"p\": ");
  accept_or_input_error(head + bytes);
}

// JSON values built from the format's vocabulary, so that they often get far.
rc::Gen<json> json_values(int depth) {
  static const std::vector<std::string> keys = {"format", "collective", "p", "nblocks", "root", "ports", "steps",
                                                "claims", "producer", "rank", "step", "sends", "recvs", "peer",
                                                "blocks", "combine", "volume_blocks", "properties", "x"};
  auto scalars = rc::gen::oneOf(
      rc::gen::just(json(nullptr)), rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return json(b); }),
      rc::gen::map(rc::gen::inRange<int64_t>(-3, 20), [](int64_t v) { return json(v); }),
      rc::gen::map(rc::gen::element<uint64_t>(0, 1, 2, 3, 4, 1ULL << 24, (1ULL << 24) + 1, 1ULL << 30, 1ULL << 32,
                                              UINT64_MAX),
                   [](uint64_t v) { return json(v); }),
      rc::gen::map(rc::gen::element(0.5, 2.0, 1e300), [](double d) { return json(d); }),
      rc::gen::map(rc::gen::element<std::string>("collcheck-schedule/2", "collcheck-schedule/1",
                                                 "collcheck-schedule-lines/2", "collcheck-schedule/9", "allreduce",
                                                 "broadcast", "alltoall", "copy", "reduce", "matching", "", "\xc3\xa9"),
                   [](std::string s) { return json(s); }));
  if (depth <= 0) return scalars;
  return rc::gen::oneOf(
      scalars,
      rc::gen::mapcat(rc::gen::inRange<size_t>(0, 4),
                      [depth](size_t n) {
                        return rc::gen::map(rc::gen::container<std::vector<json>>(n, json_values(depth - 1)),
                                            [](std::vector<json> v) { return json(v); });
                      }),
      rc::gen::mapcat(rc::gen::inRange<size_t>(0, 5), [depth](size_t n) {
        return rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, json>>>(
                                n, rc::gen::pair(rc::gen::elementOf(keys), json_values(depth - 1))),
                            [](std::vector<std::pair<std::string, json>> kv) {
                              json o = json::object();
                              for (auto& [k, v] : kv) o[k] = v;
                              return o;
                            });
      }));
}

RC_GTEST_PROP(ScheduleParserFuzz, RandomJsonValues, ()) {
  const json v = *json_values(4);
  accept_or_input_error(v.dump());
  // Also as a top-level object with a valid header around it.
  json doc = {{"format", "collcheck-schedule/2"}, {"collective", "allreduce"}, {"p", 2}, {"nblocks", 2}};
  doc["steps"] = json::array({json::array({v, v})});
  accept_or_input_error(doc.dump());
}

std::string mutate(std::string text, int kind, size_t at, size_t len, const std::string& token) {
  at = text.empty() ? 0 : at % text.size();
  switch (kind) {
    case 0: if (!text.empty()) text[at] = static_cast<char>(text[at] ^ (1 << (len % 8))); break;  // bit flip
    case 1: text.erase(at, len % 64); break;                                                        // deletion
    case 2: text.insert(at, text.substr(at, len % 64)); break;                                      // duplication
    case 3: text.insert(at, token); break;                                                          // token
    case 4: text.resize(at); break;                                                                 // truncation
    case 5: {                                                                                       // a line moved
      std::vector<std::string> lines;
      std::istringstream in(text);
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      if (lines.size() > 2) {
        const size_t a = at % lines.size(), b = len % lines.size();
        std::swap(lines[a], lines[b]);
        if (len % 3 == 0) lines.erase(lines.begin() + static_cast<long>(b));
      }
      text.clear();
      for (const auto& l : lines) text += l + "\n";
      break;
    }
  }
  return text;
}

RC_GTEST_PROP(ScheduleParserFuzz, MutationsOfValidFiles, ()) {
  static const std::string files[] = {valid_text(ScheduleEncoding::json, "swing", 6),
                                      valid_text(ScheduleEncoding::jsonl, "swing", 6),
                                      valid_text(ScheduleEncoding::json, "traff", 5),
                                      valid_text(ScheduleEncoding::jsonl, "trivance", 9)};
  std::string text = *rc::gen::elementOf(std::vector<std::string>(std::begin(files), std::end(files)));
  const int rounds = *rc::gen::inRange(1, 4);
  for (int i = 0; i < rounds; ++i) {
    const int kind = *rc::gen::inRange(0, 6);
    const size_t at = *rc::gen::inRange<size_t>(0, 1u << 20);
    const size_t len = *rc::gen::inRange<size_t>(0, 200);
    const std::string token = *rc::gen::element<std::string>(
        ",", "]", "[", "{", "}", ":", "\"", "\"peer\": ", "-1", "1e999", "18446744073709551616", "0.5", "null",
        "\xff", "\xc3", "\n", "[[0,1]]", "\"rank\": 0, ", "\\u0000", "99999999999");
    text = mutate(text, kind, at, len, token);
  }
  // Both outcomes occur (rapidcheck prints the distribution): some mutations
  // keep the file valid (a whitespace byte flipped, a duplicated blank).
  RC_TAG(accept_or_input_error(text) > 0 ? "accepted" : "rejected");
}

// The outcome of reading `text` as JSON lines: the schedule, or the error.
std::pair<std::optional<MaterializedSchedule>, std::string> read_lines(const std::string& text, bool fast) {
  schedule_reader::set_fast_path(fast);
  std::pair<std::optional<MaterializedSchedule>, std::string> out;
  try {
    out.first = parse_schedule_text(text, "fuzz.in", ScheduleEncoding::jsonl).schedule;
  } catch (const InputError& e) {
    out.second = e.what();
  }
  schedule_reader::set_fast_path(true);
  return out;
}

RC_GTEST_PROP(ScheduleParserFuzz, FastPathAndSaxPathAgreeOnJsonLines, ()) {
  static const std::string files[] = {valid_text(ScheduleEncoding::jsonl, "swing", 6),
                                      valid_text(ScheduleEncoding::jsonl, "trivance", 9),
                                      valid_text(ScheduleEncoding::jsonl, "ring", 5)};
  std::string text = *rc::gen::elementOf(std::vector<std::string>(std::begin(files), std::end(files)));
  const int rounds = *rc::gen::inRange(0, 3);
  for (int i = 0; i < rounds; ++i) {
    const std::string token = *rc::gen::element<std::string>(
        ",", "]", "[", "{", "}", " ", "0", "01", "-1", "1.0", "1e2", "9999999999", "10000000000", "\"peer\": 1, ",
        "\"step\": 0, ", "\"rank\": 1, ", "[0,1]", "\"copy\"", "\"sends\": [], ", "\t", "\xc3\xa9");
    text = mutate(text, *rc::gen::inRange(0, 6), *rc::gen::inRange<size_t>(0, 1u << 20),
                  *rc::gen::inRange<size_t>(0, 200), token);
  }
  const auto fast = read_lines(text, true), slow = read_lines(text, false);
  RC_ASSERT(fast.second == slow.second);
  RC_ASSERT(fast.first.has_value() == slow.first.has_value());
  if (fast.first) RC_ASSERT(fast.first->steps == slow.first->steps);
}

// Random valid schedules: both encodings read back to the schedule written.
RC_GTEST_PROP(ScheduleParserFuzz, RandomSchedulesSurviveBothEncodings, ()) {
  MaterializedSchedule m;
  m.spec.kind = *rc::gen::element(Collective::allreduce, Collective::broadcast, Collective::reduce);
  m.spec.p = *rc::gen::inRange<uint64_t>(1, 9);
  m.spec.nblocks = *rc::gen::inRange<uint32_t>(1, 40);
  m.spec.root = static_cast<Rank>(*rc::gen::inRange<uint64_t>(0, m.spec.p));
  m.ports = *rc::gen::inRange(1, 4);
  const int steps = *rc::gen::inRange(0, 5);
  m.steps.assign(steps, std::vector<RankStep>(m.spec.p));
  for (auto& step : m.steps)
    for (auto& rs : step)
      for (auto* l : {&rs.sends, &rs.recvs}) {
        const int n = *rc::gen::inRange(0, 3);
        for (int i = 0; i < n; ++i) {
          Transfer t;
          t.peer = static_cast<Rank>(*rc::gen::inRange<uint64_t>(0, m.spec.p));
          t.combine = *rc::gen::element(Combine::copy, Combine::reduce);
          for (uint32_t b : *rc::gen::container<std::vector<uint32_t>>(rc::gen::inRange<uint32_t>(0, m.spec.nblocks)))
            t.blocks.insert(b);
          if (t.blocks.empty()) t.blocks.insert(0);
          l->push_back(t);
        }
      }
  for (ScheduleEncoding enc : {ScheduleEncoding::json, ScheduleEncoding::jsonl}) {
    std::ostringstream out;
    MaterializedView view(m);
    if (enc == ScheduleEncoding::json) write_schedule_json(out, view, FileMeta{}, *rc::gen::arbitrary<bool>());
    else write_schedule_jsonl(out, view, FileMeta{});
    const MaterializedSchedule back = parse_schedule_text(out.str(), "rt", std::nullopt).schedule;
    RC_ASSERT(back.spec.kind == m.spec.kind);
    RC_ASSERT(back.spec.p == m.spec.p);
    RC_ASSERT(back.spec.nblocks == m.spec.nblocks);
    RC_ASSERT(back.spec.root == m.spec.root);
    RC_ASSERT(back.ports == m.ports);
    RC_ASSERT(back.steps == m.steps);
  }
}

}  // namespace
}  // namespace collcheck
