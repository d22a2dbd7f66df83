#pragma once
// File input and output shared by every layer (like input_error.hpp): the
// one way collcheck writes a report, a dump or an SMT-LIB2 file, the check
// that a file can be read, and the refusal to write an output over an input.
// Every failure is bad input: InputError, one line, exit 2.
//
// Writing (write_output): every write, the flush and the close are checked;
// a failure (a full disk, /dev/full, a closed stdout) throws
// "cannot write 'PATH': <the system's reason>". A regular file is written to
// a temporary file in the same directory (".NAME.collcheck-tmp-PID-N") and
// renamed over PATH only once complete, so a failed write leaves the previous
// file as it was and never a truncated one; the temporary file is removed.
// Written in place instead (still checked): a path that exists and is not a
// regular file (/dev/stdout, a FIFO, a device), a regular file with more than
// one hard link (the rename would break the link), or a directory where no
// temporary file can be created. A symbolic link is followed: its target is
// replaced, the link stays. A replaced file keeps its permission bits.
#include <functional>
#include <iosfwd>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace collcheck {

// Writes what `produce` streams to `path` ("-" = standard output, flushed and
// checked); InputError if anything fails, or for an empty path.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& produce);
void write_output(const std::string& path, std::string_view text);

// Flushes standard output; InputError("cannot write to standard output: ...")
// if this or any earlier write to it failed (e.g. `collcheck list >/dev/full`).
void flush_stdout();

// While it lives, std::cout writes to file descriptor 1 through a buffer that
// keeps the first failure's reason, for flush_stdout's message; restores
// std::cout's buffer (flushed, errors ignored) when destroyed. One per
// command (cli_main).
class StdoutCapture {
 public:
  StdoutCapture();
  ~StdoutCapture();
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;

 private:
  std::unique_ptr<std::streambuf> buf_;
  std::streambuf* old_;
};

// InputError unless `path` names a regular file (or a link to one): "cannot
// read 'PATH': no such file", "...: is a directory", "...: not a regular file".
void require_regular_file(const std::string& path);

// InputError if writing `output` (option `out_option`, "-" = standard output)
// would write over `input` (option `in_option`): the same file by identity
// (device and inode: also through symbolic or hard links, or standard output
// redirected to it), or the same path if either does not exist yet. With
// `sqlite_store`, also the store's -journal, -wal and -shm files. Nothing has
// been written when it throws.
void refuse_output_over_input(const std::string& out_option, const std::string& output, const std::string& in_option,
                              const std::string& input, bool sqlite_store = false);

}  // namespace collcheck
