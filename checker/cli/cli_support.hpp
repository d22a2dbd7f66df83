#pragma once
// Helpers shared by the subcommands: option parsing with Boost
// program_options, report output, and the start of an InstanceResult.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "checker/sweep/sweep.hpp"
#include "reports/report.hpp"

namespace collcheck {

// Parses `args` (stray words and empty values are bad input).
boost::program_options::variables_map parse_args(const boost::program_options::options_description& desc,
                                                 const std::vector<std::string>& args,
                                                 const boost::program_options::positional_options_description* pos = nullptr);

// --help given: prints `desc` to stdout and returns true (the command then
// exits 0); false otherwise.
bool print_help(const boost::program_options::options_description& desc,
                const boost::program_options::variables_map& vm);

// InputError for any option given an empty string (--out '', --db '',
// --variant ''): no option of collcheck means anything by it (issue 14 item 17).
void reject_empty_values(const boost::program_options::options_description& desc,
                         const boost::program_options::variables_map& vm);

// Parses an unsigned integer option given as text; InputError unless it is
// all digits and within [lo, hi] (Boost would wrap "-1" around silently).
uint64_t parse_uint_option(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi);

// --n (blocks), --root, --radix, --radix2, --ppn and --dims (torus shapes), for
// the algorithms that take them.
void add_instance_options(boost::program_options::options_description& desc);
// Applies --n / --root to every target; InputError if a target's collective
// has no use for them (allreduce) or a value is out of range.
void apply_instance_options(const boost::program_options::variables_map& vm, std::vector<SweepTarget>& targets);

// The whole file as text, for the readers that parse a whole text (Träff
// tables, MSCCL XML): InputError if it cannot be read; ResourceRefusal
// (schedules/memory_guard.hpp) if the text alone exceeds `max_memory` bytes
// (0: no limit) or the process runs out of memory reading it.
std::string read_whole_file(const std::string& path, uint64_t max_memory);

// Renders `r` in `format` to `out` ("-" = stdout) with write_output
// (schedules/formats/file_io.hpp: every write checked); InputError on a bad format,
// path or a failed write.
void emit_report(const Report& r, const std::string& format, const std::string& out, bool verbose);

// --mode, --exact-max-p, --state, --memory-gib, --max-memory, --seed,
// --threads, --format, --out, --verbose, --quiet: the checker's options
// (verify, check-file).
void add_check_options(boost::program_options::options_description& desc);

// "6G", "512MiB", "1.5g", "1048576" (bytes) -> bytes (binary units); "none" -> 0
// (no guard). Anything else, or a size below 1 MiB, is bad input.
uint64_t parse_memory_size(const std::string& option, const std::string& text);

// The CheckOptions add_check_options' options select; InputError for a bad value.
CheckOptions check_options(const boost::program_options::variables_map& vm);

// --threads: exactly that many worker threads (run_with_threads), 0 = TBB's
// default (one per core this process may use).
int worker_threads(const boost::program_options::variables_map& vm);

// The one (algorithm, variant) a command that takes no 'all' names.
SweepTarget single_target(const std::string& algo, const std::string& variant, bool torus = false);

}  // namespace collcheck
