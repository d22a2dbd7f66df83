#include "checker/cli_support.hpp"

#include <fstream>
#include <iostream>

#include "schedules/input_error.hpp"

namespace po = boost::program_options;

namespace collcheck {

po::variables_map parse_args(const po::options_description& desc, const std::vector<std::string>& args,
                             const po::positional_options_description* pos) {
  po::variables_map vm;
  static const po::positional_options_description none;  // stray words are an error, not ignored
  auto parser = po::command_line_parser(args).options(desc);
  parser.positional(pos ? *pos : none);
  po::store(parser.run(), vm);
  po::notify(vm);
  return vm;
}

uint64_t parse_uint_option(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi) {
  bool digits = !text.empty() && text.size() <= 19;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  if (!digits) throw InputError("--" + name + " must be a non-negative integer, not '" + text + "'");
  uint64_t v = std::stoull(text);
  if (v < lo || v > hi)
    throw InputError("--" + name + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not " + text);
  return v;
}

void add_instance_options(po::options_description& desc) {
  desc.add_options()("n", po::value<std::string>(), "blocks, for algorithms that take n (traff: default 8)")
      ("root", po::value<std::string>(), "root rank, for rooted collectives (default 0)");
}

void apply_instance_options(const po::variables_map& vm, std::vector<SweepTarget>& targets) {
  if (!vm.count("n") && !vm.count("root")) return;
  const uint32_t n = vm.count("n") ? static_cast<uint32_t>(parse_uint_option("n", vm["n"].as<std::string>(), 1, 1u << 20)) : 0;
  const Rank root =
      vm.count("root") ? static_cast<Rank>(parse_uint_option("root", vm["root"].as<std::string>(), 0, (1u << 24) - 1)) : 0;
  for (SweepTarget& t : targets) {
    if (t.algorithm->collective == Collective::allreduce)
      throw InputError("--n and --root do not apply to " + t.algorithm->name + " (an allreduce splits its vector itself)");
    t.n = n;
    t.root = root;
  }
}

void emit_report(const Report& r, const std::string& format, const std::string& out, bool verbose) {
  auto fmt = format_from_string(format);
  if (!fmt) throw InputError("unknown format '" + format + "' (known: text, json, markdown, junit, html)");
  std::string text = render(r, *fmt, verbose);
  if (out.empty() || out == "-") {
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << '\n';
    return;
  }
  std::ofstream f(out);
  if (!f) throw InputError("cannot write '" + out + "'");
  f << text;
}

}  // namespace collcheck
