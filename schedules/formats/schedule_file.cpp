// Reading collcheck schedule files: encoding detection by content, the JSON
// document through the SAX reader straight from the file stream, JSON lines
// one line at a time (schedules/formats/schedule_reader.hpp).
#include "schedules/formats/schedule_file.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <sstream>

#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/formats/schedule_reader.hpp"

namespace collcheck {

namespace {

constexpr size_t kDetectBytes = 64 * 1024;
constexpr size_t kMaxLine = size_t{256} << 20;

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

// Splits a stream into lines without ever holding more than one line (plus a
// 1 MiB read buffer); a line longer than kMaxLine is bad input. A line's
// leading whitespace is not held (counted in `lead`): blank lines, however
// long, cost nothing. The line's growth is checked with the memory guard
// (`reader`) before it is allocated.
class LineSource {
 public:
  LineSource(std::istream& in, const std::string& source, const schedule_reader::LinesReader& reader)
      : in_(in), source_(source), reader_(reader), buf_(1 << 20) {}
  // The next line without its '\n' and leading whitespace; false at the end of the input.
  bool next(std::string& line, uint64_t& lead) {
    line.clear();
    lead = 0;
    bool any = false;  // bytes of this line seen (a last line may lack its '\n')
    for (;;) {
      if (pos_ == len_ && !fill()) {
        if (any) ++lineno_;
        return any;
      }
      any = true;
      const char* start = buf_.data() + pos_;
      if (line.empty()) {  // still leading whitespace
        const char* p = start;
        while (p < buf_.data() + len_ && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
        lead += static_cast<uint64_t>(p - start);
        pos_ += static_cast<size_t>(p - start);
        start = p;
        if (pos_ == len_) continue;
      }
      const void* nl = std::memchr(start, '\n', len_ - pos_);
      const size_t take = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : len_ - pos_;
      if (line.size() + take > kMaxLine)
        throw InputError("malformed schedule: " + source_ + ":" + std::to_string(lineno_ + 1) +
                         ": a line longer than 256 MiB (JSON lines hold one rank's transfers of one step per line)");
      if (line.size() + take > line.capacity())  // the string grows (doubling): guard it first
        reader_.check_line(std::max(2 * line.capacity(), line.size() + take), lineno_ + 1);
      line.append(start, take);
      pos_ += take;
      if (nl) {
        ++pos_;
        ++lineno_;
        return true;
      }
    }
  }
  uint64_t lineno() const { return lineno_; }

 private:
  std::istream& in_;
  std::string source_;
  const schedule_reader::LinesReader& reader_;
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t lineno_ = 0;

  bool fill() {
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    len_ = static_cast<size_t>(in_.gcount());
    pos_ = 0;
    return len_ > 0;
  }
};

ScheduleDocument read_lines(std::istream& in, const std::string& source, uint64_t max_memory) {
  schedule_reader::LinesReader reader(source, max_memory);
  LineSource lines(in, source, reader);
  std::string line;
  bool have_header = false;
  uint64_t last = 0, lead = 0;
  bool out_of_memory = false;
  try {
    for (;;) {
      if (!lines.next(line, lead)) break;
      last = lines.lineno();
      if (blank(line)) continue;
      if (!have_header) {
        reader.header(line, last, lead);
        have_header = true;
      } else {
        reader.entry(line, last, lead);
      }
    }
  } catch (const std::bad_alloc&) {
    out_of_memory = true;
  }
  if (out_of_memory) {  // the line is dropped too before the message is made (it needs memory)
    std::string().swap(line);
    reader.out_of_memory(lines.lineno() + 1);
  }
  return reader.finish(last);
}

std::string first_line(std::istream& in) {
  std::string head(kDetectBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  in.clear();
  in.seekg(0);
  const size_t nl = head.find('\n');
  return nl == std::string::npos ? head : head.substr(0, nl);
}

}  // namespace

const char* to_string(ScheduleEncoding e) { return e == ScheduleEncoding::json ? "json" : "jsonl"; }

ScheduleEncoding detect_encoding(const std::string& line) {
  // "format" followed by ':' and a string starting with the JSON-lines name.
  const std::string lines_name = std::string("\"") + kScheduleLinesFormat;
  const std::string family = lines_name.substr(0, lines_name.find('/') + 1);  // "\"collcheck-schedule-lines/"
  for (size_t at = line.find("\"format\""); at != std::string::npos; at = line.find("\"format\"", at + 1)) {
    size_t i = at + 8;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] != ':') continue;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (line.compare(i, family.size(), family) == 0) return ScheduleEncoding::jsonl;
  }
  return ScheduleEncoding::json;
}

ScheduleDocument read_schedule_file(const std::string& path, std::optional<ScheduleEncoding> forced, uint64_t max_memory) {
  require_regular_file(path);
  try {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError("cannot read '" + path + "'");
    const ScheduleEncoding enc = forced ? *forced : detect_encoding(first_line(f));
    if (enc == ScheduleEncoding::jsonl) return read_lines(f, path, max_memory);
    return schedule_reader::parse_document(f, path, max_memory);
  } catch (const std::bad_alloc&) {
    // Before the reader had anything to report (the stream, the detection,
    // the line buffer); the reader's own says how far it got. Made here, with
    // the stream and the buffers released.
  }
  throw out_of_memory_while_reading(path);
}

ScheduleDocument parse_schedule_text(const std::string& text, const std::string& source,
                                     std::optional<ScheduleEncoding> forced, uint64_t max_memory) {
  const ScheduleEncoding enc =
      forced ? *forced : detect_encoding(text.substr(0, std::min(text.find('\n'), kDetectBytes)));
  if (enc == ScheduleEncoding::json) return schedule_reader::parse_document(text, source, max_memory);
  std::istringstream in(text);
  return read_lines(in, source, max_memory);
}

}  // namespace collcheck
