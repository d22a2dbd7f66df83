// collcheck analyze --algo tra --p P: TRA's K, D and cost for every radix
// (properties/tra/radix_analysis.hpp), rendered as text, JSON or HTML
// (reports/tra/radix_analysis_report.hpp).
// collcheck analyze --algo A --dims SHAPE [--topology torus|hyperx]: the
// link-level cost of A's torus variants and every other allreduce on a torus
// (properties/topology/torus_analysis.hpp, reports/topology/).
#include <boost/program_options.hpp>
#include <cmath>
#include <iostream>
#include <limits>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/dims_option.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/p_range.hpp"
#include "properties/tra/radix_analysis.hpp"
#include "properties/topology/torus_analysis.hpp"
#include "reports/topology/torus_analysis_report.hpp"
#include "reports/tra/radix_analysis_report.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/registry.hpp"

namespace po = boost::program_options;

namespace collcheck {

namespace {

double parse_nonneg(const std::string& name, const std::string& text) {
  return parse_real_option(name, text, 0, std::numeric_limits<double>::max(), "a finite number >= 0");
}

}  // namespace

po::options_description analyze_options() {
  po::options_description desc(
      "collcheck analyze: K and D of the tunable-radix all-to-all for every radix r = 2..P, the paper's "
      "Propositions 1-4 next to them, the cost alpha*K + beta*D*S, its minimising radix and where sqrt(P) "
      "falls (Fan et al. Sec. III-A/B, Fig. 4).\nK and D are measured: counted from the blocks each round (x, z) "
      "sends (every radix for P <= 65536; above, the radices shown, the optimum and r <= 64, the rest from the "
      "propositions); 'Prop.' columns are the closed formulas as printed.\n"
      "With --dims: Lambda, Psi, Xi and Theta of the torus allreduces, each printed row judged, and the Swing "
      "paper's comparative claims.\n"
      "Exit codes (every analyze): 0 every judged statement holds, 1 one does not (tra: a Sec. III-B statement "
      "[differs] or a measured K or D disagrees with its proposition; at every P Sec. III-B's 'K = P at r = P' "
      "differs, K(P) = P - 1; --dims: a printed row or a claim is violated), 2 bad input, 3 refused by the memory guard "
      "(--max-memory) or out of memory.\noptions");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm: tra (with --p), or one with a torus form (with --dims)")
      ("dims", po::value<std::string>(), "torus shape, e.g. 64x64: Lambda, Psi, Xi, Theta of the algorithm's torus "
                                         "variants and every other allreduce on a torus, measured on the routed links, "
                                         "with Xi against p over the shapes halved down to 2x..x2")
      ("topology", po::value<std::string>()->default_value("torus"), "with --dims: torus | hyperx")
      ("p", po::value<std::string>(), "process count P, 2..2^20 (e.g. 16384 or 2^14)")
      ("alpha", po::value<std::string>()->default_value("2e-6"), "latency per round, seconds (default 2e-6 s)")
      ("beta", po::value<std::string>()->default_value("1e-10"), "time per byte, seconds (default 1e-10 s/byte)")
      ("block-bytes", po::value<std::string>()->default_value("1024"), "block size S in bytes (default 1024)")
      ("format", po::value<std::string>()->default_value("text"), "text | json | html")
      ("out", po::value<std::string>()->default_value("-"), "output file ('-' = stdout)")
      ("max-memory", po::value<std::string>(),
       "memory guard, as verify's: refuse (before allocating) an analysis whose estimated memory exceeds SIZE "
       "(e.g. 6G, 512MiB, 1.5G; 'none': no guard; default 75% of physical memory); a refusal exits 3");
  return desc;
}

int cmd_analyze(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = analyze_options();
  auto vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (!vm.count("algo")) throw InputError("analyze needs --algo tra (with --p) or --algo A --dims SHAPE");
  const std::string algo = vm["algo"].as<std::string>();
  const std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "json" && format != "html")
    throw InputError("analyze: unknown format " + quote_input(format) + " (known: text, json, html)");
  const uint64_t max_memory =
      vm.count("max-memory") ? parse_memory_size("max-memory", vm["max-memory"].as<std::string>()) : default_max_memory();
  if (vm.count("dims")) {
    if (vm.count("p")) throw InputError("analyze: give --dims or --p, not both (--dims fixes p)");
    const std::vector<std::vector<uint32_t>> shapes = parse_dims_list(vm["dims"].as<std::string>());
    if (shapes.size() != 1)
      throw InputError("analyze: --dims must be one shape, not " + quote_input(vm["dims"].as<std::string>()));
    check_torus_analysis(algo, shapes.front(), vm["topology"].as<std::string>(), max_memory);
    if (inv.dry_run) return dry_run_done();
    const TorusAnalysis a = analyze_torus(algo, shapes.front(), vm["topology"].as<std::string>(), max_memory);
    const std::string text = format == "json"   ? torus_analysis_json(a, inv.cmdline)
                             : format == "html" ? torus_analysis_html(a, inv.cmdline)
                                                : torus_analysis_text(a);
    write_output(vm["out"].as<std::string>(), text);
    return a.holds() ? 0 : 1;
  }
  if (!vm["topology"].defaulted()) throw InputError("analyze: --topology goes with --dims");
  // The algorithms whose family declares an analysis (Capabilities::analysis).
  std::string known;
  for (const AlgorithmInfo& a : registry())
    if (a.capabilities.analysis) known += (known.empty() ? "" : ", ") + a.name;
  const AlgorithmInfo* info = find_algorithm(algo);
  if (!info || !info->capabilities.analysis)
    throw InputError("analyze: unknown algorithm " + quote_input(algo) + " for --p (known: " + known +
                     "; the torus algorithms take --dims)");
  if (!vm.count("p")) throw InputError("analyze needs --p P");
  const std::vector<uint64_t> ps = parse_p_range(vm["p"].as<std::string>());
  if (ps.size() != 1) throw InputError("analyze: --p must be one value, not " + quote_input(vm["p"].as<std::string>()));
  const double alpha = parse_nonneg("alpha", vm["alpha"].as<std::string>());
  const double beta = parse_nonneg("beta", vm["beta"].as<std::string>());
  const double bytes = parse_nonneg("block-bytes", vm["block-bytes"].as<std::string>());
  check_tra_analysis(ps.front(), alpha, beta, bytes);
  // The memory guard, before anything is built.
  if (const MemoryEstimate m = tra_analysis_memory(ps.front(), format); max_memory && m.bytes > max_memory)
    throw ResourceRefusal(refusal(m, max_memory));
  if (inv.dry_run) return dry_run_done();
  const Analysis a = analyze_tra(ps.front(), alpha, beta, bytes);
  const std::string text = format == "json"   ? analysis_json(a, inv.cmdline)
                           : format == "html" ? analysis_html(a, inv.cmdline)
                                              : analysis_text(a);
  write_output(vm["out"].as<std::string>(), text);
  return a.holds() ? 0 : 1;  // the rule of every analyze (--help): 1 when a judged statement does not hold
}

}  // namespace collcheck
