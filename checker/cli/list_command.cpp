// collcheck list: the algorithms, their variants (reference, restriction,
// claims), the properties and the report formats.
#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/sweep/file_claims.hpp"
#include "properties/catalog.hpp"
#include "schedules/registry.hpp"

namespace po = boost::program_options;

namespace collcheck {

po::options_description list_options() {
  po::options_description desc("collcheck list");
  desc.add_options()("help,h", "this help");
  return desc;
}

int cmd_list(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = list_options();
  auto vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (inv.dry_run) return dry_run_done();
  std::cout << "algorithms (variant marked * is the default):\n";
  for (const auto& a : registry()) {
    std::cout << "  " << a.name << " [" << to_string(a.collective) << "] " << a.summary << "\n";
    for (size_t i = 0; i < a.variants.size(); ++i) {
      const auto& v = a.variants[i];
      std::cout << "    " << (i == 0 ? "*" : " ") << " " << v.name << ": " << v.summary << "\n";
      std::cout << "        reference: " << v.reference << "\n";
      std::cout << "        restriction: " << (v.restriction.empty() ? "none (every p >= 1)" : v.restriction) << "\n";
      // The claims are formulas in p, often one per class of p (power of
      // two, even, odd): show each distinct one with an example p.
      std::vector<std::string> shown;
      for (uint64_t p : {16, 12, 9}) {
        if (v.violates(InstanceParams{p, 0})) continue;
        Claim c = v.claim(InstanceParams{p, 0});
        std::string f = "steps " + c.steps_formula + ", volume " + c.volume_formula;
        if (std::find(shown.begin(), shown.end(), f) != shown.end()) continue;
        shown.push_back(f);
        std::cout << "        claim (e.g. p = " << p << "): " << f << " [" << c.source << "]\n";
      }
      if (!v.expected_to_hold) std::cout << "        refuted by collcheck: " << v.known_failure << "\n";
    }
  }
  std::cout << "properties:\n";
  for (const auto& p : property_catalog())
    std::cout << "  " << p.name << (p.generic ? "" : " (algorithm-specific)") << ": " << p.statement << "\n";
  std::cout << "  " << kClaimsProperty
            << " (check-file only): every property a schedule file's \"claims\" assert holds (docs/schedule-format.md)\n";
  std::cout << "formats: text, json, markdown, junit, html\n";
  return 0;
}

}  // namespace collcheck
