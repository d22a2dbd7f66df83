// schedules/formats/file_io.hpp: outputs are written
// whole or not at all, every failure is an InputError naming the reason, an
// output that is an input is refused by identity, and a missing input is
// "no such file".
#include "schedules/formats/file_io.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "schedules/input_error.hpp"

namespace collcheck {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test.
class FileIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("file_io_" + std::to_string(::getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  static void put(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

// The message of the InputError `f` throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(FileIo, WritesAWholeFileAndLeavesNoTemporary) {
  write_output(path("r.txt"), std::string(200000, 'x'));
  EXPECT_EQ(read(path("r.txt")), std::string(200000, 'x'));
  EXPECT_EQ(entries(), 1u);
}

// A failure while writing (here: the producer throws half way) leaves the
// previous report as it was, not a truncated one.
TEST_F(FileIo, AFailedWriteLeavesTheOldFile) {
  put(path("r.txt"), "old report\n");
  EXPECT_THROW(write_output(path("r.txt"),
                            [](std::ostream& os) {
                              os << std::string(100000, 'y');
                              throw std::runtime_error("failed half way");
                            }),
               std::runtime_error);
  EXPECT_EQ(read(path("r.txt")), "old report\n");
  EXPECT_EQ(entries(), 1u);  // the temporary file is gone
}

TEST_F(FileIo, AFullDeviceIsAnErrorWithItsReason) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(error_of([] { write_output("/dev/full", "a report\n"); }),
            "cannot write '/dev/full': no space left on device");
  // Large enough that the buffer is written before the end.
  EXPECT_EQ(error_of([] { write_output("/dev/full", std::string(1 << 20, 'z')); }),
            "cannot write '/dev/full': no space left on device");
}

TEST_F(FileIo, AMissingDirectoryIsAnError) {
  const std::string p = path("no/such/dir/r.txt");
  EXPECT_EQ(error_of([&] { write_output(p, "x"); }), "cannot write '" + p + "': no such file or directory");
  EXPECT_EQ(error_of([] { write_output("", "x"); }), "cannot write '': empty file name ('-' is standard output)");
}

TEST_F(FileIo, ASymbolicLinkIsFollowedAndKept) {
  put(path("target.txt"), "old");
  fs::create_symlink("target.txt", path("link.txt"));
  write_output(path("link.txt"), "new");
  EXPECT_TRUE(fs::is_symlink(path("link.txt")));
  EXPECT_EQ(read(path("target.txt")), "new");
}

TEST_F(FileIo, AHardLinkIsWrittenInPlace) {
  put(path("a.txt"), "old");
  fs::create_hard_link(path("a.txt"), path("b.txt"));
  write_output(path("b.txt"), "new");
  EXPECT_EQ(read(path("a.txt")), "new");
  EXPECT_TRUE(fs::equivalent(path("a.txt"), path("b.txt")));
}

TEST_F(FileIo, AReplacedFileKeepsItsPermissions) {
  put(path("r.txt"), "old");
  ::chmod(path("r.txt").c_str(), 0640);
  write_output(path("r.txt"), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path("r.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// Standard output redirected to `file` while `body` runs.
template <class F>
void with_stdout(const std::string& file, F body) {
  std::cout.flush();
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(file.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << file;
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  body();
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
}

TEST_F(FileIo, StandardOutputWriteErrorsAreReported) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  with_stdout("/dev/full", [] {
    StdoutCapture capture;
    std::cout << std::string(100000, 'a');  // fails when the buffer is written
    EXPECT_EQ(error_of([] { flush_stdout(); }), "cannot write to standard output: no space left on device");
  });
  with_stdout("/dev/full", [] {
    StdoutCapture capture;
    EXPECT_EQ(error_of([] { write_output("-", "a report\n"); }),
              "cannot write to standard output: no space left on device");
  });
}

TEST_F(FileIo, MissingInputsSayWhy) {
  const std::string missing = path("missing.json");
  EXPECT_EQ(error_of([&] { require_regular_file(missing); }), "cannot read '" + missing + "': no such file");
  EXPECT_EQ(error_of([&] { require_regular_file(dir_.string()); }),
            "cannot read '" + dir_.string() + "': is a directory");
  EXPECT_EQ(error_of([] { require_regular_file("/dev/null"); }), "cannot read '/dev/null': not a regular file");
  put(path("s.json"), "{}");
  EXPECT_EQ(error_of([&] { require_regular_file(path("s.json")); }), "");
}

TEST_F(FileIo, AnOutputThatIsAnInputIsRefusedByIdentity) {
  put(path("s.sqlite"), "store");
  fs::create_symlink("s.sqlite", path("link.sqlite"));
  fs::create_hard_link(path("s.sqlite"), path("hard.sqlite"));
  auto refused = [&](const std::string& out, const std::string& in, bool store = true) {
    return error_of([&] { refuse_output_over_input("--out", out, "--db", in, store); });
  };
  const std::string s = path("s.sqlite");
  EXPECT_EQ(refused(s, s), "--out '" + s + "' is --db '" + s + "': refusing to write over an input");
  EXPECT_NE(refused(path("link.sqlite"), s), "");
  EXPECT_NE(refused(s, path("link.sqlite")), "");
  EXPECT_NE(refused(path("hard.sqlite"), s), "");
  EXPECT_NE(refused((dir_ / "." / "s.sqlite").string(), s), "");
  // The store's companion files, existing or not.
  EXPECT_EQ(refused(s + "-wal", s),
            "--out '" + s + "-wal' is the -wal file of --db '" + s + "': refusing to write over an input");
  EXPECT_NE(refused(s + "-journal", s), "");
  EXPECT_NE(refused(s + "-shm", s), "");
  EXPECT_EQ(refused(s + "-wal", s, false), "");  // not a store: an ordinary other file
  // Neither exists yet (verify --db NEW --out NEW): the same path.
  EXPECT_NE(refused(path("new.sqlite"), (dir_ / "x" / ".." / "new.sqlite").string()), "");
  EXPECT_EQ(refused(path("r.txt"), s), "");
  EXPECT_EQ(refused(path("new.txt"), path("new.sqlite")), "");
  // Standard output redirected to the input.
  with_stdout(
      s, [&] { EXPECT_EQ(refused("-", s), "standard output is --db '" + s + "': refusing to write over an input"); });
  EXPECT_EQ(refused("-", s), "");
}

}  // namespace
}  // namespace collcheck
