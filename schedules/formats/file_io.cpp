#include "schedules/formats/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>
#include <streambuf>
#include <utility>

#include "schedules/input_error.hpp"

namespace collcheck {
namespace {

// The system's reason for `err`, in lower case as collcheck's messages are.
std::string reason(int err) {
  std::string s = err ? std::strerror(err) : "write failed";
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// A stream buffer writing to a file descriptor that keeps the first error
// (errno of the failed write), so the message names the real reason.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
  int error() const { return err_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    for (const char* p = pbase(); p < pptr() && !err_;) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        err_ = n < 0 ? errno : EIO;
      else
        p += n;
    }
    setp(buf_, buf_ + sizeof buf_);
    return !err_;
  }

  int fd_;
  int err_ = 0;
  char buf_[1 << 16];
};

// Streams `produce` into `fd` and closes it; the errno of the first failure
// (0: none). An exception from `produce` propagates after the close.
int write_and_close(int fd, const std::function<void(std::ostream&)>& produce) {
  FdBuf buf(fd);
  std::ostream os(&buf);
  try {
    produce(os);
  } catch (...) {
    ::close(fd);
    throw;
  }
  os.flush();
  int err = buf.error();
  if (!err && !os) err = EIO;
  if (::close(fd) != 0 && !err) err = errno;
  return err;
}

// A new temporary file next to `target`, created as a new file would be
// (mode 0666 minus the umask); -1 if the directory does not allow one.
int create_temp(const std::filesystem::path& target, std::string& tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = (target.parent_path() / ("." + target.filename().string() + ".collcheck-tmp-" + std::to_string(::getpid()) +
                                   "-" + std::to_string(counter++)))
              .string();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

void write_in_place(const std::string& path, const std::function<void(std::ostream&)>& produce) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw InputError("cannot write '" + path + "': " + reason(errno));
  if (const int err = write_and_close(fd, produce)) throw InputError("cannot write '" + path + "': " + reason(err));
}

using FileId = std::pair<dev_t, ino_t>;

// Device and inode of `path` ("-": standard output), following links.
std::optional<FileId> file_id(const std::string& path) {
  struct stat st = {};
  if ((path == "-" ? ::fstat(STDOUT_FILENO, &st) : ::stat(path.c_str(), &st)) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

bool same_file(const std::string& output, const std::string& input) {
  const auto a = file_id(output), b = file_id(input);
  if (a || b) return a && b && *a == *b;
  if (output == "-") return false;
  // Neither exists yet (e.g. verify --db S --out S creating both): the same path?
  std::error_code ec1, ec2;
  const auto x = std::filesystem::weakly_canonical(std::filesystem::absolute(output), ec1);
  const auto y = std::filesystem::weakly_canonical(std::filesystem::absolute(input), ec2);
  return !ec1 && !ec2 && x == y;
}

}  // namespace

void write_output(const std::string& path, const std::function<void(std::ostream&)>& produce) {
  if (path.empty()) throw InputError("cannot write '': empty file name ('-' is standard output)");
  if (path == "-") {
    produce(std::cout);
    flush_stdout();
    return;
  }
  struct stat st = {};
  struct stat lst = {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  const bool dangling_link = !exists && ::lstat(path.c_str(), &lst) == 0;
  if (dangling_link || (exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1))) return write_in_place(path, produce);
  std::error_code ec;
  const std::filesystem::path target = exists ? std::filesystem::canonical(path, ec) : std::filesystem::path(path);
  std::string tmp;
  const int fd = ec ? -1 : create_temp(target, tmp);
  if (fd < 0) return write_in_place(path, produce);
  int err = exists && ::fchmod(fd, st.st_mode & 07777) != 0 ? errno : 0;
  try {
    const int werr = write_and_close(fd, produce);
    if (!err) err = werr;
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (!err && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    throw InputError("cannot write '" + path + "': " + reason(err));
  }
}

void write_output(const std::string& path, std::string_view text) {
  write_output(path, [&](std::ostream& os) { os.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void flush_stdout() {
  std::cout.flush();
  if (const auto* captured = dynamic_cast<const FdBuf*>(std::cout.rdbuf())) {
    if (captured->error() || !std::cout)
      throw InputError("cannot write to standard output: " + reason(captured->error()));
    return;
  }
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int err = flush_failed ? errno : 0;
  if (flush_failed || std::ferror(stdout) || !std::cout)
    throw InputError("cannot write to standard output: " + reason(err));
}

StdoutCapture::StdoutCapture() : buf_(std::make_unique<FdBuf>(STDOUT_FILENO)) {
  std::cout.flush();
  std::fflush(stdout);
  old_ = std::cout.rdbuf(buf_.get());
}

StdoutCapture::~StdoutCapture() {
  std::cout.flush();
  std::cout.rdbuf(old_);
}

void require_regular_file(const std::string& path) {
  struct stat st = {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw InputError("cannot read '" + path + "': " + (err == ENOENT ? std::string("no such file") : reason(err)));
  }
  if (S_ISDIR(st.st_mode)) throw InputError("cannot read '" + path + "': is a directory");
  if (!S_ISREG(st.st_mode)) throw InputError("cannot read '" + path + "': not a regular file");
}

void refuse_output_over_input(const std::string& out_option, const std::string& output, const std::string& in_option,
                              const std::string& input, bool sqlite_store) {
  const std::string out_text = output == "-" ? "standard output" : out_option + " '" + output + "'";
  auto refuse = [&](const std::string& what) {
    throw InputError(out_text + " is " + what + ": refusing to write over an input");
  };
  if (same_file(output, input)) refuse(in_option + " '" + input + "'");
  if (sqlite_store)
    for (const char* suffix : {"-journal", "-wal", "-shm"})
      if (same_file(output, input + suffix))
        refuse("the " + std::string(suffix) + " file of " + in_option + " '" + input + "'");
}

}  // namespace collcheck
