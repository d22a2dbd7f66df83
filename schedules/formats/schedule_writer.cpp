// Writers of collcheck's schedule format (schedules/formats/schedule_file.hpp): both
// encodings straight from the lazy Schedule, rank by rank, into a buffer that
// is flushed every MiB (a p = 4096 Swing schedule is hundreds of MB).
#include <charconv>
#include <ostream>

#include "schedules/formats/file_io.hpp"
#include "schedules/formats/schedule_file.hpp"

namespace collcheck {

namespace {

class Out {
 public:
  explicit Out(std::ostream& os) : os_(os) { buf_.reserve(kFlush + 4096); }
  ~Out() { flush(); }
  Out& operator<<(const char* s) {
    buf_ += s;
    return *this;
  }
  Out& operator<<(char c) {
    buf_ += c;
    return *this;
  }
  Out& num(uint64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    buf_.append(b, r.ptr);
    return *this;
  }
  // A JSON string literal: quotes, backslashes and control characters escaped;
  // other bytes (UTF-8) as they are.
  Out& str(const std::string& s) {
    static const char* hex = "0123456789abcdef";
    buf_ += '"';
    for (unsigned char c : s) {
      if (c == '"') buf_ += "\\\"";
      else if (c == '\\') buf_ += "\\\\";
      else if (c == '\n') buf_ += "\\n";
      else if (c == '\t') buf_ += "\\t";
      else if (c < 0x20) {
        buf_ += "\\u00";
        buf_ += hex[c >> 4];
        buf_ += hex[c & 15];
      } else {
        buf_ += static_cast<char>(c);
      }
    }
    buf_ += '"';
    return *this;
  }
  void maybe_flush() {
    if (buf_.size() >= kFlush) flush();
  }
  void flush() {
    os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kFlush = 1 << 20;
  std::ostream& os_;
  std::string buf_;
};

// ", " and ": " (readable) or "," and ":" (compact).
struct Seps {
  const char* item;
  const char* kv;
};

void transfers(Out& o, const std::vector<Transfer>& l, Seps s) {
  o << '[';
  for (size_t i = 0; i < l.size(); ++i) {
    if (i) o << s.item;
    o << "{\"peer\"" << s.kv;
    o.num(l[i].peer) << s.item << "\"blocks\"" << s.kv << '[';
    bool first = true;
    for (const auto& r : l[i].blocks.ranges()) {  // ranges always without spaces: they dominate the size
      if (!first) o << ',';
      first = false;
      o << '[';
      o.num(r.lo) << ',';
      o.num(r.hi) << ']';
    }
    o << ']' << s.item << "\"combine\"" << s.kv << '"' << to_string(l[i].combine) << "\"}";
  }
  o << ']';
}

void rank_entry(Out& o, const RankStep& rs, Seps s, std::optional<int> step, Rank r) {
  o << '{';
  if (step) {
    o << "\"step\"" << s.kv;
    o.num(static_cast<uint64_t>(*step)) << s.item;
  }
  o << "\"rank\"" << s.kv;
  o.num(r) << s.item << "\"sends\"" << s.kv;
  transfers(o, rs.sends, s);
  o << s.item << "\"recvs\"" << s.kv;
  transfers(o, rs.recvs, s);
  o << '}';
}

void claims_object(Out& o, const FileClaims& c, Seps s) {
  o << '{';
  const char* sep = "";
  auto field = [&](const char* k) {
    o << sep << '"' << k << '"' << s.kv;
    sep = s.item;
  };
  if (c.steps) {
    field("steps");
    o.num(static_cast<uint64_t>(*c.steps));
  }
  if (c.volume_blocks) {
    field("volume_blocks");
    o.num(*c.volume_blocks);
  }
  if (!c.steps_formula.empty()) field("steps_formula"), o.str(c.steps_formula);
  if (!c.volume_formula.empty()) field("volume_formula"), o.str(c.volume_formula);
  if (!c.source.empty()) field("source"), o.str(c.source);
  if (!c.properties.empty()) {
    field("properties");
    o << '[';
    for (size_t i = 0; i < c.properties.size(); ++i) {
      if (i) o << s.item;
      o.str(c.properties[i]);
    }
    o << ']';
  }
  o << '}';
}

// The header fields, each preceded by `lead` (newline + indent, or nothing).
// `s` separates the header fields, `nested` the items of claims and producer.
void header(Out& o, const Schedule& sch, const FileMeta& meta, const char* format, Seps s, Seps nested,
            const char* lead) {
  const CollectiveSpec& sp = sch.spec();
  o << lead << "\"format\"" << s.kv;
  o.str(format) << s.item << lead << "\"collective\"" << s.kv;
  o.str(to_string(sp.kind)) << s.item << lead << "\"p\"" << s.kv;
  o.num(sp.p) << s.item << lead << "\"nblocks\"" << s.kv;
  o.num(sp.nblocks) << s.item << lead << "\"root\"" << s.kv;
  o.num(sp.root) << s.item << lead << "\"ports\"" << s.kv;
  o.num(static_cast<uint64_t>(sch.ports()));
  if (meta.claims) {
    o << s.item << lead << "\"claims\"" << s.kv;
    claims_object(o, *meta.claims, nested);
  }
  if (!meta.producer.empty()) {
    o << s.item << lead << "\"producer\"" << s.kv << '{';
    for (size_t i = 0; i < meta.producer.size(); ++i) {
      if (i) o << nested.item;
      o.str(meta.producer[i].first) << nested.kv;
      o.str(meta.producer[i].second);
    }
    o << '}';
  }
}

}  // namespace

void write_schedule_json(std::ostream& os, const Schedule& sch, const FileMeta& meta, bool pretty) {
  Out o(os);
  const Seps s = pretty ? Seps{", ", ": "} : Seps{",", ":"};
  o << '{';
  header(o, sch, meta, kScheduleFormat, pretty ? Seps{",", ": "} : s, s, pretty ? "\n " : "");
  o << (pretty ? ",\n \"steps\": [" : ",\"steps\":[");
  RankStep rs;
  for (int st = 0; st < sch.num_steps(); ++st) {
    o << (st ? "," : "") << (pretty ? "\n  [" : "[");
    for (Rank r = 0; r < sch.p(); ++r) {
      sch.rank_step(r, st, rs);
      o << (r ? "," : "") << (pretty ? "\n   " : "");
      rank_entry(o, rs, s, std::nullopt, r);
      o.maybe_flush();
    }
    o << (pretty ? "\n  ]" : "]");
  }
  o << (pretty && sch.num_steps() ? "\n ]\n}\n" : pretty ? "]\n}\n" : "]}");
}

void write_schedule_jsonl(std::ostream& os, const Schedule& sch, const FileMeta& meta) {
  Out o(os);
  const Seps s{", ", ": "};
  o << '{';
  header(o, sch, meta, kScheduleLinesFormat, s, s, "");
  o << s.item << "\"steps\"" << s.kv;
  o.num(static_cast<uint64_t>(sch.num_steps())) << "}\n";
  RankStep rs;
  for (int st = 0; st < sch.num_steps(); ++st)
    for (Rank r = 0; r < sch.p(); ++r) {
      sch.rank_step(r, st, rs);
      rank_entry(o, rs, s, st, r);
      o << '\n';
      o.maybe_flush();
    }
}

void write_schedule_file(const std::string& out, const Schedule& sch, const FileMeta& meta, ScheduleEncoding encoding) {
  write_output(out, [&](std::ostream& os) {
    if (encoding == ScheduleEncoding::jsonl) write_schedule_jsonl(os, sch, meta);
    else write_schedule_json(os, sch, meta, true);
  });
}

}  // namespace collcheck
