#include "properties/witnesses.hpp"

#include <charconv>

namespace collcheck {

void WitnessList::add(std::string item) {
  if (items.size() < kListed) items.push_back(std::move(item));
  else ++more;
}

void WitnessList::append(const WitnessList& other) {
  for (const std::string& item : other.items) add(item);
  more += other.more;
}

std::string WitnessList::str() const {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : "; ") + item;
  if (more) out += (out.empty() ? "" : "; ") + std::string("and ") + std::to_string(more) + " more";
  return out;
}

std::optional<WitnessList> WitnessList::parse(const std::string& s) {
  WitnessList out;
  if (s.empty()) return out;
  std::vector<std::string> parts;
  for (size_t at = 0;;) {
    const size_t semi = s.find("; ", at);
    parts.push_back(s.substr(at, semi == std::string::npos ? std::string::npos : semi - at));
    if (semi == std::string::npos) break;
    at = semi + 2;
  }
  const std::string& last = parts.back();
  if (last.rfind("and ", 0) == 0 && last.size() > 9 && last.compare(last.size() - 5, 5, " more") == 0) {
    const char* first = last.data() + 4;
    const char* end = last.data() + last.size() - 5;
    auto [ptr, ec] = std::from_chars(first, end, out.more);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    parts.pop_back();
  }
  if (parts.size() > kListed) return std::nullopt;
  for (std::string& p : parts) {
    if (p.empty()) return std::nullopt;
    out.items.push_back(std::move(p));
  }
  return out;
}

}  // namespace collcheck
