#pragma once
// Large word buffers that outlive the instance that used them.
//
// A sweep checks instance after instance of about the same size. Handing
// each instance's contribution state back to the allocator sends it back to
// the kernel (glibc serves blocks this large with mmap), and the next
// instance's first touch of every page is a page fault in which the kernel
// zeroes the page again: Swing bandwidth at p = 1000..1024 took 860,000 minor
// faults for 25 instances. A PooledWords instead returns its buffer to a
// process-wide free list, and the next instance reuses it (grown, never
// shrunk, while a sweep runs).
//
// The words of a buffer are NOT initialised: a recycled buffer holds the
// previous instance's state. The caller writes every word before it reads
// it (the flow simulator zeroes each rank's slice in the parallel loop that
// initialises its cells, so zeroing costs user time spread over the
// threads, not a fault per page).
//
// Memory: the pool keeps at most as many buffers as were in use at once
// (one per concurrently checked instance). A request no free buffer can
// serve first frees the free buffers that are too small, so the process
// never holds more than its peak of buffers in use plus the new one.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace collcheck::flow {

class PooledWords {
 public:
  // A buffer of at least `words` words from the pool (or newly allocated).
  explicit PooledWords(size_t words);
  ~PooledWords();
  PooledWords(const PooledWords&) = delete;
  PooledWords& operator=(const PooledWords&) = delete;

  uint64_t* data() { return buf_.get(); }
  const uint64_t* data() const { return buf_.get(); }
  size_t size() const { return words_; }

 private:
  std::unique_ptr<uint64_t[]> buf_;
  size_t capacity_ = 0;
  size_t words_ = 0;
};

// Words held by free buffers in the pool right now (tests, diagnostics).
size_t pooled_free_words();
// Frees every free buffer (tests; a long-lived process between sweeps).
void release_pooled_words();

}  // namespace collcheck::flow
