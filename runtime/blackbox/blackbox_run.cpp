#include "runtime/blackbox/blackbox_run.hpp"

#include "runtime/blackbox/library_mpi.hpp"
#include "runtime/blackbox/power_sums.hpp"
#include "runtime/smpi/smpi_job.hpp"

#include <dlfcn.h>

#include <deque>
#include <map>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <typeinfo>

#include "runtime/blackbox/crash_report.hpp"
#include "runtime/trace/pmpi_recorder.hpp"
#include "runtime/trace/trace_collect.hpp"

namespace collcheck::runtime::blackbox {

namespace {

using AllreduceFn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
using ReduceFn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
using ReduceScatterBlockFn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
using ReduceScatterFn = int (*)(const void*, void*, const int[], MPI_Datatype, MPI_Op, MPI_Comm);
using AllgatherFn = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
using BcastFn = int (*)(void*, int, MPI_Datatype, int, MPI_Comm);
using AlltoallFn = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
using AllgathervFn = int (*)(const void*, int, MPI_Datatype, void*, const int[], const int[], MPI_Datatype, MPI_Comm);
using AlltoallvFn = int (*)(const void*, const int[], const int[], MPI_Datatype, void*, const int[], const int[],
                            MPI_Datatype, MPI_Comm);

// ---- buffers -------------------------------------------------------------------

// A buffer handed to the function under test: its last byte ends a page, the
// next page is PROT_NONE (a write past the end faults at once: SIGSEGV, the
// crash line), and the bytes before it, to the start of its first page and at
// least kCanaryBytes, hold a pattern checked after the call (a write before
// the start). Zero bytes: the pointer is the guard page's first byte, valid
// to pass, faulting if written.
class GuardedBuffer {
 public:
  static constexpr size_t kCanaryBytes = 256;
  static constexpr unsigned char kCanary = 0xA5;

  explicit GuardedBuffer(const std::vector<unsigned char>& content) : size_(content.size()) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t data_pages = (size_ + kCanaryBytes + page - 1) / page;
    total_ = (data_pages + 1) * page;
    void* m = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<unsigned char*>(m);
    if (mprotect(base_ + data_pages * page, page, PROT_NONE) != 0) {
      munmap(base_, total_);
      throw std::bad_alloc();
    }
    data_ = base_ + data_pages * page - size_;
    std::memset(base_, kCanary, static_cast<size_t>(data_ - base_));
    if (size_) std::memcpy(data_, content.data(), size_);
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { munmap(base_, total_); }

  unsigned char* data() { return data_; }
  size_t size() const { return size_; }
  // How many bytes before the start were written (the farthest from it), or 0.
  size_t written_before() const {
    for (const unsigned char* q = base_; q < data_; ++q)
      if (*q != kCanary) return static_cast<size_t>(data_ - q);
    return 0;
  }

 private:
  size_t size_ = 0, total_ = 0;
  unsigned char* base_ = nullptr;
  unsigned char* data_ = nullptr;
};

// After the call and again before the verdict: allocations and frees of
// several sizes, so glibc's consistency checks (chunk headers, the top chunk,
// the bins; with the malloc check of heap_check.hpp every allocation checks
// the top chunk) run over a heap the function may have overrun in its own
// temporaries; a detected corruption aborts (SIGABRT), reported by the crash
// line prepared for it. Not a proof of a clean heap: AddressSanitizer is
// (docs/guide/mpi.md).
void heap_probe() {
  for (size_t bytes : {size_t{24}, size_t{200}, size_t{1500}, size_t{20000}, size_t{300000}}) {
    void* volatile q = std::malloc(bytes);
    if (q) std::memset(q, 0, bytes);
    std::free(q);
  }
}

// What a crash after the call voids: the verdicts this job has not printed.
const std::string kVoidedVerdicts =
    "every verdict printed before this line was confirmed by every rank; no later one was reached";

// Between calls: collcheck-mpi's own work, under its own deadline (a heap
// the call corrupted can make the allocator loop or abort here).
void after_call(const std::string& what, double timeout_seconds) {
  set_crash_line(" crashed in collcheck-mpi's own code after " + what +
                 " returned: a heap corruption glibc detected late, most likely the call's (" + kVoidedVerdicts + ")");
  arm_watchdog("collcheck-mpi's own work after " + what, timeout_seconds + kOwnWorkSeconds, PhaseKind::own_work);
}

// The last check of a black-box run before any verdict of it is printed:
// every rank's heap, checked again after every buffer and guard of its
// calls is gone, and every rank's word that it got here. Rank 0 returns
// (and prints) only then, never while another rank may still abort on what
// the calls left behind.
void confirm_checks(const std::string& what, double timeout_seconds, MPI_Comm comm) {
  set_crash_line(": the heap was corrupted during the calls of " + what +
                 ": glibc's heap check aborted in the check before the verdict (no verdict of these calls was printed)");
  heap_probe();
  set_crash_line(" crashed in collcheck-mpi's confirmation of " + what + " (" + kVoidedVerdicts + ")");
  arm_watchdog("the confirmation of every rank's checks of " + what, timeout_seconds, PhaseKind::call);
  call_returned();  // this rank is done: it waits for the others
  (void)gather_texts("", comm);
  after_call(what, timeout_seconds);
}

struct Typed {
  MPI_Datatype type;     // what the call is given
  uint64_t scale = 1;    // MPI count per logical element (counters: p)
};

std::vector<unsigned char> pack(const std::vector<double>& v, DType d) {
  const size_t b = d == DType::float32 || d == DType::int32 ? 4 : 8;
  std::vector<unsigned char> out(v.size() * b);
  for (size_t i = 0; i < v.size(); ++i) {
    if (d == DType::int32) {  // the sentinel as kSentinel32; every payload value fits (representable())
      const int32_t x = std::isnan(v[i]) || v[i] == kSentinel ? kSentinel32 : static_cast<int32_t>(v[i]);
      std::memcpy(out.data() + i * b, &x, b);
    } else if (d == DType::int64) {
      const int64_t x = std::isnan(v[i]) ? static_cast<int64_t>(kSentinel) : static_cast<int64_t>(v[i]);
      std::memcpy(out.data() + i * b, &x, b);
    } else if (d == DType::float32) {
      const float x = static_cast<float>(v[i]);
      std::memcpy(out.data() + i * b, &x, b);
    } else {
      std::memcpy(out.data() + i * b, &v[i], b);
    }
  }
  return out;
}

std::vector<double> unpack(const unsigned char* p, size_t n, DType d) {
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (d == DType::int32) {
      int32_t x;
      std::memcpy(&x, p + i * 4, 4);
      out[i] = x == kSentinel32 ? kSentinel : static_cast<double>(x);
    } else if (d == DType::int64) {
      int64_t x;
      std::memcpy(&x, p + i * 8, 8);
      out[i] = static_cast<double>(x);
    } else if (d == DType::float32) {
      float x;
      std::memcpy(&x, p + i * 4, 4);
      out[i] = x;
    } else {
      std::memcpy(&out[i], p + i * 8, 8);
    }
  }
  return out;
}

// counters-op: the element is p int64 counters (the datatype's size tells p).
extern "C" void counters_sum_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const size_t n = static_cast<size_t>(*len) * static_cast<size_t>(bytes) / sizeof(int64_t);
  const int64_t* a = static_cast<const int64_t*>(in);
  int64_t* b = static_cast<int64_t*>(inout);
  for (size_t i = 0; i < n; ++i) b[i] += a[i];
}

extern "C" void concat_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  concatenate(static_cast<const int64_t*>(in), static_cast<int64_t*>(inout), static_cast<uint64_t>(*len),
              static_cast<uint64_t>(bytes) / sizeof(int64_t));
}

extern "C" void power_sums_op(void* in, void* inout, int* len, MPI_Datatype*) {
  power_sums::add_mod(static_cast<const int64_t*>(in), static_cast<int64_t*>(inout),
                      static_cast<uint64_t>(*len) * power_sums::kValues);
}

extern "C" void matrix_op(void* in, void* inout, int* len, MPI_Datatype*) {
  matrix_product(static_cast<const int64_t*>(in), static_cast<int64_t*>(inout), static_cast<uint64_t>(*len));
}

MPI_Datatype base_type(DType d) {
  return d == DType::int64 ? MPI_INT64_T : d == DType::int32 ? MPI_INT32_T : d == DType::float32 ? MPI_FLOAT : MPI_DOUBLE;
}

std::string type_name(DType d) {
  return d == DType::int64 ? "MPI_INT64_T" : d == DType::int32 ? "MPI_INT32_T" : d == DType::float32 ? "MPI_FLOAT" : "MPI_DOUBLE";
}

// One call of a target whose count type is C (size_t, MPI_Count): the
// collectives with one count (scalar_count), through `function`.
template <class C>
int call_counted(const Target& t, const void* sbuf, void* rbuf, C count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm) {
  void* f = t.function;
  switch (t.coll) {
    case Coll::allreduce:
    case Coll::reduce_scatter_block:
      return reinterpret_cast<int (*)(const void*, void*, C, MPI_Datatype, MPI_Op, MPI_Comm)>(f)(sbuf, rbuf, count,
                                                                                              type, op, comm);
    case Coll::reduce:
      return reinterpret_cast<int (*)(const void*, void*, C, MPI_Datatype, MPI_Op, int, MPI_Comm)>(f)(
          sbuf, rbuf, count, type, op, root, comm);
    case Coll::allgather:
    case Coll::alltoall:
      return reinterpret_cast<int (*)(const void*, C, MPI_Datatype, void*, C, MPI_Datatype, MPI_Comm)>(f)(
          sbuf, count, type, rbuf, count, type, comm);
    case Coll::bcast:
      return reinterpret_cast<int (*)(void*, C, MPI_Datatype, int, MPI_Comm)>(f)(rbuf, count, type, root, comm);
    default: throw std::logic_error("call_counted: a collective with count arrays");  // refused by the caller
  }
}

// One call of the target on prepared buffers; returns the MPI error code.
int call(const Target& t, const void* sbuf, void* rbuf, int count, const Layout& l, MPI_Datatype type, MPI_Op op,
         int root, MPI_Comm comm) {
  if (t.count_type == CountType::size)
    return call_counted<size_t>(t, sbuf, rbuf, static_cast<size_t>(count), type, op, root, comm);
  if (t.count_type == CountType::mpi_count)
    return call_counted<MPI_Count>(t, sbuf, rbuf, static_cast<MPI_Count>(count), type, op, root, comm);
  const bool native = t.function == nullptr;
  const int* recvcounts = l.recvcounts.data();
  switch (t.coll) {
    case Coll::allreduce:
      return native ? MPI_Allreduce(sbuf, rbuf, count, type, op, comm)
                    : reinterpret_cast<AllreduceFn>(t.function)(sbuf, rbuf, count, type, op, comm);
    case Coll::reduce:
      return native ? MPI_Reduce(sbuf, rbuf, count, type, op, root, comm)
                    : reinterpret_cast<ReduceFn>(t.function)(sbuf, rbuf, count, type, op, root, comm);
    case Coll::reduce_scatter_block:
      return native ? MPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm)
                    : reinterpret_cast<ReduceScatterBlockFn>(t.function)(sbuf, rbuf, count, type, op, comm);
    case Coll::reduce_scatter:
      return native ? MPI_Reduce_scatter(sbuf, rbuf, recvcounts, type, op, comm)
                    : reinterpret_cast<ReduceScatterFn>(t.function)(sbuf, rbuf, recvcounts, type, op, comm);
    case Coll::allgather:
      return native ? MPI_Allgather(sbuf, count, type, rbuf, count, type, comm)
                    : reinterpret_cast<AllgatherFn>(t.function)(sbuf, count, type, rbuf, count, type, comm);
    case Coll::bcast:
      return native ? MPI_Bcast(rbuf, count, type, root, comm)
                    : reinterpret_cast<BcastFn>(t.function)(rbuf, count, type, root, comm);
    case Coll::alltoall:
      return native ? MPI_Alltoall(sbuf, count, type, rbuf, count, type, comm)
                    : reinterpret_cast<AlltoallFn>(t.function)(sbuf, count, type, rbuf, count, type, comm);
    case Coll::allgatherv: {
      const int mine = static_cast<int>(l.send);
      return native ? MPI_Allgatherv(sbuf, mine, type, rbuf, recvcounts, l.displs.data(), type, comm)
                    : reinterpret_cast<AllgathervFn>(t.function)(sbuf, mine, type, rbuf, recvcounts, l.displs.data(),
                                                                 type, comm);
    }
    case Coll::alltoallv:
      return native ? MPI_Alltoallv(sbuf, l.sendcounts.data(), l.sdispls.data(), type, rbuf, recvcounts,
                                    l.displs.data(), type, comm)
                    : reinterpret_cast<AlltoallvFn>(t.function)(sbuf, l.sendcounts.data(), l.sdispls.data(), type,
                                                                rbuf, recvcounts, l.displs.data(), type, comm);
  }
  return MPI_ERR_OTHER;
}

// The C++ symbols in the dynamic symbol table of the ELF file `path` whose
// mangled name holds `name` as a source name ("<length><name>"): the
// function compiled without extern "C". Empty if the file is not a 64-bit
// ELF or has none.
std::vector<std::string> mangled_like(const std::string& path, const std::string& name) {
  std::ifstream f(path, std::ios::binary);
  const std::string elf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  if (elf.size() < sizeof(Elf64_Ehdr) || elf.compare(0, SELFMAG, ELFMAG) != 0 || elf[EI_CLASS] != ELFCLASS64) return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  auto section = [&](size_t i, Elf64_Shdr& sh) {
    const uint64_t at = eh.e_shoff + i * eh.e_shentsize;
    if (eh.e_shentsize < sizeof sh || at + sizeof sh > elf.size()) return false;
    std::memcpy(&sh, elf.data() + at, sizeof sh);
    return sh.sh_offset <= elf.size() && sh.sh_size <= elf.size() - sh.sh_offset;
  };
  const std::string source = std::to_string(name.size()) + name;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sym, str;
    if (!section(i, sym) || sym.sh_type != SHT_DYNSYM || !section(sym.sh_link, str)) continue;
    for (uint64_t at = sym.sh_offset; at + sizeof(Elf64_Sym) <= sym.sh_offset + sym.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym s;
      std::memcpy(&s, elf.data() + at, sizeof s);
      if (s.st_name >= str.sh_size || s.st_shndx == SHN_UNDEF) continue;
      const char* n = elf.data() + str.sh_offset + s.st_name;
      const std::string sn(n, strnlen(n, str.sh_size - s.st_name));
      if (sn.rfind("_Z", 0) == 0 && sn.find(source) != std::string::npos) out.push_back(sn);
    }
  }
  return out;
}

// The smallest rank's defect, at rank 0 (empty elsewhere); `others` (rank 0)
// gets how many other ranks had one and up to three of them that say
// something else than the first ("rank 2, element 0: ..." apart from the rank):
// ranks whose results differ from each other are named, not only the first.
std::optional<std::string> first_defect(const std::vector<std::pair<int, std::string>>& found, int size,
                                        std::optional<std::string>* others = nullptr) {
  if (found.empty()) return std::nullopt;
  if (others && found.size() > 1) {
    // What a defect says apart from its rank ("rank 2, " / "rank 2: " prefix).
    auto gist = [](const std::pair<int, std::string>& d) {
      const std::string head = "rank " + std::to_string(d.first);
      return d.second.rfind(head, 0) == 0 ? d.second.substr(std::min(d.second.size(), head.size() + 2)) : d.second;
    };
    std::vector<std::string> shown, seen{gist(found.front())};
    for (size_t i = 1; i < found.size() && shown.size() < 3; ++i)
      if (std::find(seen.begin(), seen.end(), gist(found[i])) == seen.end()) {
        seen.push_back(gist(found[i]));
        shown.push_back(found[i].second);
      }
    std::string text = std::to_string(found.size()) + " of " + std::to_string(size) + " ranks wrong";
    if (!shown.empty()) {
      text += "; ranks that differ from the first:";
      for (const std::string& d : shown) text += " [" + d + "]";
    }
    *others = text;
  }
  return found.front().second;
}

}  // namespace

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, cls = 0;
  if (MPI_Error_class(rc, &cls) != MPI_SUCCESS || MPI_Error_string(rc, text, &len) != MPI_SUCCESS || len <= 0)
    return "not an MPI error code: MPI_Error_string does not know it";
  return std::string(text, static_cast<size_t>(len)) + ", class " + std::to_string(cls);
}

const char* to_string(CountType c) {
  switch (c) {
    case CountType::int32: return "int";
    case CountType::size: return "size_t";
    case CountType::mpi_count: return "MPI_Count";
  }
  return "?";
}

std::optional<CountType> count_type_from_string(const std::string& s) {
  for (CountType c : {CountType::int32, CountType::size, CountType::mpi_count})
    if (s == to_string(c)) return c;
  return std::nullopt;
}

bool scalar_count(Coll c) {
  return c == Coll::allreduce || c == Coll::reduce || c == Coll::reduce_scatter_block || c == Coll::allgather ||
         c == Coll::bcast || c == Coll::alltoall;
}

std::optional<std::string> foreign_provider(const std::string& symbol) {
  auto provider = [](const char* name) -> std::string {
    void* f = dlsym(RTLD_DEFAULT, name);
    Dl_info info{};
    return f && dladdr(f, &info) && info.dli_fname ? info.dli_fname : "";
  };
  const std::string mine = provider(symbol.c_str()), library = provider("MPI_Init");
  if (mine.empty() || mine == library) return std::nullopt;
  return mine;
}

std::optional<std::string> load_large_count_binding(Coll c, void*& function) {
  const std::string name = mpi_name(c) + "_c";
  dlerror();
  function = dlsym(RTLD_DEFAULT, name.c_str());
  if (!function)
    return "this MPI library has no " + name + " (the MPI-4 large-count bindings: Open MPI 5 and MPICH 4 have them)";
  return std::nullopt;
}

// collcheck's own messages travel on a duplicate of MPI_COMM_WORLD, point
// to point: not on the communicator under test (a function that receives
// with MPI_ANY_TAG would take them for its own) and not through the
// library's collectives (scripts/backends forces them to the algorithm under
// test, and a broken one must not decide what is reported about it).
namespace {
MPI_Comm g_bookkeeping = MPI_COMM_NULL;
constexpr int kBookkeepingTag = 1;  // gather_texts: every rank's text to the root
constexpr int kShareTag = 2;        // share_from_root: the root's value to every rank
// Texts gather_texts took for a later gather (of another communicator, or the
// next call), by sender: it takes messages in arrival order (a receive per
// rank in rank order would search all queued messages, O(p^2) for a gather
// under SMPI's thousands of ranks), and a sender's messages stay in order.
std::map<int, std::deque<std::string>> g_early;

MPI_Comm bookkeeping() {
  if (g_bookkeeping == MPI_COMM_NULL)
    throw std::logic_error("collcheck-mpi: start_bookkeeping() was not called before a black-box run");
  return g_bookkeeping;
}

// World rank of each rank of `comm` (MPI_Group_translate_ranks: local).
std::vector<int> world_ranks(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<int> in(static_cast<size_t>(size)), out(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) in[static_cast<size_t>(r)] = r;
  MPI_Group g, world;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_translate_ranks(g, size, in.data(), world, out.data());
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  return out;
}
}  // namespace

void start_bookkeeping() {
  if (g_bookkeeping == MPI_COMM_NULL) MPI_Comm_dup(MPI_COMM_WORLD, &g_bookkeeping);
}

std::vector<std::pair<int, std::string>> gather_texts(const std::string& mine, MPI_Comm comm) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const std::vector<int> world = world_ranks(comm);
  const MPI_Comm bk = bookkeeping();
  std::vector<std::pair<int, std::string>> out;
  if (me != 0) {
    MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, world[0], kBookkeepingTag, bk);
    return out;
  }
  if (!mine.empty()) out.emplace_back(0, mine);
  std::map<int, int> waiting;  // world rank -> rank in comm, for those not heard yet
  for (size_t r = 1; r < world.size(); ++r) waiting[world[r]] = static_cast<int>(r);
  auto take = [&](int local, std::string text) {
    if (!text.empty()) out.emplace_back(local, std::move(text));
  };
  for (auto it = waiting.begin(); it != waiting.end();) {  // what came early for this gather
    auto early = g_early.find(it->first);
    if (early == g_early.end() || early->second.empty()) {
      ++it;
      continue;
    }
    take(it->second, std::move(early->second.front()));
    early->second.pop_front();
    it = waiting.erase(it);
  }
  while (!waiting.empty()) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, kBookkeepingTag, bk, &status);
    int len = 0;
    MPI_Get_count(&status, MPI_CHAR, &len);
    std::string text(static_cast<size_t>(len), '\0');
    MPI_Recv(text.data(), len, MPI_CHAR, status.MPI_SOURCE, kBookkeepingTag, bk, MPI_STATUS_IGNORE);
    const auto from = waiting.find(status.MPI_SOURCE);
    if (from == waiting.end()) {  // for a later gather of this rank's
      g_early[status.MPI_SOURCE].push_back(std::move(text));
      continue;
    }
    take(from->second, std::move(text));
    waiting.erase(from);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

int share_from_root(int value, MPI_Comm comm) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const std::vector<int> world = world_ranks(comm);
  const MPI_Comm bk = bookkeeping();
  if (me == 0) {
    for (size_t r = 1; r < world.size(); ++r) MPI_Send(&value, 1, MPI_INT, world[r], kShareTag, bk);
    return value;
  }
  MPI_Recv(&value, 1, MPI_INT, world[0], kShareTag, bk, MPI_STATUS_IGNORE);
  return value;
}

std::string mpi_name(Coll c) {
  switch (c) {
    case Coll::allreduce: return "MPI_Allreduce";
    case Coll::reduce: return "MPI_Reduce";
    case Coll::reduce_scatter_block: return "MPI_Reduce_scatter_block";
    case Coll::reduce_scatter: return "MPI_Reduce_scatter";
    case Coll::allgather: return "MPI_Allgather";
    case Coll::bcast: return "MPI_Bcast";
    case Coll::alltoall: return "MPI_Alltoall";
    case Coll::allgatherv: return "MPI_Allgatherv";
    case Coll::alltoallv: return "MPI_Alltoallv";
  }
  return "?";
}

std::optional<std::string> load_function(const std::string& spec, void*& function) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size())
    return "--function takes LIBRARY:SYMBOL (e.g. ./libmine.so:my_allreduce), got '" + spec + "'";
  const std::string lib = spec.substr(0, colon), sym = spec.substr(colon + 1);
  if (auto why = foreign_mpi(lib)) return why;
  std::string file = lib;  // under SMPI, this rank's own copy (runtime/smpi/smpi_job.hpp)
  try {
    file = smpi::library_for_this_rank(lib);
  } catch (const std::runtime_error& e) {
    return std::string(e.what());
  }
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    return "cannot load '" + lib + "': " + (e ? e : "unknown error");
  }
  dlerror();
  function = dlsym(handle, sym.c_str());
  if (const char* e = dlerror(); e || !function) {
    std::string why = "no symbol '" + sym + "' in '" + lib + "'" + (e ? std::string(": ") + e : "");
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) {
      const std::vector<std::string> cxx = mangled_like(map->l_name, sym);
      if (!cxx.empty())
        why += "; it has the C++ function " + cxx.front() + (cxx.size() > 1 ? " (and " + std::to_string(cxx.size() - 1) + " more)" : "") +
               ": declare it extern \"C\", or pass that mangled name";
    }
    return why;
  }
  return std::nullopt;  // the library stays loaded for the process
}

namespace {

// Why --trace cannot record `c` with `count`, whatever p (nullopt: it can).
std::optional<std::string> untraceable(Coll c, uint64_t count) {
  if (count == 0) return "--trace needs a count of at least 1: there is nothing to trace";
  if (c == Coll::alltoall)
    return "--trace does not take alltoall: the schedule format gives it one block per pair of ranks, which a count "
           "above 1 would split";
  if (c == Coll::allgatherv || c == Coll::alltoallv)
    return std::string("--trace does not take ") + to_string(c) +
           ": the schedule format's blocks are even, a v-collective's runs are not";
  return std::nullopt;
}

// An MPI int count of `count` elements per rank pair (p at least 4 in the
// payload layouts): nullopt if it fits.
std::optional<std::string> count_overflow(uint64_t count, uint64_t p) {
  if (count <= static_cast<uint64_t>(INT32_MAX) / std::max<uint64_t>(p, 4)) return std::nullopt;
  return "--count " + std::to_string(count) + " times p does not fit an MPI int count";
}

}  // namespace

trace::TraceSpec trace_spec(Coll c, uint64_t p, uint64_t count, int root) {
  trace::TraceSpec s;
  CollectiveSpec& cs = s.collective;
  cs.p = p;
  cs.root = static_cast<Rank>(root);
  if (auto why = untraceable(c, count)) throw std::invalid_argument(*why);
  uint64_t nblocks = count;
  switch (c) {
    case Coll::allreduce: cs.kind = Collective::allreduce; break;
    case Coll::reduce: cs.kind = Collective::reduce; break;
    case Coll::reduce_scatter_block: cs.kind = Collective::reduce_scatter, nblocks = p * count; break;
    case Coll::reduce_scatter:
      if (count % p != 0)
        throw std::invalid_argument("--trace of reduce-scatter needs a count that is a multiple of p (the schedule "
                                    "format splits the vector evenly); got " + std::to_string(count) + " on " +
                                    std::to_string(p) + " ranks");
      cs.kind = Collective::reduce_scatter;
      break;
    case Coll::allgather:
      cs.kind = Collective::allgather, nblocks = p * count;
      s.encoding = trace::Encoding::source_tagged, s.source_elements = count;
      break;
    case Coll::bcast:
      cs.kind = Collective::broadcast;
      s.encoding = trace::Encoding::source_tagged, s.source_elements = count;
      break;
    case Coll::alltoall:
    case Coll::allgatherv:
    case Coll::alltoallv:
      break;  // refused above (untraceable)
  }
  cs.nblocks = nblocks;
  return s;
}

bool BlackBoxResult::holds() const {
  for (const PayloadResult& r : payloads)
    if (r.defect || r.refusal || (r.trace && r.trace->defect)) return false;
  return true;
}

bool BlackBoxResult::wrong() const {
  for (const PayloadResult& r : payloads)
    if (r.defect || (r.trace && r.trace->defect)) return true;
  return false;
}

void check_run_options(Coll c, const RunOptions& o) {
  if (auto why = count_overflow(o.count, 1)) throw std::invalid_argument(*why);  // too large at every p
  if (o.in_place && c == Coll::bcast) throw std::invalid_argument("--in-place does not apply to bcast");
  if (o.in_place && c == Coll::alltoallv)
    throw std::invalid_argument("--in-place does not apply to alltoallv here: MPI_IN_PLACE needs symmetric counts, "
                                "and the v-payload's are not");
  std::vector<Payload> todo = o.payloads.empty() ? payloads_for(c) : o.payloads;
  if (o.trace) {
    if (auto why = untraceable(c, o.count)) throw std::invalid_argument(*why);
    const Payload read = reduces(c) ? Payload::tagged_counters : Payload::source_tagged;
    if (!o.payloads.empty() && o.payloads != std::vector<Payload>{read})
      throw std::invalid_argument(std::string("--trace reads the ") + to_string(read) + " payload; it takes no other --payload");
    if (o.dtype != DType::int64) throw std::invalid_argument("--trace reads int64 payloads; it takes no --dtype");
    todo = {read};
  }
  const std::vector<Payload> fit = payloads_for(c);
  for (Payload pl : todo)
    if (std::find(fit.begin(), fit.end(), pl) == fit.end())
      throw std::invalid_argument(std::string("payload ") + to_string(pl) + " does not apply to " + to_string(c));
}

BlackBoxResult run_blackbox(const Target& t, const RunOptions& o, MPI_Comm comm) {
  int me = 0, size = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  const uint64_t p = static_cast<uint64_t>(size);
  const bool rooted = t.coll == Coll::reduce || t.coll == Coll::bcast;
  if (rooted && (o.root < 0 || o.root >= size))
    throw std::invalid_argument("--root " + std::to_string(o.root) + " is not a rank of " + std::to_string(size));
  check_run_options(t.coll, o);
  if (auto why = count_overflow(o.count, p)) throw std::invalid_argument(*why);
  std::vector<Payload> todo = o.payloads.empty() ? payloads_for(t.coll) : o.payloads;
  std::optional<trace::TraceSpec> tspec;
  if (o.trace) {
    tspec = trace_spec(t.coll, p, o.count, o.root);
    todo = {reduces(t.coll) ? Payload::tagged_counters : Payload::source_tagged};
  }

  // An error code is a finding (e.g. an algorithm id the library rejects),
  // not a reason to abort the job.
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  BlackBoxResult out;
  for (Payload pl : todo) {
    RunSpec spec;
    spec.coll = t.coll;
    spec.payload = pl;
    spec.p = p;
    spec.count = o.count;
    spec.root = o.root;
    spec.seed = o.seed;
    spec.dtype = (pl == Payload::one_hot || pl == Payload::source_tagged) ? o.dtype : DType::int64;
    if (auto why = representable(spec)) throw std::invalid_argument(*why);
    const Layout l = layout(t.coll, pl, p, o.count, me);
    Typed ty{base_type(spec.dtype), 1};
    MPI_Op op = MPI_SUM;
    MPI_Datatype derived = MPI_DATATYPE_NULL;
    if (pl == Payload::counters) ty.scale = p;
    if (l.width > 1 && pl != Payload::counters) {  // counters-op, tagged-counters, noncommutative
      MPI_Type_contiguous(static_cast<int>(l.width), MPI_INT64_T, &derived);
      MPI_Type_commit(&derived);
      ty.type = derived;
      if (pl == Payload::noncommutative) MPI_Op_create(&matrix_op, 0 /* not commutative */, &op);
      else if (pl == Payload::ordered) MPI_Op_create(&concat_op, 0 /* not commutative */, &op);
      else if (pl == Payload::power_sums) MPI_Op_create(&power_sums_op, 1, &op);
      else MPI_Op_create(&counters_sum_op, 1, &op);
    }
    PayloadResult res;
    res.payload = pl;
    res.mpi_shape = (t.coll == Coll::reduce_scatter ? std::string("recvcounts of ") + std::to_string(o.count) +
                                                          " elements split over p"
                     : t.coll == Coll::allgatherv || t.coll == Coll::alltoallv
                         ? "v-counts " + std::to_string(o.count) + "..+2 and 0 (runtime/blackbox/payloads.hpp)"
                                                    : "count " + std::to_string(o.count * ty.scale)) +
                    " x " +
                    (pl == Payload::noncommutative ? "MPI_Type_contiguous(4, MPI_INT64_T)"
                     : pl == Payload::ordered ? "MPI_Type_contiguous(" + std::to_string(l.width) + ", MPI_INT64_T)"
                     : derived != MPI_DATATYPE_NULL ? "MPI_Type_contiguous(" + std::to_string(l.width) + ", MPI_INT64_T)"
                                                   : type_name(spec.dtype)) +
                    (!reduces(t.coll)                  ? ""
                     : pl == Payload::noncommutative ? ", user-defined non-commutative op"
                     : pl == Payload::ordered        ? ", user-defined concatenation (non-commutative)"
                     : pl == Payload::power_sums     ? ", user-defined commutative sum mod 2^53 - 111"
                     : derived != MPI_DATATYPE_NULL  ? ", user-defined commutative sum"
                                                     : ", MPI_SUM") +
                    (o.in_place ? ", MPI_IN_PLACE" : "");
    const auto t0 = std::chrono::steady_clock::now();
    for (int run = 0; run < runs(pl, p) && !res.defect && !res.refusal; ++run) {
      spec.run = run;
      const std::vector<double> sv = send_values(spec, me);
      // the receive buffer: the sentinel; in place, the input where MPI reads it
      const uint64_t recv_values = (t.coll == Coll::reduce_scatter_block && o.in_place ? p * o.count
                                    : t.coll == Coll::reduce_scatter && o.in_place ? o.count
                                                                                     : l.recv) * l.width;
      std::vector<double> rv(recv_values, integral(spec.dtype) ? kSentinel : std::nan(""));
      if (t.coll == Coll::bcast) rv = sv;
      const bool in_place_here = o.in_place && (t.coll != Coll::reduce || me == o.root);
      if (in_place_here) {
        if (t.coll == Coll::allgather)
          std::copy(sv.begin(), sv.end(), rv.begin() + static_cast<std::ptrdiff_t>(static_cast<uint64_t>(me) * o.count * l.width));
        else if (t.coll == Coll::allgatherv)
          std::copy(sv.begin(), sv.end(), rv.begin() + l.displs[static_cast<size_t>(me)]);
        else
          std::copy(sv.begin(), sv.end(), rv.begin());
      }
      const std::vector<unsigned char> packed_send = pack(sv, spec.dtype);
      GuardedBuffer sbuf(packed_send), rbuf(pack(rv, spec.dtype));
      Layout scaled = l;  // MPI counts: counters make every logical element p MPI elements
      for (int& c : scaled.recvcounts) c *= static_cast<int>(ty.scale);
      int count = static_cast<int>(o.count * ty.scale);
      const std::string what = t.name + " (" + to_string(pl) + (pl == Payload::one_hot ? " run " + std::to_string(run) : "") + ")";
      const std::string guarded = what + o.comm_words;  // the crash and hang lines name the communicator
      int rc = MPI_SUCCESS;
      std::optional<std::string> defect, refusal;
      {
        set_crash_line(" crashed in " + guarded);
        arm_watchdog(guarded, o.timeout_seconds, PhaseKind::call);
        if (tspec) trace::start_recording(comm, ty.type, l.width);
        try {
          rc = call(t, in_place_here ? MPI_IN_PLACE : sbuf.data(), rbuf.data(), count, scaled, ty.type, op, o.root,
                    comm);
        } catch (const std::exception& e) {
          end_job_after_exception(typeid(e).name(), e.what());
        } catch (...) {
          end_job_after_exception("an exception of unknown type", "no message");
        }
        const std::vector<trace::Event> events = tspec ? trace::stop_recording() : std::vector<trace::Event>{};
        set_crash_line(": the heap was corrupted during " + guarded + ": glibc's heap check aborted after the call returned");
        heap_probe();
        set_crash_line(" crashed in collcheck-mpi's checks after " + guarded + " returned (" + kVoidedVerdicts + ")");
        call_returned();
        const std::string at = "rank " + std::to_string(me) + ": " + what;
        if (size_t before = rbuf.written_before()) {
          defect = at + " wrote outside its receive buffer, " + std::to_string(before) + " bytes before its start";
        } else if (size_t sent_before = sbuf.written_before()) {
          defect = at + " wrote outside its send buffer, " + std::to_string(sent_before) + " bytes before its start";
        } else if (!in_place_here && std::memcmp(sbuf.data(), packed_send.data(), packed_send.size()) != 0) {
          defect = at + " wrote into its send buffer (const in MPI): the input changed";
        } else if (rc != MPI_SUCCESS) {
          refusal = at + " returned error code " + std::to_string(rc) + " (" + error_text(rc) + ")";
        } else {
          std::vector<double> got = unpack(rbuf.data(), l.recv * l.width, spec.dtype);
          defect = judge(spec, me, got);
        }
        {  // one message per rank: its defect ("D...") or its refusal ("R..."), or nothing
          std::vector<std::pair<int, std::string>> defects, refusals;
          for (auto& [r, text] : gather_texts(defect ? "D" + *defect : refusal ? "R" + *refusal : "", comm))
            (text[0] == 'D' ? defects : refusals).emplace_back(r, text.substr(1));
          res.defect = first_defect(defects, size, &res.other_ranks);
          res.refusal = first_defect(refusals, size);
        }
        if (tspec) {  // every rank's messages and result, analyzed at rank 0
          trace::Result mine;
          if (rc == MPI_SUCCESS && !(t.coll == Coll::reduce && me != o.root)) {
            const std::vector<double> got = unpack(rbuf.data(), l.recv * l.width, spec.dtype);
            for (uint64_t i = 0; i < l.recv; ++i)
              mine.blocks.push_back(static_cast<Block>(reduces(t.coll) ? reduced_index(spec, me, i) : i));
            for (double v : got) mine.data.push_back(static_cast<int64_t>(v));
          }
          trace::TraceReport tr = trace::collect_and_analyze(*tspec, events, mine, comm);
          if (me == 0) res.trace = std::move(tr);
        }
        // every rank stops at the same run
        const int any = share_from_root(me == 0 && (res.defect || res.refusal) ? 1 : 0, comm);
        if (any && me != 0) res.defect = "see rank 0";  // rank 0 reports (a defect or a refusal)
      }
      after_call(guarded, o.timeout_seconds);
      res.runs = run + 1;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (derived != MPI_DATATYPE_NULL) {
      MPI_Op_free(&op);
      MPI_Type_free(&derived);
    }
    out.payloads.push_back(std::move(res));
  }
  confirm_checks(t.name + o.comm_words, o.timeout_seconds, comm);
  return out;
}

}  // namespace collcheck::runtime::blackbox
