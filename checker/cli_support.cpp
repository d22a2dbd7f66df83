#include "checker/cli_support.hpp"

#include <fstream>
#include <iostream>

#include "schedules/input_error.hpp"

namespace po = boost::program_options;

namespace collcheck {

po::variables_map parse_args(const po::options_description& desc, const std::vector<std::string>& args,
                             const po::positional_options_description* pos) {
  po::variables_map vm;
  auto parser = po::command_line_parser(args).options(desc);
  if (pos) parser.positional(*pos);
  po::store(parser.run(), vm);
  po::notify(vm);
  return vm;
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
