#pragma once
// The collcheck command line: list, verify, dump, check-file, run, prove.
// Every subcommand returns a DESIGN.md exit code; bad input is one line on
// stderr and exit code 2.
namespace collcheck {

int cli_main(int argc, char** argv);

}  // namespace collcheck
