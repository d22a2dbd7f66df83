#pragma once
// The results store (docs/results-store.md): a SQLite
// database that keeps every finished instance of `collcheck verify --db FILE`
// as it finishes, so that a sweep killed at any moment (SIGKILL included)
// loses at most the instances in flight, `--resume` skips what is recorded,
// and `collcheck report --db FILE` renders any stored sweep.
//
// Names: an *instance key* is (algorithm, variant, p, params label); the
// *config* is the canonical text of the check options that change what a
// check reports (selected properties, exactness, exact_max_p, memory budget,
// seed), see check_config(). A stored result is reused only for the same key
// and config. A *sweep* is one `verify --db` invocation: its command line,
// options and the ordered list of its instances (recorded by it or reused).
//
// Guarantees: WAL journal, synchronous=NORMAL, one transaction per finished
// instance: a crashed or killed process never corrupts the file and every
// committed instance survives it (a power loss may roll back the last few
// commits, never corrupt). Opening validates before it writes anything: a
// file that is not SQLite, a corrupt or truncated one, another application's
// database, another schema or tool version (the tables and columns this
// version uses, meta.schema_version and PRAGMA user_version are all checked;
// every row is decoded as reading it back would, so a corrupt row is found
// before `--resume` writes its sweep row; the schema's objects are exactly
// this version's, no trigger among them, and every column of every row is
// within its domain),
// a read-only or locked file is bad input (InputError, exit 2) and the file
// is left byte-for-byte as it was. Reading (report) creates no file beside
// the store: a store without a pending write-ahead log is opened immutable.
#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "reports/report.hpp"

struct sqlite3;

namespace collcheck {

struct InstanceKey {
  std::string algorithm;
  std::string variant;
  uint64_t p = 0;
  std::string params;  // InstanceParams::label()
  static InstanceKey of(const InstanceResult& r) { return {r.algorithm, r.variant, r.p, r.params}; }
};

// The options that change what a check of one instance reports, as one
// canonical line, e.g.
// "properties=all; exactness=auto; exact_max_p=1024; memory_budget=4294967296; seed=24301; symmetry=on".
std::string check_config(const CheckOptions& o);

// The report's mode text for these options (as run_sweep writes it).
std::string sweep_mode_text(const CheckOptions& o);

struct SweepInfo {
  int64_t id = 0;
  std::string command;
  std::string tool_version;
  std::string config;
  std::string mode;
  uint64_t seed = 0;
  int threads = 0;
  uint64_t planned = 0;   // instances in the request
  uint64_t recorded = 0;  // instances of this sweep in the store (run or reused)
  std::string started;    // UTC, ISO 8601
  std::optional<std::string> finished;  // nullopt: interrupted (or still running)
  double seconds = 0;
  std::vector<std::string> notes;  // the report's notes (stored when the sweep finishes)
};

class ResultsStore {
 public:
  enum class Access { read_only, read_write };
  // PRAGMA user_version. Version 2: the instances table keeps one row per
  // (key, config, sweep that checked it). Version 3: verdicts.cx_root, the
  // counterexample's root cause (reports/root_cause_json.hpp). Version 1
  // stores (one row per key and config, overwritten by later sweeps) and
  // version 2 stores (no root causes) are read as they are and migrated to
  // version 3 when opened for writing; an older collcheck then refuses the
  // migrated store (another schema version) instead of failing at its first
  // record.
  static constexpr int kSchemaVersion = 3;
  static constexpr int32_t kApplicationId = 0x43434b31;    // PRAGMA application_id, "CCK1"

  // Opens `path`; read_write creates it when missing. `tool_version` is the
  // version this process writes and accepts (COLLCHECK_VERSION; tests pass
  // others). `busy_timeout_ms` bounds the wait for another process's lock
  // while opening and starting a sweep; recording waits longer (30 s).
  ResultsStore(const std::string& path, Access access, const std::string& tool_version,
               int busy_timeout_ms = 1000);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::string& path() const { return path_; }

  // Starts a sweep (one row in `sweeps`); later reuse()/record() calls add
  // instances to it. Throws InputError if the store is locked.
  int64_t begin_sweep(const std::string& command, const std::string& config, const std::string& mode, uint64_t seed,
                      int threads, uint64_t planned);
  // Marks the current sweep finished: timestamp, the report's seconds and notes.
  void finish_sweep(const Report& r);

  // Whether a result for `key` under `config` is stored.
  bool has(const InstanceKey& key, const std::string& config);
  // The latest stored result for `key` under `config`, or nullopt.
  std::optional<InstanceResult> lookup(const InstanceKey& key, const std::string& config);
  // lookup() under the current sweep's config; on a hit the stored instance
  // becomes the current sweep's instance number `ord`.
  std::optional<InstanceResult> reuse(size_t ord, const InstanceResult& header);
  // Records a finished instance as the current sweep's number `ord`, in one
  // transaction, as a new row of this sweep: the rows older sweeps recorded
  // for the same key and config stay as they are (each sweep's report keeps
  // rendering what it found); lookup() and reuse() take the latest.
  void record(size_t ord, const InstanceResult& r);

  std::vector<SweepInfo> sweeps();                  // oldest first
  std::optional<SweepInfo> sweep(int64_t id);
  // The instances of sweep `id`, in the sweep's order (its job order).
  std::vector<InstanceResult> load_sweep(int64_t id);

 private:
  void open_and_validate(Access access, int busy_timeout_ms);
  void check_schema(int64_t schema);
  void check_rows();
  void check_domains();
  void check_registry();
  void check_coverage();
  // Reads opened immutable (read_only, no log beside the store) are checked
  // against the file as it was opened, and redone with locks if a writer
  // changed it meanwhile.
  bool changed_since_open() const;
  template <class F>
  auto read_consistently(F read);
  std::vector<SweepInfo> sweeps_now();
  std::vector<InstanceResult> load_sweep_now(int64_t id);
  void create_schema(int busy_timeout_ms);
  bool has_shared_instance_rows();  // the older instances table (see kSchemaVersion)
  void migrate_shared_instance_rows();
  bool has_root_cause_column();  // schema version 3
  void add_root_cause_column();
  [[noreturn]] void fail(const std::string& what, int rc) const;
  // Runs `sql`; on an error rolls back an open transaction and fails with
  // context + SQLite's message.
  void exec_or_fail(const std::string& sql, const std::string& context);
  int64_t instance_id(const InstanceKey& key, const std::string& config);
  InstanceResult load_instance(int64_t id);

  std::string path_;
  std::string tool_version_;
  sqlite3* db_ = nullptr;
  // What most statements call on an error (Query): fail(what, rc).
  const std::function<void(const std::string&, int)> fail_fn_ = [this](const std::string& what, int rc) {
    fail(what, rc);
  };
  bool immutable_ = false;
  struct stat opened_ {};  // the main file when it was opened immutable
  std::mutex m_;
  int64_t sweep_id_ = 0;
  bool root_causes_ = false;  // verdicts.cx_root exists
  std::string config_;
};

}  // namespace collcheck
