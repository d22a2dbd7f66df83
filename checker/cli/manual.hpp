#pragma once
// The man pages and the bash completion of collcheck and collcheck-mpi,
// generated from the same option tables the command lines parse (each
// subcommand's <name>_options(), collcheck-mpi's table) and from the
// registry, so neither can drift from the program. The build writes them
// with `collcheck --man-page`, `collcheck --bash-completion` (and the same
// flags of collcheck-mpi); `cmake --install` installs them.
#include <boost/program_options.hpp>
#include <map>
#include <string>
#include <vector>

namespace collcheck {

// One command of a page: a subcommand of collcheck, or the whole of
// collcheck-mpi (empty name).
struct ManualCommand {
  std::string name;       // "verify"; "": the program itself
  std::string synopsis;   // "verify --algo A --p RANGE"
  std::string summary;    // what it does (lines separated by '\n')
  boost::program_options::options_description options;
  std::string positional;  // the name of a positional argument ("file"), if any
};

struct ManualSection {
  std::string title;  // "EXIT STATUS"
  std::string text;   // paragraphs separated by blank lines; "- " lines become a list
};

struct ManualPage {
  std::string program;   // "collcheck"
  std::string version;   // "0.1.0"
  std::string purpose;   // the NAME line after the dash
  std::string synopsis;  // "collcheck COMMAND [OPTIONS]"; one line per form ('\n')
  std::string description;
  std::vector<ManualCommand> commands;
  std::vector<ManualSection> sections;  // after the commands
};

// roff (man(7)) for `page`: NAME, SYNOPSIS, DESCRIPTION, one subsection per
// command with every option of its table, then `sections`.
std::string man_page(const ManualPage& page);

// Words an option's value completes to; `comma_list`: the value is a comma
// list (each item completes on its own). `files`: it names a file.
struct CompletionValues {
  std::vector<std::string> words;
  bool comma_list = false;
  bool files = false;
};

// A bash completion script for `page.program`: subcommands (when the page
// has named commands), each command's options, and option values from
// `values` (key: the long option name without dashes). `variants` maps an
// algorithm to its variants: --variant completes to those of the --algo
// given on the line (every variant when none is).
std::string bash_completion(const ManualPage& page, const std::map<std::string, CompletionValues>& values,
                            const std::map<std::string, std::vector<std::string>>& variants);

// The long names of every option of `desc`, with dashes ("--algo").
std::vector<std::string> long_options(const boost::program_options::options_description& desc);

}  // namespace collcheck
