#pragma once
// Helpers shared by the subcommands: option parsing with Boost
// program_options, report output, and the start of an InstanceResult.
#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
// --variant ''): no option of collcheck means anything by it.
void reject_empty_values(const boost::program_options::options_description& desc,
                         const boost::program_options::variables_map& vm);

// The one number grammar of collcheck's numeric options (docs/guide/options.md,
// "Numbers"; every option value that is a number goes through these):
//   integer  decimal digits only: 0, 42, 007. No sign, spaces, hex (0x10),
//            exponent (1e3), inf or nan.
//   decimal  an integer, then optionally '.' and digits, then optionally an
//            exponent 'e' or 'E' with an optional sign and digits: 4, 0.5,
//            2e-6, 1.5E+3. No leading sign or '.', no spaces, hex, inf or nan.
// Integer options take integers, real-valued options (--alpha, --beta,
// --block-bytes, --calibrate-seconds, --memory-gib) decimals, and sizes
// (--max-memory) a decimal with an optional unit.
// nullopt: not an integer, or one above 2^64 - 1 (`too_large` says which).
std::optional<uint64_t> parse_integer(std::string_view text, bool* too_large = nullptr);
// nullopt: not a decimal, or one beyond the range of a double.
std::optional<double> parse_decimal(std::string_view text);

// An integer option: InputError unless `text` is an integer (above) within
// [lo, hi] (Boost would wrap "-1" around silently). `range_note` follows the
// range in the message, e.g. " (0: one per core)".
uint64_t parse_uint_option(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi,
                           const std::string& range_note = "");
// A real-valued option: InputError unless `text` is a decimal (above) in
// [lo, hi]; the message says the option "must be <expected>".
double parse_real_option(const std::string& name, const std::string& text, double lo, double hi,
                         const std::string& expected);

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

// A size: a decimal (the grammar above) and an optional unit, b, k, m, g or t
// (any case, optionally followed by b or ib; binary units): "6G", "512MiB",
// "1.5g", "1048576" (bytes) -> bytes; "none" -> 0 (no guard). Anything else
// (a space, hex, an unknown unit), or a size below 1 MiB, is bad input.
uint64_t parse_memory_size(const std::string& option, const std::string& text);

// The CheckOptions add_check_options' options select; InputError for a bad value.
CheckOptions check_options(const boost::program_options::variables_map& vm);

// --threads: exactly that many worker threads (run_with_threads), 0 = TBB's
// default (one per core this process may use).
int worker_threads(const boost::program_options::variables_map& vm);

// The one (algorithm, variant) a command that takes no 'all' names.
SweepTarget single_target(const std::string& algo, const std::string& variant, bool torus = false);

}  // namespace collcheck
