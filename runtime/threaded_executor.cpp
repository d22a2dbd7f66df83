#include "runtime/threaded_executor.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "schedules/int_math.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck::runtime {

std::string mode_string(const ExecOptions& o) {
  std::string s = "threads/";
  s += (o.op == ReduceOp::permutation) ? "permutation" : to_string(o.dtype);
  s += o.in_place ? "/in-place" : "/out-of-place";
  return s;
}

namespace {

// ---- Operators ---------------------------------------------------------------

template <class T>
struct SumOp {
  using Elem = T;
  static constexpr bool ordered = false;
  static Elem input(uint64_t seed, Rank r, uint64_t index) {
    return static_cast<T>(input_integer(seed, r, index));
  }
  static Elem combine(const Elem& a, const Elem& b) { return a + b; }
  static Elem poison() { return static_cast<T>(-77777); }
  static std::string show(const Elem& x) {
    std::ostringstream os;
    os.precision(17);
    os << x;
    return os.str();
  }
};

struct PermOp {
  using Elem = Perm;
  static constexpr bool ordered = true;
  static Elem input(uint64_t seed, Rank r, uint64_t index) { return input_perm(seed, r, index); }
  static Elem combine(const Elem& a, const Elem& b) { return compose(a, b); }
  static Elem poison() { return Perm{7, 7, 7, 7, 7, 7, 7, 7}; }
  static std::string show(const Elem& x) { return to_string(x); }
};

// ---- Block state ------------------------------------------------------------

// empty: never held anything; value: a real value; garbage: derived from data a
// sender sent before it held it; disordered: combined out of rank order.
enum class State : uint8_t { empty, value, garbage, disordered };

struct Meta {
  State st = State::empty;
  int64_t lo = 0, hi = -1;  // ranks combined, in order (permutation operator)
  // For garbage / disordered: the root-cause event (rank, index into that
  // rank's `events`), so a wrong final block names where it went wrong.
  int32_t cause_rank = -1, cause_idx = -1;
};

std::string interval_str(int64_t lo, int64_t hi) {
  if (lo == hi) return "rank " + std::to_string(lo);
  return "ranks " + std::to_string(lo) + ".." + std::to_string(hi);
}

std::string join_ranks(const std::vector<Rank>& v, size_t limit = 12) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < limit; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  if (v.size() > limit) s += ",...";
  return s;
}

using Key = std::pair<int, Rank>;  // (step, src)

template <class Op>
class Engine {
  using Elem = typename Op::Elem;

  struct Message {
    int step = 0;
    Rank src = 0;
    BlockSet blocks;
    Combine combine = Combine::reduce;
    std::vector<Elem> data;  // E elements per block, blocks in increasing order
    std::vector<Meta> meta;  // one per block
  };

  struct Mailbox {
    std::mutex mu;
    std::condition_variable cv;
    std::map<Key, std::deque<Message>> box;
    bool blocked = false;  // waiting for `wait_key`, which is absent
    Key wait_key{-1, 0};
    int step = 0;               // the step the rank is in
    std::vector<Rank> pending;  // sources of this step's receives not yet taken
    bool completed = false;     // ran all its steps
  };

  struct RankData {
    std::vector<Elem> in, out;  // in: only used out-of-place
    std::vector<Meta> meta;
    std::vector<uint8_t> written;
    Verdict v;
    std::vector<std::string> events;  // root causes of garbage / disordered blocks
    uint64_t messages = 0, bytes = 0;
  };

 public:
  Engine(const Schedule& sched, const ExecOptions& opts)
      : sched_(sched),
        spec_(sched.spec()),
        opts_(opts),
        p_(static_cast<Rank>(sched.p())),
        nb_(sched.num_blocks()),
        E_(opts.elems_per_block == 0 ? 1 : opts.elems_per_block),
        S_(sched.num_steps()),
        boxes_(p_),
        data_(p_) {}

  ExecResult run() {
    ExecResult res;
    res.verdict.property = "executor";
    res.verdict.mode = mode_string(opts_);
    res.stats.steps = S_;
    init_buffers();

    auto t0 = std::chrono::steady_clock::now();
    // Every thread started is joined, whatever fails: a thread that cannot
    // be created, or memory running out in a rank or here, stops all ranks
    // and is rethrown (a ResourceRefusal or std::bad_alloc: exit 3, one line),
    // never std::terminate.
    std::exception_ptr error;
    {
      std::vector<std::thread> threads;
      try {
        threads.reserve(p_);
        for (Rank r = 0; r < p_; ++r) {
          try {
            threads.emplace_back([this, r] { run_rank(r); });
          } catch (const std::system_error& e) {
            throw ResourceRefusal("could not create the " + std::to_string(p_) +
                                " threads of the threaded executor (one per rank): " + e.what());
          }
        }
        watchdog();
      } catch (...) {
        error = std::current_exception();
        signal_abort();
      }
      for (auto& t : threads) t.join();
    }
    if (!error) error = rank_error_;
    if (error) std::rethrow_exception(error);
    res.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    for (Rank r = 0; r < p_; ++r) {
      res.verdict.merge(data_[r].v);
      res.stats.messages += data_[r].messages;
      res.stats.bytes += data_[r].bytes;
    }
    res.verdict.property = "executor";
    res.verdict.mode = mode_string(opts_);

    if (abort_) {
      report_deadlock(res);
      // The watchdog only saw no progress for a while (a loaded machine can
      // do that to a correct schedule): that is "unknown", not a violation.
      // Exact deadlock detection stays a violation.
      if (timed_out_) res.verdict.status = Status::unknown;
    } else {
      report_leftovers(res.verdict);
      check_results(res.verdict);
    }
    res.verdict.stats["messages"] = std::to_string(res.stats.messages);
    res.verdict.stats["bytes"] = std::to_string(res.stats.bytes);
    res.verdict.stats["seconds"] = std::to_string(res.stats.seconds);
    res.verdict.stats["steps"] = std::to_string(S_);
    res.verdict.stats["threads"] = std::to_string(p_);
    res.verdict.stats["elements_per_block"] = std::to_string(E_);
    res.verdict.stats["seed"] = std::to_string(opts_.seed);
    return res;
  }

 private:
  // ---- Buffers -------------------------------------------------------------

  // Whose input (r, b) holds at the start (CollectiveSpec::initial_contributor);
  // nullopt: the block is undefined (poison, state empty) until received.
  std::optional<Rank> contributor(Rank r, Block b) const { return spec_.initial_contributor(r, b); }
  uint64_t index(Block b, uint32_t i) const { return uint64_t{b} * E_ + i; }

  void init_buffers() {
    // Every rank holds every block: refused before allocating when that cannot
    // fit the machine (64-bit block counts make it reachable from a file).
    const uint64_t values = sat_mul(sat_mul(p_, nb_), uint64_t{E_} * (opts_.in_place ? 1 : 2));
    const uint64_t bytes = sat_mul(values, sizeof(Elem)), machine = physical_memory();
    if (machine && bytes > machine)
      throw ResourceRefusal("the threaded executor holds every block of every rank: p x nblocks x elements = " +
                            (values == UINT64_MAX ? std::string("more than 2^64") : std::to_string(values)) +
                            " values (" + gib(bytes) + ") exceed this machine's memory (" + gib(machine) + ")");
    for (Rank r = 0; r < p_; ++r) {
      RankData& d = data_[r];
      const size_t n = size_t{nb_} * E_;
      d.out.assign(n, Op::poison());
      d.meta.assign(nb_, Meta{});
      d.written.assign(nb_, opts_.in_place ? 1 : 0);
      std::vector<Elem>& dst = opts_.in_place ? d.out : d.in;
      if (!opts_.in_place) d.in.assign(n, Op::poison());
      for (Block b = 0; b < nb_; ++b) {
        const std::optional<Rank> c = contributor(r, b);
        if (!c) continue;
        for (uint32_t i = 0; i < E_; ++i) dst[size_t{b} * E_ + i] = Op::input(opts_.seed, *c, index(b, i));
        if (opts_.in_place) d.meta[b] = Meta{State::value, *c, *c};
      }
    }
  }

  // The current value of (r, b): out-of-place, a block not yet written is read
  // from the input buffer.
  std::pair<const Elem*, Meta> read(Rank r, Block b) const {
    const RankData& d = data_[r];
    if (!d.written[b]) {
      if (const std::optional<Rank> c = contributor(r, b)) return {&d.in[size_t{b} * E_], Meta{State::value, *c, *c}};
    }
    return {&d.out[size_t{b} * E_], d.meta[b]};
  }

  void write(Rank r, Block b, const Elem* v, Meta m) {
    RankData& d = data_[r];
    std::copy(v, v + E_, d.out.begin() + static_cast<std::ptrdiff_t>(size_t{b} * E_));
    d.meta[b] = m;
    d.written[b] = 1;
  }

  // ---- Rank threads --------------------------------------------------------

  void fail(Rank r, Counterexample cx) {
    cx.p = p_;
    data_[r].v.fail(std::move(cx));
  }

  int32_t event(Rank r, std::string msg) {
    data_[r].events.push_back(std::move(msg));
    return static_cast<int32_t>(data_[r].events.size() - 1);
  }

  // " (first cause: ...)" for a garbage or disordered block.
  std::string cause(const Meta& m) const {
    if (m.cause_rank < 0) return "";
    return " (first cause: " + data_[static_cast<Rank>(m.cause_rank)].events[static_cast<size_t>(m.cause_idx)] + ")";
  }

  // Drops transfers with an out-of-range peer or block, recording each.
  void sanitize(Rank r, int s, std::vector<Transfer>& ts, const char* dir) {
    std::vector<Transfer> ok;
    for (auto& t : ts) {
      if (t.peer >= p_) {
        fail(r, {0, r, s, std::nullopt, t.peer, "peer < " + std::to_string(p_),
                 std::to_string(t.peer),
                 std::string(dir) + " names peer " + std::to_string(t.peer) + ", out of range"});
        continue;
      }
      if (!t.blocks.empty() && t.blocks.ranges().back().hi > nb_) {
        fail(r, {0, r, s, t.blocks.ranges().back().hi - 1, t.peer,
                 "blocks < " + std::to_string(nb_), t.blocks.to_string(),
                 std::string(dir) + " names a block out of range"});
        continue;
      }
      ok.push_back(std::move(t));
    }
    ts = std::move(ok);
  }

  void post(Rank r, int s, const Transfer& t) {
    Message m{s, r, t.blocks, t.combine, {}, {}};
    m.data.reserve(t.blocks.size() * E_);
    t.blocks.for_each([&](Block b) {
      auto [v, meta] = read(r, b);
      m.data.insert(m.data.end(), v, v + E_);
      // Sending a block one does not hold sends uninitialised memory.
      if (meta.st == State::empty) {
        std::string msg = "rank " + std::to_string(r) + " sends block " + std::to_string(b) + " to rank " +
                          std::to_string(t.peer) + " at step " + std::to_string(s) +
                          " before it holds any data for it";
        fail(r, {0, r, s, b, t.peer, "data for block " + std::to_string(b), "nothing", msg});
        meta = Meta{State::garbage, 0, -1, static_cast<int32_t>(r), event(r, msg)};
      }
      m.meta.push_back(meta);
    });
    data_[r].messages++;
    data_[r].bytes += m.data.size() * sizeof(Elem);
    Mailbox& mb = boxes_[t.peer];
    {
      std::lock_guard lk(mb.mu);
      Key key{s, r};
      mb.box[key].push_back(std::move(m));
      if (mb.blocked && mb.wait_key == key) {
        mb.blocked = false;
        --blocked_;
        --inactive_;
      }
    }
    mb.cv.notify_all();
    ++progress_;
  }

  std::optional<Message> wait_message(Rank r, Key key) {
    Mailbox& mb = boxes_[r];
    std::unique_lock lk(mb.mu);
    for (;;) {
      auto it = mb.box.find(key);
      if (it != mb.box.end() && !it->second.empty()) {
        Message m = std::move(it->second.front());
        it->second.pop_front();
        if (it->second.empty()) mb.box.erase(it);
        auto pit = std::find(mb.pending.begin(), mb.pending.end(), key.second);
        if (pit != mb.pending.end()) mb.pending.erase(pit);
        ++progress_;
        return m;
      }
      if (abort_) return std::nullopt;
      if (!mb.blocked) {
        mb.blocked = true;
        mb.wait_key = key;
        ++blocked_;
        if (++inactive_ == static_cast<int>(p_)) {
          lk.unlock();
          on_all_inactive();
          lk.lock();
          continue;
        }
      }
      mb.cv.wait_for(lk, std::chrono::milliseconds(50));
    }
  }

  // Every rank is finished or blocked on an absent message: nothing can change.
  void on_all_inactive() {
    if (blocked_ > 0) {
      signal_abort();
    }
    wd_cv_.notify_all();
  }

  void signal_abort() {
    abort_ = true;
    for (auto& mb : boxes_) {
      { std::lock_guard lk(mb.mu); }
      mb.cv.notify_all();
    }
    { std::lock_guard lk(wd_mu_); }
    wd_cv_.notify_all();
  }

  void finish(Rank r, bool completed) {
    {
      std::lock_guard lk(boxes_[r].mu);
      boxes_[r].completed = completed;
    }
    if (completed && ++inactive_ == static_cast<int>(p_)) on_all_inactive();
    {
      std::lock_guard lk(wd_mu_);
      ++finished_threads_;
    }
    wd_cv_.notify_all();
  }

  // Out of memory in a rank thread: kept for run() to rethrow, every rank stopped.
  void stop_all(Rank r, std::exception_ptr e) {
    {
      std::lock_guard lk(wd_mu_);
      if (!rank_error_) rank_error_ = std::move(e);
    }
    signal_abort();
    finish(r, false);
  }

  void run_rank(Rank r) {
    RankStep rs;
    try {
      for (int s = 0; s < S_; ++s) {
        if (abort_) return finish(r, false);
        sched_.rank_step(r, s, rs);
        sanitize(r, s, rs.sends, "send");
        sanitize(r, s, rs.recvs, "recv");
        {
          std::lock_guard lk(boxes_[r].mu);
          boxes_[r].step = s;
          boxes_[r].pending.clear();
          for (auto& t : rs.recvs) boxes_[r].pending.push_back(t.peer);
        }
        for (const auto& t : rs.sends) post(r, s, t);
        std::vector<Message> got;
        got.reserve(rs.recvs.size());
        for (const auto& t : rs.recvs) {
          auto m = wait_message(r, {s, t.peer});
          if (!m) return finish(r, false);
          got.push_back(std::move(*m));
        }
        apply(r, s, rs.recvs, got);
        ++progress_;
      }
    } catch (const std::bad_alloc&) {
      return stop_all(r, std::current_exception());
    } catch (const std::exception& e) {
      try {
        fail(r, {0, r, std::nullopt, std::nullopt, std::nullopt, "", "",
                 std::string("rank program threw: ") + e.what()});
      } catch (...) {
        return stop_all(r, std::current_exception());
      }
    }
    finish(r, true);
  }

  // ---- Applying one step's receives ----------------------------------------

  struct Frag {
    const Elem* v;
    Meta m;
    Rank src;
  };
  struct Stage {
    bool copied = false;
    Frag base{nullptr, {}, 0};
    std::vector<Frag> reduces;
  };

  void apply(Rank r, int s, const std::vector<Transfer>& recvs, const std::vector<Message>& got) {
    std::map<Block, Stage> stage;
    for (size_t k = 0; k < recvs.size(); ++k) {
      const Transfer& t = recvs[k];
      const Message& m = got[k];
      if (!(m.blocks == t.blocks) || m.combine != t.combine) {
        fail(r, {0, r, s, std::nullopt, t.peer,
                 t.blocks.to_string() + " " + to_string(t.combine),
                 m.blocks.to_string() + " " + to_string(m.combine),
                 "rank " + std::to_string(r) + " expects " + t.blocks.to_string() + " (" +
                     to_string(t.combine) + ") from rank " + std::to_string(t.peer) + " at step " +
                     std::to_string(s) + " but the message carries " + m.blocks.to_string() + " (" +
                     to_string(m.combine) + ")"});
      }
      size_t pos = 0;
      m.blocks.for_each([&](Block b) {
        const size_t at = pos++;
        if (!t.blocks.contains(b)) return;
        Frag f{&m.data[at * E_], m.meta[at], m.src};
        Stage& st = stage[b];
        if (t.combine == Combine::copy) {
          st.copied = true;
          st.base = f;
          st.reduces.clear();
        } else {
          st.reduces.push_back(f);
        }
      });
    }

    std::vector<Elem> acc(E_);
    for (auto& [b, st] : stage) {
      Frag base = st.base;
      if (!st.copied) {
        auto [v, m] = read(r, b);
        base = Frag{v, m, r};
        // Reducing into a block the rank does not hold combines with an
        // undefined buffer (an MPI run would add garbage): report it, and the
        // result is garbage.
        if (m.st == State::empty && !st.reduces.empty()) {
          const Rank from = st.reduces.front().src;
          std::string msg = "rank " + std::to_string(r) + " reduces block " + std::to_string(b) + " from rank " +
                            std::to_string(from) + " at step " + std::to_string(s) +
                            " into its own copy, but it does not hold the block (undefined buffer)";
          fail(r, {0, r, s, b, from, "data for block " + std::to_string(b), "nothing", msg});
          base.m = Meta{State::garbage, 0, -1, static_cast<int32_t>(r), event(r, msg)};
        }
      }
      if (st.reduces.empty()) {
        std::copy(base.v, base.v + E_, acc.begin());
        write(r, b, acc.data(), base.m);
        continue;
      }
      std::vector<Frag> parts;
      parts.push_back(base);
      parts.insert(parts.end(), st.reduces.begin(), st.reduces.end());
      Meta out = combine_meta(r, s, b, parts);
      // Values: combine the non-empty parts (in rank order for the ordered op).
      bool first = true;
      for (const Frag& f : parts) {
        if (f.m.st == State::empty) continue;
        for (uint32_t i = 0; i < E_; ++i) acc[i] = first ? f.v[i] : Op::combine(acc[i], f.v[i]);
        first = false;
      }
      if (first) std::copy(base.v, base.v + E_, acc.begin());
      write(r, b, acc.data(), out);
    }
  }

  // The state of a reduction of `parts` (sorted by rank interval in place for
  // the ordered operator); records order violations.
  Meta combine_meta(Rank r, int s, Block b, std::vector<Frag>& parts) {
    const Meta* garbage = nullptr;
    const Meta* disordered = nullptr;
    std::vector<Frag> vals;
    for (const Frag& f : parts) {
      if (f.m.st == State::garbage && !garbage) garbage = &f.m;
      if (f.m.st == State::disordered && !disordered) disordered = &f.m;
      if (f.m.st == State::value) vals.push_back(f);
    }
    if (garbage) return *garbage;
    if (disordered) return *disordered;
    if (vals.empty()) return Meta{State::empty};
    if constexpr (Op::ordered) {
      std::stable_sort(parts.begin(), parts.end(), [](const Frag& a, const Frag& c) {
        // empty parts first (they are skipped), then by interval start
        if ((a.m.st == State::empty) != (c.m.st == State::empty)) return a.m.st == State::empty;
        return a.m.lo < c.m.lo;
      });
      std::stable_sort(vals.begin(), vals.end(),
                       [](const Frag& a, const Frag& c) { return a.m.lo < c.m.lo; });
      for (size_t k = 1; k < vals.size(); ++k) {
        const Meta& x = vals[k - 1].m;
        const Meta& y = vals[k].m;
        if (y.lo == x.hi + 1) continue;
        std::string why;
        if (y.lo <= x.hi)
          why = "they overlap: a contribution would be counted twice";
        else if ((y.hi + 1) % p_ == x.lo)
          why = "they are adjacent only around the ring (rank " + std::to_string(p_ - 1) +
                " -> 0), so the result would be a rotation of x_0*...*x_" + std::to_string(p_ - 1);
        else
          why = "there is a gap between them";
        Rank peer = vals[k].src != r ? vals[k].src : vals[k - 1].src;
        std::string msg = "order not preserved: rank " + std::to_string(r) + " must combine " +
                          interval_str(x.lo, x.hi) + " with " + interval_str(y.lo, y.hi) + " (from rank " +
                          std::to_string(peer) + ") at step " + std::to_string(s) + " for block " +
                          std::to_string(b) + ", but " + why;
        fail(r, {0, r, s, b, peer, interval_str(x.lo, x.hi) + " then " + interval_str(x.hi + 1, y.hi),
                 interval_str(x.lo, x.hi) + " and " + interval_str(y.lo, y.hi), msg});
        return Meta{State::disordered, 0, -1, static_cast<int32_t>(r), event(r, msg)};
      }
      return Meta{State::value, vals.front().m.lo, vals.back().m.hi};
    } else {
      (void)r, (void)s, (void)b;
      return Meta{State::value, vals.front().m.lo, vals.back().m.hi};
    }
  }

  // ---- Watchdog and reports ------------------------------------------------

  void watchdog() {
    uint64_t last = progress_.load();
    auto t_last = std::chrono::steady_clock::now();
    std::unique_lock lk(wd_mu_);
    while (finished_threads_ < p_) {
      wd_cv_.wait_for(lk, std::chrono::milliseconds(20));
      if (abort_) return;
      auto now = std::chrono::steady_clock::now();
      uint64_t cur = progress_.load();
      if (cur != last) {
        last = cur;
        t_last = now;
      } else if (now - t_last > opts_.deadlock_timeout && finished_threads_ < p_) {
        timed_out_ = true;
        lk.unlock();
        signal_abort();
        return;
      }
    }
  }

  void report_deadlock(ExecResult& res) {
    res.deadlock = true;
    res.timed_out = timed_out_;
    for (Rank r = 0; r < p_; ++r) {
      Mailbox& mb = boxes_[r];
      if (mb.completed) continue;
      StuckRank sr{r, mb.step, {}};
      for (Rank q : mb.pending) {
        auto it = mb.box.find({mb.step, q});
        if (it == mb.box.end() || it->second.empty()) sr.waiting_for.push_back(q);
      }
      res.stuck.push_back(std::move(sr));
    }
    std::vector<Rank> ranks;
    for (auto& sr : res.stuck) ranks.push_back(sr.rank);
    const std::string what = timed_out_ ? "no progress for " + std::to_string(opts_.deadlock_timeout.count()) + " ms"
                                         : "deadlock";
    for (auto& sr : res.stuck) {
      Counterexample cx;
      cx.p = p_;
      cx.rank = sr.rank;
      cx.step = sr.step;
      if (!sr.waiting_for.empty()) cx.peer = sr.waiting_for.front();
      cx.expected = sr.waiting_for.empty() ? "progress"
                                           : "a message from rank " + join_ranks(sr.waiting_for) +
                                                 " at step " + std::to_string(sr.step);
      cx.actual = timed_out_ ? "none within the timeout" : "none: no rank can send it any more";
      cx.message = what + ": rank " + std::to_string(sr.rank) + " is stuck at step " +
                   std::to_string(sr.step) +
                   (sr.waiting_for.empty() ? std::string()
                                           : " waiting for rank " + join_ranks(sr.waiting_for)) +
                   " (stuck ranks: " + join_ranks(ranks) + ")";
      res.verdict.fail(std::move(cx));
    }
    if (res.stuck.empty())  // cannot happen, but never report a deadlock without a counterexample
      res.verdict.fail({p_, std::nullopt, std::nullopt, std::nullopt, std::nullopt, "", "", what});
  }

  void report_leftovers(Verdict& v) {
    for (Rank r = 0; r < p_; ++r)
      for (auto& [key, q] : boxes_[r].box)
        for (auto& m : q)
          v.fail({p_, r, key.first, std::nullopt, key.second, "a recv from rank " + std::to_string(key.second),
                  "none",
                  "rank " + std::to_string(key.second) + " sends " + m.blocks.to_string() + " to rank " +
                      std::to_string(r) + " at step " + std::to_string(key.first) +
                      " but rank " + std::to_string(r) + " never receives it"});
  }

  // Results are judged after the last step, and reported there (as the
  // postcondition does), so that in-flight findings of earlier steps come
  // first (Counterexample's order).
  int last_step() const { return std::max(0, S_ - 1); }

  void check_results(Verdict& v) {
    // Expected full reductions, per block, in rank order.
    std::vector<std::vector<Elem>> full(nb_);
    std::vector<std::pair<int64_t, int64_t>> span(nb_, {0, -1});
    std::vector<std::vector<Rank>> contributors(nb_);
    for (Block b = 0; b < nb_; ++b) {
      for (Rank r = 0; r < p_; ++r) {
        const std::optional<Rank> c = contributor(r, b);
        if (!c) continue;
        const Rank q = *c;
        contributors[b].push_back(q);
        if (full[b].empty()) {
          full[b].resize(E_);
          for (uint32_t i = 0; i < E_; ++i) full[b][i] = Op::input(opts_.seed, q, index(b, i));
          span[b] = {q, q};
        } else {
          for (uint32_t i = 0; i < E_; ++i)
            full[b][i] = Op::combine(full[b][i], Op::input(opts_.seed, q, index(b, i)));
          span[b].second = q;
        }
      }
    }
    std::vector<Elem> expect(E_);
    for (Rank r = 0; r < p_; ++r) {
      for (Block b = 0; b < nb_; ++b) {
        Requirement req = spec_.required(r, b);
        if (req.kind == Requirement::Kind::none) continue;
        ++v.checks;
        int64_t lo, hi;
        if (req.kind == Requirement::Kind::all_ranks) {
          if (full[b].empty()) continue;  // nobody contributes: nothing to compare
          expect = full[b];
          lo = span[b].first;
          hi = span[b].second;
        } else {
          for (uint32_t i = 0; i < E_; ++i) expect[i] = Op::input(opts_.seed, req.origin, index(b, i));
          lo = hi = req.origin;
        }
        auto [act, m] = read(r, b);
        auto where = "rank " + std::to_string(r) + " block " + std::to_string(b);
        std::string exp_desc = req.kind == Requirement::Kind::all_ranks
                                   ? "the reduction of " + interval_str(lo, hi)
                                   : "rank " + std::to_string(req.origin) + "'s input";
        if (m.st == State::empty) {
          v.fail({p_, r, last_step(), b, std::nullopt, exp_desc, "nothing",
                  where + " never received " + exp_desc});
          continue;
        }
        if (m.st == State::garbage) {
          v.fail({p_, r, last_step(), b, std::nullopt, exp_desc, "uninitialised data",
                  where + " holds data a sender sent before it held it (uninitialised memory)" + cause(m)});
          continue;
        }
        if (m.st == State::disordered) {
          v.fail({p_, r, last_step(), b, std::nullopt, exp_desc + " in rank order", "out of order",
                  where + " holds contributions combined out of rank order" + cause(m)});
          continue;
        }
        if constexpr (Op::ordered) {
          if (m.lo != lo || m.hi != hi) {
            v.fail({p_, r, last_step(), b, std::nullopt, interval_str(lo, hi), interval_str(m.lo, m.hi),
                    where + " holds the product of " + interval_str(m.lo, m.hi) + ", expected " +
                        interval_str(lo, hi)});
            continue;
          }
        }
        for (uint32_t i = 0; i < E_; ++i) {
          if (act[i] == expect[i]) continue;
          std::string msg = where + " element " + std::to_string(i) + " (index " +
                            std::to_string(index(b, i)) + "): expected " + Op::show(expect[i]) +
                            ", got " + Op::show(act[i]);
          if constexpr (!Op::ordered) msg += diagnose(b, act, expect.data(), contributors[b]);
          v.fail({p_, r, last_step(), b, std::nullopt, Op::show(expect[i]), Op::show(act[i]), msg});
          break;
        }
      }
    }
  }

  // For sums: whether the difference is exactly one rank's input, missing or
  // counted twice.
  std::string diagnose(Block b, const Elem* act, const Elem* expect, const std::vector<Rank>& contrib) {
    for (Rank q : contrib) {
      bool missing = true, doubled = true;
      for (uint32_t i = 0; i < E_; ++i) {
        Elem x = Op::input(opts_.seed, q, index(b, i));
        if (!(act[i] + x == expect[i])) missing = false;
        if (!(act[i] == expect[i] + x)) doubled = false;
      }
      if (missing) return " (rank " + std::to_string(q) + "'s contribution is missing)";
      if (doubled) return " (rank " + std::to_string(q) + "'s contribution is counted twice)";
    }
    return "";
  }

  const Schedule& sched_;
  const CollectiveSpec spec_;
  const ExecOptions opts_;
  const Rank p_;
  const uint64_t nb_;
  const uint32_t E_;
  const int S_;
  std::vector<Mailbox> boxes_;
  std::vector<RankData> data_;

  std::atomic<int> inactive_{0};  // finished ranks + ranks blocked on an absent message
  std::atomic<int> blocked_{0};
  std::atomic<bool> abort_{false};
  std::atomic<uint64_t> progress_{0};
  bool timed_out_ = false;
  std::mutex wd_mu_;
  std::condition_variable wd_cv_;
  Rank finished_threads_ = 0;  // guarded by wd_mu_
  std::exception_ptr rank_error_;  // guarded by wd_mu_; read after every thread is joined
};

}  // namespace

ExecResult execute_threads(const Schedule& sched, const ExecOptions& opts) {
  if (opts.op == ReduceOp::permutation) return Engine<PermOp>(sched, opts).run();
  switch (opts.dtype) {
    case DType::int64: return Engine<SumOp<int64_t>>(sched, opts).run();
    case DType::float32: return Engine<SumOp<float>>(sched, opts).run();
    case DType::float64: return Engine<SumOp<double>>(sched, opts).run();
    case DType::int32: return Engine<SumOp<int32_t>>(sched, opts).run();
  }
  return Engine<SumOp<int64_t>>(sched, opts).run();
}

}  // namespace collcheck::runtime
