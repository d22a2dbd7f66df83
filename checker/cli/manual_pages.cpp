// collcheck's man page and bash completion: the subcommand table
// (checker/cli/cli.cpp), each subcommand's option table, the registry and
// the property catalog, rendered by checker/cli/manual.hpp.
#include "checker/cli/cli.hpp"
#include "checker/cli/manual.hpp"
#include "checker/sweep/file_claims.hpp"
#include "collcheck_version.hpp"
#include "properties/catalog.hpp"
#include "schedules/registry.hpp"

namespace collcheck {
namespace {

ManualPage collcheck_page() {
  ManualPage page;
  page.program = "collcheck";
  page.version = COLLCHECK_VERSION;
  page.purpose = "prove or refute collective-communication schedules for every p, rank, step and block";
  page.synopsis = "collcheck COMMAND [OPTIONS]\ncollcheck --help | --version | --man-page | --bash-completion";
  page.description =
      "collcheck checks the schedules of collective-communication algorithms (allreduce, reduce-scatter, "
      "allgather, broadcast, reduce, all-to-all) against their properties: each block reduced exactly once, "
      "matching sends and receives, causality, ports, the postcondition, claimed step counts and volumes, and "
      "each algorithm's own conditions. It decides every instance of a p-range, names the method that decided "
      "each one (enumerated, quotient, composed, parametric), and reports the minimal counterexample of a "
      "violation.\n\n"
      "Every command takes --help (its options, as below) and --dry-run (validate the command line as the "
      "command would, up to reading an input file or starting work, then exit 0).\n\n"
      "'collcheck list' prints the algorithms, their variants and restrictions, and the properties.";
  for (const Subcommand& c : subcommands())
    page.commands.push_back({c.name, c.synopsis, c.help, c.options(), c.positional});
  page.sections.push_back(
      {"EXIT STATUS",
       "- 0: every checked instance holds.\n"
       "- 1: a property is violated (the report names the minimal counterexample).\n"
       "- 2: bad input (an unknown algorithm, a malformed p-range or schedule file, impossible parameters): one line on "
       "standard error.\n"
       "- 3: undecided: an instance no method could decide (refused by the memory guard, out of memory, a solver "
       "timeout), or an internal error.\n"
       "- 77: skipped: nothing was inside the requested variants' restrictions (--skip-restricted)."});
  page.sections.push_back(
      {"ENVIRONMENT",
       "- NO_COLOR: when set to anything non-empty, text reports carry no colour even on a terminal (nor with "
       "TERM=dumb, nor under an MPI launcher). Colour is never written to a file or a pipe."});
  page.sections.push_back({"FILES", "- share/collcheck/schedule.schema.json under the install prefix: the JSON schema "
                                    "of collcheck's schedule format.\n"
                                    "- share/doc/collcheck/ under the install prefix: the user guide."});
  page.sections.push_back({"SEE ALSO", "collcheck-mpi(1)"});
  return page;
}

}  // namespace

std::string collcheck_man_page() { return man_page(collcheck_page()); }

std::string collcheck_bash_completion() {
  std::map<std::string, CompletionValues> values;
  std::map<std::string, std::vector<std::string>> variants;
  CompletionValues algos{{"all"}, true, false};
  for (const AlgorithmInfo& a : registry()) {
    algos.words.push_back(a.name);
    for (const VariantInfo& v : a.variants) variants[a.name].push_back(v.name);
  }
  values["algo"] = algos;
  CompletionValues props{{}, true, false};
  for (const PropertyInfo& p : property_catalog()) props.words.push_back(p.name);
  props.words.push_back(kClaimsProperty);
  values["properties"] = props;
  values["format"] = {{"text", "json", "markdown", "junit", "html", "jsonl", "traff-table"}, false, false};
  values["schedule-format"] = {{"auto", "json", "jsonl", "traff-table", "msccl"}, false, false};
  values["mode"] = {{"auto", "exact", "fingerprint"}, false, false};
  values["state"] = {{"auto", "dense", "intervals"}, false, false};
  values["dtype"] = {{"int64", "int32", "float", "double"}, false, false};
  values["op"] = {{"sum", "permutation"}, false, false};
  values["topology"] = {{"torus", "hyperx"}, false, false};
  for (const char* f : {"out", "db", "schedule", "file", "smt2-dir", "mutants"}) values[f] = {{}, false, true};
  return bash_completion(collcheck_page(), values, variants);
}

}  // namespace collcheck
