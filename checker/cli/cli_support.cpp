#include "checker/cli/cli_support.hpp"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <iostream>
#include <string_view>

#include "checker/cli/dims_option.hpp"
#include "checker/cli/p_range.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/formats/launcher_stdout.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

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
  reject_empty_values(desc, vm);
  return vm;
}

bool print_help(const po::options_description& desc, const po::variables_map& vm) {
  if (!vm.count("help")) return false;
  std::cout << desc;
  return true;
}

std::string read_whole_file(const std::string& path, uint64_t max_memory) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot read " + quote_input(path));
  f.seekg(0, std::ios::end);
  const auto end = f.tellg();
  f.seekg(0);
  if (end < 0) throw InputError("cannot read " + quote_input(path));
  const uint64_t size = static_cast<uint64_t>(end);
  if (max_memory && size > max_memory) throw refused_while_reading(path, "its text", size, max_memory);
  std::string text;
  try {
    text.resize(size);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_while_reading(path, "its text", size);
  }
  f.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(f.gcount()) != size) throw InputError("cannot read " + quote_input(path));
  return text;
}

void reject_empty_values(const po::options_description& desc, const po::variables_map& vm) {
  for (const auto& [name, value] : vm) {
    const po::option_description* d = desc.find_nothrow(name, false);
    if (value.defaulted() || !d || d->semantic()->max_tokens() == 0) continue;  // a switch stores ""
    const auto* text = boost::any_cast<std::string>(&value.value());
    if (text && text->empty()) throw InputError("--" + name + " needs a value, not an empty string");
  }
}

namespace {
bool digit(char c) { return c >= '0' && c <= '9'; }
// The length of the run of digits at text[i..].
size_t digits_at(std::string_view text, size_t i) {
  size_t n = 0;
  while (i + n < text.size() && digit(text[i + n])) ++n;
  return n;
}
// The length of the longest prefix of `text` in the decimal grammar (0: none).
size_t decimal_prefix(std::string_view text) {
  size_t i = digits_at(text, 0);
  if (i == 0) return 0;
  if (i < text.size() && text[i] == '.') {
    const size_t f = digits_at(text, i + 1);
    if (f == 0) return 0;  // "1." is not a decimal
    i += 1 + f;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    const size_t x = digits_at(text, j);
    if (x == 0) return 0;  // "1e" is not a decimal
    i = j + x;
  }
  return i;
}
}  // namespace

std::optional<uint64_t> parse_integer(std::string_view text, bool* too_large) {
  if (too_large) *too_large = false;
  if (text.empty() || digits_at(text, 0) != text.size()) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    if (too_large) *too_large = true;  // all digits: only the range can fail
    return std::nullopt;
  }
  return v;
}

std::optional<double> parse_decimal(std::string_view text) {
  if (text.empty() || decimal_prefix(text) != text.size()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

uint64_t parse_uint_option(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi,
                           const std::string& range_note) {
  bool too_large = false;
  const std::optional<uint64_t> v = parse_integer(text, &too_large);
  if (!v && !too_large) throw InputError("--" + name + " must be a non-negative integer, not " + quote_input(text));
  if (!v || *v < lo || *v > hi)  // `text` is all digits here
    throw InputError("--" + name + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + range_note +
                     ", not " + text);
  return *v;
}

double parse_real_option(const std::string& name, const std::string& text, double lo, double hi,
                         const std::string& expected) {
  const std::optional<double> v = parse_decimal(text);
  if (!v || !(*v >= lo && *v <= hi)) throw InputError("--" + name + " must be " + expected + ", not " + quote_input(text));
  return *v;
}

void add_instance_options(po::options_description& desc) {
  desc.add_options()("n", po::value<std::string>(), "blocks, for algorithms that take n (traff: default 8)")
      ("root", po::value<std::string>(), "root rank, for rooted collectives (default 0)")
      ("radix", po::value<std::string>(), "radix r, for algorithms that take one (tra: r; tra2: intra-node r1); "
                                          "'all' = every r in 2..p")
      ("radix2", po::value<std::string>(), "inter-node radix r2 (tra2)")
      ("ppn", po::value<std::string>(), "processes per node Q (tra2)")
      ("dims", po::value<std::string>(), "torus shapes (trivance-torus), e.g. 3x3 or 3x3,9x9,4x4x4; "
                                         "each sets p = the product (may replace --p)");
}

void apply_instance_options(const po::variables_map& vm, std::vector<SweepTarget>& targets) {
  static const char* const kOptions[] = {"n", "root", "radix", "radix2", "ppn", "dims"};
  for (const char* o : kOptions) {
    if (!vm.count(o)) continue;
    for (const SweepTarget& t : targets)
      if (!t.variant->takes(o)) {
        std::string takes;
        for (const auto& x : t.variant->options) takes += (takes.empty() ? "--" : ", --") + x;
        throw InputError(std::string("--") + o + " does not apply to " + t.algorithm->name + "/" + t.variant->name +
                         " (it takes " + (takes.empty() ? "no instance options" : takes) + ")");
      }
  }
  auto value = [&](const char* o, uint64_t lo, uint64_t hi) -> uint32_t {
    return vm.count(o) ? static_cast<uint32_t>(parse_uint_option(o, vm[o].as<std::string>(), lo, hi)) : 0;
  };
  const uint32_t n = value("n", 1, 1u << 20);
  const Rank root = value("root", 0, (1u << 24) - 1);
  const bool all_radices = vm.count("radix") && vm["radix"].as<std::string>() == "all";
  const uint32_t radix = all_radices ? 0 : value("radix", 2, 1u << 24);
  const uint32_t radix2 = value("radix2", 2, 1u << 24);
  const uint32_t ppn = value("ppn", 1, 1u << 24);
  const auto shapes = vm.count("dims") ? parse_dims_list(vm["dims"].as<std::string>())
                                       : std::vector<std::vector<uint32_t>>{};
  for (SweepTarget& t : targets) {
    t.shapes = shapes;
    t.blocks = n;
    t.root = root;
    t.radix = radix;
    t.all_radices = all_radices;
    t.radix2 = radix2;
    t.ppn = ppn;
  }
}

void emit_report(const Report& r, const std::string& format, const std::string& out, bool verbose) {
  auto fmt = format_from_string(format);
  if (!fmt) throw InputError("unknown format " + quote_input(format) + " (known: text, json, markdown, junit, html)");
  // Colour only for a person: text on a terminal, and NO_COLOR (no-color.org)
  // not set to anything non-empty, TERM not "dumb"; never under an MPI
  // launcher, whose terminal may end in a file (mpirun --output-filename).
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  const bool color = *fmt == Format::text && out == "-" && ::isatty(STDOUT_FILENO) && !(no_color && *no_color) &&
                     !(term && std::string_view(term) == "dumb") && !under_mpi_launcher();
  std::string text = render(r, *fmt, verbose, color);
  if (out == "-" && !text.empty() && text.back() != '\n') text += '\n';
  write_output(out, text);
}

void add_check_options(po::options_description& desc) {
  desc.add_options()
      ("mode", po::value<std::string>()->default_value("auto"), "auto | exact | fingerprint")
      ("exact-max-p", po::value<std::string>()->default_value("1024"), "auto mode: exact bookkeeping up to this p")
      ("recheck-max-p", po::value<std::string>()->default_value("256"),
       "re-check a quotient's refutation by exact enumeration up to this p (and --exact-max-p); 0: never")
      ("state", po::value<std::string>()->default_value("auto"),
       "state: auto | dense (a cell per rank and block; in exact mode also for an all-to-all, which auto "
       "enumerates with the cells each rank holds) | intervals (per-rank block ranges; implies "
       "--mode fingerprint)")
      ("memory-gib", po::value<std::string>()->default_value("4"), "contribution-state budget per instance (GiB)")
      ("max-memory", po::value<std::string>(),
       "memory guard: refuse (before allocating) any instance whose estimated memory exceeds SIZE "
       "(e.g. 6G, 512MiB, 1.5G; 'none': no guard; default 75% of physical memory); a refusal exits 3")
      ("seed", po::value<std::string>()->default_value("24301"), "fingerprint weight seed")
      ("threads", po::value<std::string>()->default_value("0"), "worker threads (0: all cores)")
      ("format", po::value<std::string>()->default_value("text"), "text | json | markdown | junit | html")
      ("out", po::value<std::string>()->default_value("-"), "report file ('-' = stdout)")
      ("verbose,v", "text report lists every instance")
      ("quiet,q", "no progress on stderr");
}

uint64_t parse_memory_size(const std::string& option, const std::string& text) {
  if (text == "none") return 0;
  // A decimal (the grammar of every real-valued option), then the unit.
  const size_t used = decimal_prefix(text);
  const std::optional<double> v = parse_decimal(std::string_view(text).substr(0, used));
  std::string unit = text.substr(used);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit.substr(1) == "ib") unit = unit.substr(0, 1);
  if (unit.size() == 2 && unit[1] == 'b') unit = unit.substr(0, 1);
  const std::string units = "bkmgt";
  const size_t k = unit.empty() ? 0 : (unit.size() == 1 ? units.find(unit[0]) : std::string::npos);
  const double bytes = v ? *v * static_cast<double>(uint64_t{1} << (10 * (k == std::string::npos ? 0 : k))) : -1;
  if (!v || k == std::string::npos || !(bytes >= (1 << 20)) || bytes > 1e18)
    throw InputError("--" + option + " must be a size of at least 1 MiB such as 6G, 512MiB or 1.5G (or 'none'), not " +
                     quote_input(text));
  return static_cast<uint64_t>(bytes);
}

CheckOptions check_options(const po::variables_map& vm) {
  CheckOptions o;
  std::string mode = vm["mode"].as<std::string>();
  if (mode == "auto") o.exactness = Exactness::automatic;
  else if (mode == "exact") o.exactness = Exactness::exact;
  else if (mode == "fingerprint") o.exactness = Exactness::fingerprint;
  else throw InputError("unknown --mode " + quote_input(mode) + " (known: auto, exact, fingerprint)");
  o.exact_max_p = parse_uint_option("exact-max-p", vm["exact-max-p"].as<std::string>(), 1, kMaxP);
  o.recheck_max_p = parse_uint_option("recheck-max-p", vm["recheck-max-p"].as<std::string>(), 0, kMaxP);
  const std::string state = vm["state"].as<std::string>();
  if (state == "auto") o.bookkeeping = Bookkeeping::automatic;
  else if (state == "dense") o.bookkeeping = Bookkeeping::dense;
  else if (state == "intervals") o.bookkeeping = Bookkeeping::intervals;
  else throw InputError("unknown --state " + quote_input(state) + " (known: auto, dense, intervals)");
  // Interval state holds fingerprints: --state intervals means fingerprint
  // mode at every p (auto would run exact sets up to --exact-max-p and
  // silently ignore it there); with --mode exact it is a contradiction.
  if (o.bookkeeping == Bookkeeping::intervals && o.exactness == Exactness::exact)
    throw InputError("--state intervals keeps fingerprints: it cannot run with --mode exact");
  if (o.bookkeeping == Bookkeeping::intervals) o.exactness = Exactness::fingerprint;
  const double gib =
      parse_real_option("memory-gib", vm["memory-gib"].as<std::string>(), 1.0 / 1024, 1024, "a number in [1/1024, 1024]");
  o.memory_budget = static_cast<uint64_t>(gib * (1ULL << 30));
  o.seed = parse_uint_option("seed", vm["seed"].as<std::string>(), 0, UINT64_MAX);
  o.max_memory = vm.count("max-memory") ? parse_memory_size("max-memory", vm["max-memory"].as<std::string>())
                                        : default_max_memory();
  return o;
}

int worker_threads(const po::variables_map& vm) {
  return static_cast<int>(
      parse_uint_option("threads", vm["threads"].as<std::string>(), 0, kMaxThreads, " (0: one per core)"));
}

SweepTarget single_target(const std::string& algo, const std::string& variant, bool torus) {
  if (algo == "all" || variant == "all" || algo.find(',') != std::string::npos || variant.find(',') != std::string::npos)
    throw InputError("this command takes one algorithm and one variant, not 'all' or a list");
  return resolve_targets(algo, variant, torus).front();
}

}  // namespace collcheck
