#include "smt/smt2_dump.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"

namespace collcheck::smt {
namespace {

struct Sink {
  std::string dir, stem;
  int counter = 0;
};
thread_local Sink* current = nullptr;

std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  while (out.find("__") != std::string::npos) out.erase(out.find("__"), 1);
  return out.substr(0, 60);
}

const char* answer_text(z3::check_result r) {
  switch (r) {
    case z3::unsat: return "unsat";
    case z3::sat: return "sat";
    default: return "unknown";
  }
}

}  // namespace

Smt2Scope::Smt2Scope(const std::string& dir, const std::string& stem) {
  if (dir.empty() || current) return;  // nested scopes: the outer one names the files
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) throw InputError("--smt2-dir: cannot create directory '" + dir + "'");
  current = new Sink{dir, file_safe(stem)};
  active_ = true;
}

Smt2Scope::~Smt2Scope() {
  if (!active_) return;
  delete current;
  current = nullptr;
}

void dump_smt2(z3::solver& s, const std::string& label, z3::check_result answer) {
  if (!current) return;
  char num[16];
  std::snprintf(num, sizeof num, "%03d", current->counter++);
  std::string name = current->stem + "-" + num + (label.empty() ? "" : "-" + file_safe(label)) + ".smt2";
  std::string path = (std::filesystem::path(current->dir) / name).string();
  const std::string text = "; collcheck prove: " + current->stem + (label.empty() ? "" : " " + label) + "\n" +
                           "; answer: " + answer_text(answer) + "\n" + s.to_smt2();
  try {
    write_output(path, text);
  } catch (const InputError& e) {
    throw InputError(std::string("--smt2-dir: ") + e.what());
  }
}

std::string recorded_answer(const std::string& text) {
  const std::string key = "; answer: ";
  auto at = text.find(key);
  if (at == std::string::npos) return "";
  auto end = text.find('\n', at);
  return text.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
}

}  // namespace collcheck::smt
