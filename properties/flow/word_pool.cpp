#include "properties/flow/word_pool.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace collcheck::flow {
namespace {

struct FreeBuffer {
  std::unique_ptr<uint64_t[]> buf;
  size_t capacity = 0;
};

std::mutex pool_mutex;
std::vector<FreeBuffer>& free_list() {
  static std::vector<FreeBuffer> list;
  return list;
}

}  // namespace

PooledWords::PooledWords(size_t words) : words_(words) {
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    auto& list = free_list();
    // The smallest free buffer that is large enough.
    auto best = list.end();
    for (auto it = list.begin(); it != list.end(); ++it)
      if (it->capacity >= words && (best == list.end() || it->capacity < best->capacity)) best = it;
    if (best != list.end()) {
      buf_ = std::move(best->buf);
      capacity_ = best->capacity;
      list.erase(best);
      return;
    }
    // None fits: the free buffers are all too small; give them back so the
    // process holds no more than its peak in use plus this one.
    list.clear();
  }
  buf_.reset(new uint64_t[std::max<size_t>(words, 1)]);
  capacity_ = std::max<size_t>(words, 1);
}

PooledWords::~PooledWords() {
  if (!buf_) return;
  std::lock_guard<std::mutex> lock(pool_mutex);
  free_list().push_back({std::move(buf_), capacity_});
}

size_t pooled_free_words() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  size_t n = 0;
  for (const auto& f : free_list()) n += f.capacity;
  return n;
}

void release_pooled_words() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  free_list().clear();
}

}  // namespace collcheck::flow
