// The results store: schema, validation on open, one transaction per
// recorded instance, and reading sweeps back (see results_store.hpp and
// docs/results-store.md).
#include "checker/sweep/results_store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>
#include <thread>
#include <nlohmann/json.hpp>

#include "checker/cli/p_range.hpp"
#include "properties/catalog.hpp"
#include "reports/root_cause_json.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

std::string check_config(const CheckOptions& o) {
  std::string props;
  for (const std::string& p : o.properties) props += (props.empty() ? "" : ",") + p;
  return "properties=" + (props.empty() ? std::string("all") : props) + "; exactness=" + to_string(o.exactness) +
         "; exact_max_p=" + std::to_string(o.exact_max_p) + "; memory_budget=" + std::to_string(o.memory_budget) +
         "; seed=" + std::to_string(o.seed) + "; symmetry=" + (o.use_symmetry ? "on" : "off") +
         // --state auto (the verdicts of both bookkeepings are equal) keeps
         // the key of stores written before --state existed.
         (o.bookkeeping == Bookkeeping::automatic ? std::string() : "; state=" + std::string(to_string(o.bookkeeping))) +
         "; max_memory=" + std::to_string(o.max_memory) +  // a memory-guard refusal depends on it
         // A re-check can replace a quotient's verdicts (if they disagree);
         // the default keeps the key of stores written before the option.
         (o.recheck_max_p == CheckOptions{}.recheck_max_p ? std::string()
                                                          : "; recheck_max_p=" + std::to_string(o.recheck_max_p));
}

std::string sweep_mode_text(const CheckOptions& o) {
  std::string m = to_string(o.exactness);
  if (o.exactness == Exactness::automatic) m += " (exact for p <= " + std::to_string(o.exact_max_p) + ", fingerprint above)";
  return m;
}

namespace {

constexpr int kRecordBusyMs = 30000;

// PRAGMA journal_mode = WAL on a store still in rollback mode (a new file)
// takes the database's exclusive lock without calling SQLite's busy
// handler: while another process that opened the same new file reads it,
// the pragma fails at once with SQLITE_BUSY. Two sweeps started at once on
// a new --db hit this about once in six tries on two loaded cores (one of
// them failed with "locked ... gave up waiting" after no wait at all). The
// pragma is retried here, with short sleeps, until `budget_ms` (the same
// wait the busy handler grants every other statement) is spent. Returns
// SQLite's code; `mode` is the journal mode the pragma reports.
int enter_wal(sqlite3* db, int budget_ms, std::string& mode) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms);
  for (;;) {
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &st, nullptr);
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(st);
      if (rc == SQLITE_ROW) {
        const unsigned char* t = sqlite3_column_text(st, 0);
        mode = t ? reinterpret_cast<const char*>(t) : "";
        rc = SQLITE_OK;
      }
    }
    sqlite3_finalize(st);
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// What SQLite makes of the file `path`-journal when it opens `path`
// (pager.c: hasHotJournal, readJournalHdr): none there; ignored (empty, or
// its first byte zero: a finished transaction's); hot, a rollback journal
// of a write that did not finish, which an open that may write rolls back
// and a read-only one cannot (SQLITE_READONLY, "attempt to write a readonly
// database", whatever the file holds); or foreign: hot to SQLite all the
// same, but without the journal header SQLite writes, so not SQLite's (a
// writing open would find no record in it and delete it).
enum class Journal { none, ignored, hot, foreign };
Journal journal_beside(const std::string& path) {
  std::ifstream f(path + "-journal", std::ios::binary);
  if (!f) return Journal::none;
  char head[8] = {};
  f.read(head, sizeof head);
  const std::streamsize n = f.gcount();
  if (n == 0 || head[0] == 0) return Journal::ignored;
  static const unsigned char kMagic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  return n == 8 && std::memcmp(head, kMagic, sizeof kMagic) == 0 ? Journal::hot : Journal::foreign;
}

// A journal beside the store that stops SQLite from reading it (every
// journal but an ignored one for a read-only open; a foreign one always: it
// is not SQLite's to delete): InputError naming it, before SQLite sees it.
void refuse_journal(const std::string& path, bool read_only) {
  const std::string f = "'" + path + "'", j = "'" + path + "-journal'";
  switch (journal_beside(path)) {
    case Journal::none:
    case Journal::ignored: return;
    case Journal::foreign:
      throw InputError("results store " + f + ": the file " + j + " beside it is not a SQLite journal (no journal "
                       "header), but SQLite takes any such file for the journal of an unfinished write: move it away; "
                       "nothing was written");
    case Journal::hot:
      if (!read_only) return;  // SQLite rolls it back as it opens the store
      throw InputError("results store " + f + " has a hot journal " + j + " (a write that did not finish), which " +
                       "reading cannot roll back (a writing open does: verify ... --db " + path + "); nothing was written");
  }
}

// Whether another connection may have `path` open or content of it may be
// outside its main file: a write-ahead log (every connection to a WAL store
// keeps one; the last to close removes it) or a journal SQLite would roll
// back (one it ignores leaves the main file complete).
bool log_beside(const std::string& path) {
  std::error_code ec;
  const Journal j = journal_beside(path);
  return std::filesystem::exists(path + "-wal", ec) || j == Journal::hot || j == Journal::foreign;
}

// The instance options of a params label (InstanceParams::label(): "n=3
// root=1", "r=5", "dims=4x2"), or nullopt unless label() gives it back.
std::optional<InstanceParams> params_of(uint64_t p, const std::string& label) {
  InstanceParams ip;
  ip.p = p;
  const auto number = [](const std::string& s, uint64_t max) -> std::optional<uint64_t> {
    if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const uint64_t v = std::stoull(s);
    return v <= max ? std::optional<uint64_t>(v) : std::nullopt;
  };
  for (size_t at = 0; at < label.size();) {
    const size_t end = std::min(label.find(' ', at), label.size());
    const std::string token = label.substr(at, end - at), key = token.substr(0, token.find('='));
    const std::string value = token.find('=') == std::string::npos ? "" : token.substr(token.find('=') + 1);
    at = end + 1;
    if (key == "dims") {
      for (size_t d = 0; d <= value.size();) {
        const size_t x = std::min(value.find('x', d), value.size());
        const auto side = number(value.substr(d, x - d), UINT32_MAX);
        if (!side) return std::nullopt;
        ip.dims.push_back(static_cast<uint32_t>(*side));
        d = x + 1;
      }
      continue;
    }
    const auto v = number(value, UINT32_MAX);
    if (!v) return std::nullopt;
    if (key == "n") ip.blocks = static_cast<uint32_t>(*v);
    else if (key == "root") ip.root = static_cast<Rank>(*v);
    else if (key == "r") ip.radix = static_cast<uint32_t>(*v);
    else if (key == "r2") ip.radix2 = static_cast<uint32_t>(*v);
    else if (key == "Q") ip.ppn = static_cast<uint32_t>(*v);
    else return std::nullopt;
  }
  if (ip.label() != label) return std::nullopt;
  return ip;
}

// "file:PATH?immutable=1", PATH escaped for SQLite's URI syntax.
std::string immutable_uri(const std::string& path) {
  std::string out = path.rfind('/', 0) == 0 ? "file://" : "file:";  // absolute: an empty authority
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "?immutable=1";
}

// One row per (algorithm, variant, instance, property), for ad-hoc queries.
constexpr const char* kResultsView =
    "CREATE VIEW results AS SELECT i.algorithm, i.variant, i.p, i.params, v.property, v.status, v.checks,"
    " v.violations, v.mode, v.stats, v.cx_p, v.cx_rank, v.cx_step, v.cx_block, v.cx_peer, v.cx_expected,"
    " v.cx_actual, v.cx_message, v.cx_root, i.config, i.tool_version, i.recorded, i.sweep_id"
    " FROM verdicts v JOIN instances i ON i.id = v.instance_id";

// The instances table: one row per (instance key, config, sweep that checked
// it), so every sweep keeps what it found (schema version 2).
constexpr const char* kInstancesColumns =
    " id INTEGER PRIMARY KEY, algorithm TEXT NOT NULL, variant TEXT NOT NULL, p INTEGER NOT NULL,"
    " params TEXT NOT NULL, config TEXT NOT NULL, collective TEXT NOT NULL, status TEXT NOT NULL,"
    " skip_reason TEXT NOT NULL, mode TEXT NOT NULL, seconds REAL NOT NULL, stats TEXT NOT NULL,"
    " tool_version TEXT NOT NULL, sweep_id INTEGER NOT NULL REFERENCES sweeps(id), recorded TEXT NOT NULL,"
    " UNIQUE(algorithm, variant, p, params, config, sweep_id)";

// Schema version 1: one instances row per key and config.
constexpr const char* kInstancesColumnsV1 =
    " id INTEGER PRIMARY KEY, algorithm TEXT NOT NULL, variant TEXT NOT NULL, p INTEGER NOT NULL,"
    " params TEXT NOT NULL, config TEXT NOT NULL, collective TEXT NOT NULL, status TEXT NOT NULL,"
    " skip_reason TEXT NOT NULL, mode TEXT NOT NULL, seconds REAL NOT NULL, stats TEXT NOT NULL,"
    " tool_version TEXT NOT NULL, sweep_id INTEGER NOT NULL REFERENCES sweeps(id), recorded TEXT NOT NULL,"
    " UNIQUE(algorithm, variant, p, params, config)";

// The results view of schema versions 1 and 2 (no root causes).
constexpr const char* kResultsViewWithoutRootCauses =
    "CREATE VIEW results AS SELECT i.algorithm, i.variant, i.p, i.params, v.property, v.status, v.checks,"
    " v.violations, v.mode, v.stats, v.cx_p, v.cx_rank, v.cx_step, v.cx_block, v.cx_peer, v.cx_expected,"
    " v.cx_actual, v.cx_message, i.config, i.tool_version, i.recorded, i.sweep_id"
    " FROM verdicts v JOIN instances i ON i.id = v.instance_id";

std::vector<std::string> schema_statements() {
  return {
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
      "CREATE TABLE sweeps("
      " id INTEGER PRIMARY KEY, command TEXT NOT NULL, tool_version TEXT NOT NULL, config TEXT NOT NULL,"
      " mode TEXT NOT NULL, seed INTEGER NOT NULL, threads INTEGER NOT NULL, planned INTEGER NOT NULL,"
      " started TEXT NOT NULL, finished TEXT, seconds REAL, notes TEXT)",
      std::string("CREATE TABLE instances(") + kInstancesColumns + ")",
      "CREATE TABLE verdicts("
      " instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE, ord INTEGER NOT NULL,"
      " property TEXT NOT NULL, status TEXT NOT NULL, checks INTEGER NOT NULL, violations INTEGER NOT NULL,"
      " mode TEXT NOT NULL, stats TEXT NOT NULL, cx_p INTEGER, cx_rank INTEGER, cx_step INTEGER, cx_block INTEGER,"
      " cx_peer INTEGER, cx_expected TEXT, cx_actual TEXT, cx_message TEXT, cx_root TEXT,"
      " PRIMARY KEY(instance_id, property)) WITHOUT ROWID",
      "CREATE TABLE sweep_instances("
      " sweep_id INTEGER NOT NULL REFERENCES sweeps(id), ord INTEGER NOT NULL,"
      " instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,"
      " PRIMARY KEY(sweep_id, ord)) WITHOUT ROWID",
      "CREATE INDEX sweep_instances_by_instance ON sweep_instances(instance_id)",
      kResultsView,
  };
}

// Stores written before each sweep kept its own rows had
// UNIQUE(algorithm, variant, p, params, config) on instances, so a sweep
// without --resume overwrote the row an older sweep listed. The migration
// rebuilds the table (SQLite cannot change a constraint in place) keeping
// every id, so verdicts and sweep_instances stay valid; it runs in one
// transaction with foreign keys off (SQLite's documented procedure for
// changing a table's definition).
std::vector<std::string> migration_to_own_rows() {
  return {
      "DROP VIEW IF EXISTS results",
      std::string("CREATE TABLE instances_v2(") + kInstancesColumns + ")",
      "INSERT INTO instances_v2(id, algorithm, variant, p, params, config, collective, status, skip_reason, mode,"
      " seconds, stats, tool_version, sweep_id, recorded) SELECT id, algorithm, variant, p, params, config,"
      " collective, status, skip_reason, mode, seconds, stats, tool_version, sweep_id, recorded FROM instances",
      "DROP TABLE instances",
      "ALTER TABLE instances_v2 RENAME TO instances",
      kResultsView,
  };
}

// Stores of schema versions 1 and 2 have no root causes (schema version 3):
// the column is added, and the view that names it rebuilt, in one
// transaction.
std::vector<std::string> migration_to_root_causes() {
  return {"DROP VIEW IF EXISTS results", "ALTER TABLE verdicts ADD COLUMN cx_root TEXT", kResultsView};
}

// A prepared statement, reset and unbound when the scope ends.
class Query {
 public:
  Query(sqlite3* db, const char* sql, const std::function<void(const std::string&, int)>& fail) : db_(db), fail_(fail) {
    int rc = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr);
    if (rc != SQLITE_OK) fail_(sqlite3_errmsg(db), rc);
  }
  ~Query() { sqlite3_finalize(st_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& bind(int i, int64_t v) { return check(sqlite3_bind_int64(st_, i, v)); }
  Query& bind(int i, uint64_t v) { return bind(i, static_cast<int64_t>(v)); }
  Query& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Query& bind(int i, double v) { return check(sqlite3_bind_double(st_, i, v)); }
  Query& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  template <class T>
  Query& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, static_cast<int64_t>(*v)) : check(sqlite3_bind_null(st_, i));
  }
  Query& bind_null(int i) { return check(sqlite3_bind_null(st_, i)); }

  // true: a row is available; false: done.
  bool step() {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail_(sqlite3_errmsg(db_), rc);
    return false;
  }
  void run() {
    while (step()) {
    }
  }
  int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  uint64_t u64(int c) const { return static_cast<uint64_t>(i64(c)); }
  double real(int c) const { return sqlite3_column_double(st_, c); }
  bool null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const unsigned char* t = sqlite3_column_text(st_, c);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st_, c)))
             : std::string();
  }

 private:
  Query& check(int rc) {
    if (rc != SQLITE_OK) fail_(sqlite3_errmsg(db_), rc);
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  const std::function<void(const std::string&, int)>& fail_;
};

// Every table of a database with its columns: name -> (column name ->
// "type notnull pk", "GENERATED" or "HIDDEN" for such columns), from
// PRAGMA table_xinfo.
using Shape = std::map<std::string, std::map<std::string, std::string>>;
Shape table_shapes(sqlite3* db, const std::function<void(const std::string&, int)>& fn) {
  Shape out;
  std::vector<std::string> tables;
  {
    Query q(db, "SELECT name FROM sqlite_schema WHERE type = 'table'", fn);
    while (q.step()) tables.push_back(q.text(0));
  }
  for (const std::string& t : tables) {
    Query q(db, "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?1)", fn);
    q.bind(1, t);
    auto& cols = out[t];
    while (q.step())
      cols[q.text(0)] = q.text(1) + (q.i64(2) ? " NOT NULL" : "") + (q.i64(3) ? " PRIMARY KEY" : "") +
                        (q.i64(4) == 1 ? " HIDDEN" : q.i64(4) > 1 ? " GENERATED" : "");
  }
  return out;
}

// A table's indexes and references as one comparable text: every index
// (unique, how it came about, partial, its key columns with order and
// collation) and every foreign key, sorted. A store whose UNIQUE or PRIMARY
// KEY constraints, explicit indexes or references differ from this
// version's has the same columns but not the same meaning.
std::string table_constraints(sqlite3* db, const std::string& table,
                              const std::function<void(const std::string&, int)>& fn) {
  std::vector<std::string> items;
  std::vector<std::pair<std::string, std::string>> indexes;  // name, description
  {
    Query q(db, "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", fn);
    q.bind(1, table);
    while (q.step())
      indexes.push_back({q.text(0), std::string(q.i64(1) ? "unique " : "") + q.text(2) + (q.i64(3) ? " partial" : "")});
  }
  for (const auto& [name, what] : indexes) {
    std::string cols;
    Query q(db, "SELECT name, \"desc\", coll FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno", fn);
    q.bind(1, name);
    while (q.step()) cols += (cols.empty() ? "" : ", ") + q.text(0) + (q.i64(1) ? " DESC" : "") + " " + q.text(2);
    items.push_back("index " + what + " (" + cols + ")");
  }
  Query q(db, "SELECT \"from\", \"table\", \"to\", on_update, on_delete, \"match\" FROM pragma_foreign_key_list(?1)", fn);
  q.bind(1, table);
  while (q.step())
    items.push_back("reference " + q.text(0) + " -> " + q.text(1) + "(" + q.text(2) + ") on update " + q.text(3) +
                    " on delete " + q.text(4) + " match " + q.text(5));
  std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string& i : items) out += i + "; ";
  return out;
}

struct SchemaObject {
  std::string type, table, sql;  // sqlite_schema's type, tbl_name and sql ("" for an automatic index)
};

// What this version's schema_statements() create: the tables with their
// columns and constraints, and every object of sqlite_schema (tables,
// indexes, the view; no trigger). The instances table of schema version 1
// (one row per key and config, migrated on the first write) has constraints
// of its own.
struct ExpectedSchema {
  Shape shape;
  std::map<std::string, std::string> constraints;  // table -> table_constraints()
  std::string instances_v1_constraints;
  std::map<std::string, SchemaObject> objects;  // by name
};

const ExpectedSchema& expected_schema() {
  static const ExpectedSchema expected = [] {
    const std::function<void(const std::string&, int)> fn = [](const std::string& w, int) {
      throw std::logic_error("results store schema: " + w);
    };
    auto build = [&](const std::vector<std::string>& statements) {
      sqlite3* mem = nullptr;
      if (sqlite3_open(":memory:", &mem) != SQLITE_OK) fn("cannot open an in-memory database", 0);
      for (const std::string& st : statements)
        if (sqlite3_exec(mem, st.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fn(sqlite3_errmsg(mem), 0);
      return mem;
    };
    ExpectedSchema out;
    sqlite3* mem = build(schema_statements());
    out.shape = table_shapes(mem, fn);
    for (const auto& [table, columns] : out.shape) out.constraints[table] = table_constraints(mem, table, fn);
    {
      Query q(mem, "SELECT type, name, tbl_name, sql FROM sqlite_schema", fn);
      while (q.step()) out.objects[q.text(1)] = {q.text(0), q.text(2), q.text(3)};
    }
    sqlite3_close(mem);
    mem = build({std::string("CREATE TABLE instances(") + kInstancesColumnsV1 + ")"});
    out.instances_v1_constraints = table_constraints(mem, "instances", fn);
    sqlite3_close(mem);
    return out;
  }();
  return expected;
}

// A name or value from the store, for a one-line message: control
// characters escaped (the one rule, schedules/input_error.hpp), at most 60 bytes.
std::string shown(const std::string& s) { return escape_controls_cut(s, 60); }

std::string stats_to_json(const std::map<std::string, std::string>& m) {
  return nlohmann::json(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Every JSON column this version writes is one level deep (an object of
// strings, an array of strings, a root cause); nlohmann::json copies and
// compares values recursively, so a column nested 200,000 deep overflowed the
// stack (SIGSEGV) in `report` and `verify --resume`.
constexpr size_t kMaxStoredJsonDepth = 32;

// Whether `s` nests arrays and objects deeper than `limit` (brackets inside
// strings aside). Linear, no recursion: run before the text is parsed.
bool nested_deeper_than(std::string_view s, size_t limit) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : s) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// A stored JSON column that does not parse (or nests deeper than any column
// this version writes) is a damaged store: bad input.
template <class T>
T stored_json(const std::string& s, const char* what) {
  if (nested_deeper_than(s, kMaxStoredJsonDepth))
    throw InputError(std::string("results store is corrupt: a stored ") + what +
                     " column is not valid JSON (nested deeper than " + std::to_string(kMaxStoredJsonDepth) +
                     " arrays or objects)");
  try {
    return nlohmann::json::parse(s).get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("results store is corrupt: a stored ") + what + " column is not valid JSON (" +
                     e.what() + ")");
  }
}

std::map<std::string, std::string> stats_from_json(const std::string& s) {
  return stored_json<std::map<std::string, std::string>>(s, "statistics");
}

// A stored verdicts.cx_root: valid JSON and a root cause, or bad input.
std::optional<RootCause> stored_root_cause(const std::string& s) {
  const nlohmann::json j = stored_json<nlohmann::json>(s, "root cause");
  try {
    return root_cause_from_json(j);
  } catch (const std::runtime_error& e) {  // valid JSON, not a root cause
    throw InputError(std::string("results store is corrupt: a stored root cause column is not one (") + e.what() +
                     ")");
  }
}

Status status_from_string(const std::string& s) {
  for (Status x : {Status::holds, Status::violated, Status::unknown, Status::skipped})
    if (s == to_string(x)) return x;
  throw InputError("results store: unknown status '" + s + "'");
}

}  // namespace

ResultsStore::ResultsStore(const std::string& path, Access access, const std::string& tool_version,
                           int busy_timeout_ms)
    : path_(path), tool_version_(tool_version) {
  try {
    open_and_validate(access, busy_timeout_ms);
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

ResultsStore::~ResultsStore() { sqlite3_close_v2(db_); }

void ResultsStore::fail(const std::string& what, int rc) const {
  const std::string f = "'" + path_ + "'";
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw InputError("results store " + f +
                       " is locked by another process (gave up waiting); what was recorded before stays, nothing more "
                       "was written");
    case SQLITE_READONLY:
      throw InputError("results store " + f + " is read-only (" + what + "); nothing was written");
    case SQLITE_NOTADB:
      throw InputError(f + " is not a SQLite database, so not a collcheck results store; nothing was written");
    case SQLITE_CORRUPT:
      throw InputError("results store " + f + " is corrupt (" + what + "); nothing was written");
    case SQLITE_CANTOPEN: throw InputError("cannot open results store " + f + " (" + what + ")");
    case SQLITE_FULL: throw InputError("results store " + f + ": disk full (" + what + ")");
    default: throw InputError("results store " + f + ": " + what + " (" + sqlite3_errstr(rc) + ")");
  }
}

void ResultsStore::open_and_validate(Access access, int busy_timeout_ms) {
  const std::string f = "'" + path_ + "'";
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) throw InputError("results store " + f + " is not a regular file");
  if (!exists && access == Access::read_only) throw InputError("cannot open results store " + f + ": no such file");
  // The file's mode is the user's word, also for root (who could write anyway).
  if (exists && access == Access::read_write && (st.st_mode & 0222) == 0)
    throw InputError("results store " + f + " is read-only (mode " + [&] {
      char b[8];
      std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return std::string(b);
    }() + "); nothing was written");
  if (!exists) {
    std::error_code ec;
    auto dir = std::filesystem::path(path_).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      throw InputError("cannot create results store " + f + ": no directory '" + dir.string() + "'");
  }
  if (exists) refuse_journal(path_, access == Access::read_only);
  int flags = SQLITE_OPEN_NOMUTEX |
              (access == Access::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // Reading (`report`): a store no connection has open (no -wal, no
  // -journal beside it: the last writer to close checkpointed and removed
  // its log) is complete in its main file. It is opened immutable, which
  // takes no locks and creates no -wal or -shm file (a plain read-only open
  // of a WAL database creates both and, unable to write, leaves them
  // behind). A writer that starts meanwhile writes to its own log; only a
  // checkpoint changes the main file, so every read checks that the file is
  // as it was opened and, if not, reads again with locks (read_consistently).
  // A store with a log beside it (a sweep still running, or killed: its
  // committed instances may be in the log only) is opened read-only as
  // usual, reading the log through the -shm index; those files were there
  // before (a killed writer's -shm aside) and stay.
  std::string name = path_;
  if (access == Access::read_only && !log_beside(path_) && ::stat(path_.c_str(), &opened_) == 0) {
    flags |= SQLITE_OPEN_URI;
    name = immutable_uri(path_);
    immutable_ = true;
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) fail(db_ ? sqlite3_errmsg(db_) : "out of memory", rc);
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  if (access == Access::read_write && sqlite3_db_readonly(db_, "main") == 1)
    throw InputError("results store " + f + " is read-only (no write permission); nothing was written");

  auto pragma_int = [&](const char* sql) {
    Query q(db_, sql, fail_fn_);
    return q.step() ? q.i64(0) : 0;
  };
  // Reads only, until everything is known to be in order. The three are
  // read in one read transaction, one snapshot: read one by one, a store
  // another process created between them (two sweeps started at once on a
  // new --db) looked like a database with tables but no application_id.
  Query(db_, "BEGIN", fail_fn_).run();
  int64_t app = pragma_int("PRAGMA application_id");
  int64_t schema = pragma_int("PRAGMA user_version");
  const int64_t objects = pragma_int("SELECT count(*) FROM sqlite_schema");
  Query(db_, "COMMIT", fail_fn_).run();
  {
    Query q(db_, "PRAGMA quick_check(1)", fail_fn_);
    std::string res = q.step() ? q.text(0) : "no answer";
    std::replace(res.begin(), res.end(), '\n', ' ');
    if (res != "ok") throw InputError("results store " + f + " is corrupt (" + res + "); nothing was written");
  }
  // SQLite reads a partial last page as zeros; a database file is whole pages.
  if (exists && st.st_size > 0) {
    const int64_t page = pragma_int("PRAGMA page_size");
    if (page > 0 && st.st_size % page != 0)
      throw InputError("results store " + f + " is truncated or damaged (" + std::to_string(st.st_size) +
                       " bytes is not a whole number of " + std::to_string(page) + "-byte pages); nothing was written");
  }
  if (app == 0 && schema == 0 && objects == 0) {
    if (access == Access::read_only) throw InputError("results store " + f + " is empty: no sweep was recorded in it");
    // Another process may be creating it at this moment (two sweeps started
    // at once on a new --db): create_schema() checks again under the write
    // lock and leaves a store it finds created as it is; it is then
    // validated as any existing store.
    create_schema(busy_timeout_ms);
    app = pragma_int("PRAGMA application_id");
    schema = pragma_int("PRAGMA user_version");
  }
  if (app != kApplicationId) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08llx", static_cast<unsigned long long>(static_cast<uint32_t>(app)));
    throw InputError(f + " is a SQLite database but not a collcheck results store (application_id " + b +
                     "); nothing was written");
  } else if (schema != kSchemaVersion && schema != 1 && schema != 2) {  // 1, 2: migrated below on the first write
    throw InputError("results store " + f + " has schema version " + std::to_string(schema) + "; this collcheck (" +
                     tool_version_ + ") reads version " + std::to_string(kSchemaVersion) + "; nothing was written");
  } else {
    check_schema(schema);
  }
  std::string written;
  {
    Query q(db_, "SELECT value FROM meta WHERE key = 'tool_version'", fail_fn_);
    if (q.step()) written = q.text(0);
  }
  if (written != tool_version_)
    throw InputError("results store " + f + " was written by collcheck " + (written.empty() ? "?" : written) +
                     "; this is collcheck " + tool_version_ +
                     ": results of different versions are not mixed (use another --db file); nothing was written");
  root_causes_ = has_root_cause_column();
  // Every row is decoded once before anything is written: a corrupt row
  // found only when `--resume` read it back came after the new sweep row.
  check_rows();
  check_domains();
  if (access == Access::read_write) {
    std::string mode;
    if (const int rc = enter_wal(db_, busy_timeout_ms, mode); rc != SQLITE_OK) fail(sqlite3_errmsg(db_), rc);
    if (mode != "wal") throw InputError("results store " + f + ": cannot use write-ahead logging (journal mode " + mode + ")");
  }
  sqlite3_exec(db_, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
  // Reading a store with the older instances table or without root causes
  // needs nothing; writing into one migrates it (after every check above
  // passed). The column first: the rebuilt view of the instances migration
  // names it.
  if (access == Access::read_write && !root_causes_) {
    add_root_cause_column();
    root_causes_ = true;
  }
  if (access == Access::read_write && (schema == 1 || has_shared_instance_rows())) migrate_shared_instance_rows();
  sqlite3_exec(db_, "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr);
}

// Before anything is written (the sweep row included): every table this code
// reads or writes, with the columns this version creates (so a damaged store
// is refused at once, not after a sweep row was added), and a
// meta.schema_version that agrees with PRAGMA user_version (a store from a
// newer collcheck is refused whichever of the two says so).
void ResultsStore::check_schema(int64_t schema) {
  const std::string f = "'" + path_ + "'";
  auto damaged = [&](const std::string& what) {
    return InputError("results store " + f + " is damaged: " + what + "; nothing was written");
  };
  const ExpectedSchema& expected = expected_schema();
  const Shape have = table_shapes(db_, fail_fn_);
  for (const auto& [table, columns] : expected.shape) {
    const auto it = have.find(table);
    if (it == have.end()) throw damaged("table '" + table + "' is missing");
    for (const auto& [column, decl] : columns) {
      const auto c = it->second.find(column);
      if (c == it->second.end() && table == "verdicts" && column == "cx_root" && schema < 3)
        continue;  // versions 1 and 2 have no root causes (added on the first write)
      if (c == it->second.end()) throw damaged("table '" + table + "' has no column '" + column + "'");
      if (c->second != decl)
        throw damaged("column '" + column + "' of table '" + table + "' is '" + shown(c->second) + "', expected '" + decl +
                      "'");
    }
    for (const auto& [column, decl] : it->second)
      if (!columns.count(column))
        throw InputError("results store " + f + " is not of this schema: table '" + table + "' has a column '" +
                         shown(column) + "' this collcheck (" + tool_version_ + ") does not know; nothing was written");
  }
  // Every object: exactly this version's tables, indexes and view, and no
  // trigger (a trigger could rewrite or delete what a sweep records; a
  // dropped view or index is a damaged store).
  const bool root_causes = have.at("verdicts").count("cx_root") > 0;
  std::set<std::string> seen;
  {
    Query q(db_, "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid", fail_fn_);
    while (q.step()) {
      const std::string type = q.text(0), name = q.text(1), table = q.text(2), sql = q.text(3);
      const auto it = expected.objects.find(name);
      if (it == expected.objects.end() || it->second.type != type || it->second.table != table)
        throw damaged(type + " '" + shown(name) + "'" + (type == "table" ? "" : " on '" + shown(table) + "'") +
                      " is not part of its schema");
      seen.insert(name);
      if (type == "view" ? sql != (root_causes ? kResultsView : kResultsViewWithoutRootCauses)
                         : type == "index" && sql != it->second.sql)
        throw damaged(type + " '" + name + "' is not the one this collcheck creates");
    }
  }
  for (const auto& [name, o] : expected.objects)
    if (!seen.count(name)) throw damaged(o.type + " '" + name + "' is missing");
  // Constraints: the same columns and objects with another UNIQUE, key,
  // index or reference. The instances table may still be schema version 1's.
  for (const auto& [table, c] : expected.constraints) {
    const std::string constraints = table_constraints(db_, table, fail_fn_);
    if (constraints != c && !(table == "instances" && constraints == expected.instances_v1_constraints))
      throw damaged("table '" + table + "' has other constraints, indexes or references than this collcheck creates");
  }
  Query q(db_, "SELECT value FROM meta WHERE key = 'schema_version'", fail_fn_);
  const std::string meta = q.step() ? q.text(0) : "";
  if (meta == std::to_string(schema)) return;
  const bool number = !meta.empty() && meta.size() < 10 && meta.find_first_not_of("0123456789") == std::string::npos;
  if (number && std::stoll(meta) > kSchemaVersion)
    throw InputError("results store " + f + " has schema version " + meta + " (meta.schema_version); this collcheck (" +
                     tool_version_ + ") reads version " + std::to_string(kSchemaVersion) + "; nothing was written");
  throw InputError("results store " + f + " is damaged: meta.schema_version is " +
                   (meta.empty() ? std::string("missing") : "'" + meta + "'") + ", PRAGMA user_version is " +
                   std::to_string(schema) + "; nothing was written");
}

// What load_instance() and sweeps() decode, for every row: the statuses,
// the JSON columns (statistics, notes, root causes) and the instances each
// sweep lists. Reading a sweep back then finds nothing it refuses, so
// `verify --resume` refuses a corrupt store before its sweep row is written.
void ResultsStore::check_rows() {
  {
    Query q(db_, "SELECT notes FROM sweeps WHERE notes IS NOT NULL", fail_fn_);
    while (q.step()) stored_json<std::vector<std::string>>(q.text(0), "notes");
  }
  {
    Query q(db_, "SELECT status, stats FROM instances", fail_fn_);
    while (q.step()) {
      status_from_string(q.text(0));
      stats_from_json(q.text(1));
    }
  }
  {
    const std::string sql =
        std::string("SELECT status, stats, ") + (root_causes_ ? "cx_root" : "NULL") + " FROM verdicts";
    Query q(db_, sql.c_str(), fail_fn_);
    while (q.step()) {
      status_from_string(q.text(0));
      stats_from_json(q.text(1));
      if (!q.null(2)) stored_root_cause(q.text(2));
    }
  }
  Query q(db_,
          "SELECT instance_id FROM sweep_instances si WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = "
          "si.instance_id) LIMIT 1",
          fail_fn_);
  if (q.step())
    throw InputError("results store '" + path_ + "': instance " + std::to_string(q.i64(0)) + " is missing");
}

namespace {

// One condition every row of a table meets (an SQL expression that is 1),
// the column it is about and what is expected there, for the message.
struct RowRule {
  const char* column;
  std::string ok;
  const char* expected;
};

// SQLite stores any value in any column (a column's type is only an
// affinity), so a row may hold p = -5, p = 'four' or a status from nowhere.
// typeof() and the ranges of what collcheck writes:
const char* const kText = "text";
std::string is_text(const std::string& c) { return "typeof(" + c + ") = 'text'"; }
std::string is_int(const std::string& c, const std::string& lo, const std::string& hi) {
  return "typeof(" + c + ") = 'integer' AND " + c + " BETWEEN " + lo + " AND " + hi;
}
std::string is_seconds(const std::string& c) { return "typeof(" + c + ") = 'real' AND " + c + " BETWEEN 0 AND 1e15"; }
const char* const kStatuses = "('holds', 'violated', 'unknown', 'skipped')";
const char* const kRank = "an integer from 0 to 2^32 - 1";

}  // namespace

// The domain of every column of every row (types, ranges, the known
// statuses, this store's tool version), and the rows' agreement: an
// instance's status is the worst of its verdicts' (skipped without any), a
// holding verdict has no counterexample and a violated one has one, every
// reference leads to a row. Renderers would print such rows as they are
// ("holds" for an instance whose violated verdicts were deleted).
void ResultsStore::check_domains() {
  const std::string f = "'" + path_ + "'";
  const std::string version = "(SELECT value FROM meta WHERE key = 'tool_version')";
  const std::string combined =
      "(SELECT CASE WHEN sum(v.status = 'violated') > 0 THEN 'violated' WHEN sum(v.status = 'unknown') > 0 THEN "
      "'unknown' WHEN sum(v.status = 'holds') > 0 THEN 'holds' ELSE 'skipped' END FROM verdicts v WHERE "
      "v.instance_id = instances.id)";
  auto cx = [](const std::string& c, const std::string& ok) { return c + " IS NULL OR (cx_p IS NOT NULL AND " + ok + ")"; };
  struct Table {
    const char* name;
    const char* row;  // SQL naming the row in a message
    std::vector<RowRule> rules;
  };
  const std::vector<Table> tables = {
      {"meta", "'meta key ' || quote(key)",
       {{"key", "key IN ('tool_version', 'schema_version', 'created')", "'tool_version', 'schema_version' or 'created'"},
        {"value", is_text("value"), kText}}},
      {"sweeps", "'sweep ' || quote(id)",
       {{"id", is_int("id", "1", "9223372036854775807"), "an integer >= 1"},
        {"command", is_text("command"), kText},
        {"tool_version", "tool_version IS " + version, "the store's tool version (meta)"},
        {"config", is_text("config"), kText},
        {"mode", is_text("mode"), kText},
        {"seed", "typeof(seed) = 'integer'", "an integer"},
        {"threads", is_int("threads", "0", "2147483647"), "an integer >= 0"},
        {"planned", is_int("planned", "0", "9223372036854775807"), "an integer >= 0"},
        {"started", is_text("started"), kText},
        {"finished", "finished IS NULL OR " + is_text("finished"), "NULL or text"},
        {"seconds", "seconds IS NULL OR (" + is_seconds("seconds") + ")", "NULL or seconds >= 0"},
        {"notes", "notes IS NULL OR " + is_text("notes"), "NULL or text"}}},
      {"instances", "'instance ' || quote(id)",
       {{"id", is_int("id", "1", "9223372036854775807"), "an integer >= 1"},
        {"algorithm", is_text("algorithm"), kText},
        {"variant", is_text("variant"), kText},
        {"p", is_int("p", "1", std::to_string(kMaxP)), "an integer from 1 to 2^24"},
        {"params", is_text("params"), kText},
        {"config", is_text("config"), kText},
        {"collective", is_text("collective"), kText},
        {"status", std::string("status IN ") + kStatuses, "holds, violated, unknown or skipped"},
        {"status", "status IS " + combined, "the worst of its verdicts' statuses, skipped if it has none"},
        {"skip_reason", is_text("skip_reason"), kText},
        {"mode", is_text("mode"), kText},
        {"seconds", is_seconds("seconds"), "seconds >= 0"},
        {"stats", is_text("stats"), kText},
        {"tool_version", "tool_version IS " + version, "the store's tool version (meta)"},
        {"sweep_id", "typeof(sweep_id) = 'integer'", "an integer"},
        {"recorded", is_text("recorded"), kText}}},
      {"verdicts", "'verdict ' || quote(property) || ' of instance ' || quote(instance_id)",
       {{"instance_id", "typeof(instance_id) = 'integer'", "an integer"},
        {"ord", is_int("ord", "0", "9223372036854775807"), "an integer >= 0"},
        {"property", is_text("property"), kText},
        {"status", std::string("status IN ") + kStatuses, "holds, violated, unknown or skipped"},
        {"checks", is_int("checks", "0", "9223372036854775807"), "an integer >= 0"},
        {"violations", is_int("violations", "0", "9223372036854775807"), "an integer >= 0"},
        {"violations", "(status = 'violated') = (violations >= 1)", "at least 1 for a violated verdict, 0 otherwise"},
        {"mode", is_text("mode"), kText},
        {"stats", is_text("stats"), kText},
        {"cx_p", "cx_p IS NULL OR " + is_int("cx_p", "1", std::to_string(kMaxP)), "NULL or an integer from 1 to 2^24"},
        {"cx_p", "CASE status WHEN 'holds' THEN cx_p IS NULL WHEN 'violated' THEN cx_p IS NOT NULL ELSE 1 END",
         "a counterexample for a violated verdict and none for a holding one"},
        {"cx_rank", cx("cx_rank", is_int("cx_rank", "0", "4294967295")), kRank},
        {"cx_step", cx("cx_step", is_int("cx_step", "-2147483648", "2147483647")), "a 32-bit integer"},
        {"cx_block", cx("cx_block", is_int("cx_block", "0", "9223372036854775807")), "an integer from 0 to 2^63 - 1"},
        {"cx_peer", cx("cx_peer", is_int("cx_peer", "0", "4294967295")), kRank},
        {"cx_expected", "(cx_p IS NULL AND cx_expected IS NULL) OR (cx_p IS NOT NULL AND " + is_text("cx_expected") + ")",
         "text with a counterexample, NULL without"},
        {"cx_actual", "(cx_p IS NULL AND cx_actual IS NULL) OR (cx_p IS NOT NULL AND " + is_text("cx_actual") + ")",
         "text with a counterexample, NULL without"},
        {"cx_message", "(cx_p IS NULL AND cx_message IS NULL) OR (cx_p IS NOT NULL AND " + is_text("cx_message") + ")",
         "text with a counterexample, NULL without"}}},
      {"sweep_instances", "'job ' || quote(ord) || ' of sweep ' || quote(sweep_id)",
       {{"sweep_id", "typeof(sweep_id) = 'integer'", "an integer"},
        {"ord", is_int("ord", "0", "9223372036854775807"), "an integer >= 0"},
        {"ord", "ord < (SELECT planned FROM sweeps s WHERE s.id = sweep_id)", "below its sweep's planned instances"},
        {"instance_id", "typeof(instance_id) = 'integer'", "an integer"}}},
  };
  for (Table t : tables) {
    if (t.name == std::string("verdicts") && root_causes_)
      t.rules.push_back({"cx_root", cx("cx_root", is_text("cx_root")), "NULL or text with a counterexample"});
    // One scan per table: the first row that breaks a rule, with each
    // rule's outcome and each column's value.
    std::string select = std::string("SELECT ") + t.row, all;
    for (const RowRule& r : t.rules) {
      select += ", (" + r.ok + ") IS 1, quote(" + r.column + ")";
      all += (all.empty() ? "(" : " AND (") + r.ok + ") IS 1";
    }
    const std::string sql = select + " FROM " + t.name + " WHERE NOT (" + all + ") LIMIT 1";
    Query q(db_, sql.c_str(), fail_fn_);
    if (!q.step()) continue;
    for (size_t k = 0; k < t.rules.size(); ++k)
      if (q.i64(static_cast<int>(1 + 2 * k)) != 1)
        throw InputError("results store " + f + " is damaged: " + shown(q.text(0)) + " has " + t.rules[k].column +
                         " = " + shown(q.text(static_cast<int>(2 + 2 * k))) + " (expected " + t.rules[k].expected +
                         "); nothing was written");
  }
  Query q(db_, "SELECT \"table\", parent FROM pragma_foreign_key_check LIMIT 1", fail_fn_);
  if (q.step())
    throw InputError("results store " + f + " is damaged: a row of table '" + q.text(0) + "' refers to a missing row of '" +
                     q.text(1) + "'; nothing was written");
  check_registry();
  check_coverage();
}

// The names the rows carry are the registry's (this version's: a store of
// another version is refused before): an algorithm, one of its variants, its
// collective, and a property of the catalog. A report renders any name it
// is given ("nope/bandwidth holds").
void ResultsStore::check_registry() {
  auto damaged = [&](const std::string& what) {
    return InputError("results store '" + path_ + "' is damaged: " + what + "; nothing was written");
  };
  {
    Query q(db_, "SELECT min(id), algorithm, variant, collective FROM instances GROUP BY algorithm, variant, collective",
            fail_fn_);
    while (q.step()) {
      const std::string row = "instance " + std::to_string(q.i64(0)), algo = q.text(1), variant = q.text(2);
      const AlgorithmInfo* a = find_algorithm(algo);
      if (!a) throw damaged(row + " has algorithm = '" + shown(algo) + "' (expected an algorithm of the registry)");
      if (!a->find_variant(variant)) {
        std::string known;
        for (const VariantInfo& v : a->variants) known += (known.empty() ? "" : ", ") + v.name;
        throw damaged(row + " has variant = '" + shown(variant) + "' (expected a variant of " + a->name + ": " + known + ")");
      }
      if (q.text(3) != to_string(a->collective))
        throw damaged(row + " has collective = '" + shown(q.text(3)) + "' (expected " + to_string(a->collective) +
                      ", " + a->name + "'s)");
    }
  }
  // An instance checked (not skipped) is one its variant allows: options
  // it takes, p within its restriction (a hand-edited p or params would
  // render as a result nobody checked).
  {
    Query q(db_, "SELECT id, algorithm, variant, p, params FROM instances WHERE status != 'skipped'", fail_fn_);
    while (q.step()) {
      const std::string row = "instance " + std::to_string(q.i64(0)), params = q.text(4);
      const VariantInfo& v = *find_algorithm(q.text(1))->find_variant(q.text(2));
      const std::optional<InstanceParams> ip = params_of(q.u64(3), params);
      if (!ip) throw damaged(row + " has params = '" + shown(params) + "' (expected instance options as verify labels them)");
      for (const auto& [option, set] : {std::pair{"n", ip->blocks != 0}, {"root", ip->root != 0}, {"radix", ip->radix != 0},
                                        {"radix2", ip->radix2 != 0}, {"ppn", ip->ppn != 0}, {"dims", !ip->dims.empty()}})
        if (set && !v.takes(option))
          throw damaged(row + " has params = '" + shown(params) + "' (" + q.text(1) + "/" + v.name + " takes no --" +
                        option + ")");
      if (auto why = v.violates ? v.violates(*ip) : std::nullopt)
        throw damaged(row + " of " + q.text(1) + "/" + v.name + " has p = " + std::to_string(ip->p) +
                      (params.empty() ? "" : " " + shown(params)) + " and is not skipped (expected an instance its "
                      "variant allows: " + shown(*why) + ")");
    }
  }
  std::set<std::string> properties;
  for (const PropertyInfo& p : property_catalog()) properties.insert(p.name);
  Query q(db_, "SELECT min(instance_id), property FROM verdicts GROUP BY property", fail_fn_);
  while (q.step())
    if (!properties.count(q.text(1)))
      throw damaged("verdict '" + shown(q.text(1)) + "' of instance " + std::to_string(q.i64(0)) +
                    " has property = '" + shown(q.text(1)) + "' (expected a property of the catalog: collcheck list)");
}

// A finished sweep lists every instance it planned (job 0 to planned - 1):
// a sweep_instances row deleted by hand made its instance vanish from the
// report. An unfinished sweep lists what it got to.
void ResultsStore::check_coverage() {
  Query q(db_,
          "SELECT s.id, s.planned, (SELECT count(*) FROM sweep_instances si WHERE si.sweep_id = s.id) FROM sweeps s "
          "WHERE s.finished IS NOT NULL AND s.planned != (SELECT count(*) FROM sweep_instances si WHERE si.sweep_id = "
          "s.id) LIMIT 1",
          fail_fn_);
  if (!q.step()) return;
  const int64_t sweep = q.i64(0);
  // The first job missing (jobs are below `planned`, each listed once: a
  // finished sweep with fewer rows has a gap).
  Query ords(db_, "SELECT ord FROM sweep_instances WHERE sweep_id = ? ORDER BY ord", fail_fn_);
  ords.bind(1, sweep);
  int64_t missing = 0;
  while (ords.step() && ords.i64(0) == missing) ++missing;
  throw InputError("results store '" + path_ + "' is damaged: sweep " + std::to_string(sweep) + " finished with " +
                   std::to_string(q.i64(1)) + " planned instances but lists " + std::to_string(q.i64(2)) + " (job " +
                   std::to_string(missing) + " of sweep " + std::to_string(sweep) +
                   " has no row in sweep_instances); nothing was written");
}

bool ResultsStore::has_shared_instance_rows() {
  std::vector<std::string> unique_indexes;
  {
    Query q(db_, "PRAGMA index_list(instances)", fail_fn_);  // seq, name, unique, origin, partial
    while (q.step())
      if (q.i64(2) == 1) unique_indexes.push_back(q.text(1));
  }
  for (const std::string& index : unique_indexes) {
    const std::string sql = "PRAGMA index_info(\"" + index + "\")";  // seqno, cid, name
    Query q(db_, sql.c_str(), fail_fn_);
    std::vector<std::pair<int64_t, std::string>> cols;
    while (q.step()) cols.push_back({q.i64(0), q.text(2)});
    std::sort(cols.begin(), cols.end());
    std::string names;
    for (const auto& c : cols) names += (names.empty() ? "" : ",") + c.second;
    if (names == "algorithm,variant,p,params,config") return true;
  }
  return false;
}

bool ResultsStore::has_root_cause_column() {
  Query q(db_, "PRAGMA table_info(verdicts)", fail_fn_);  // cid, name, type, notnull, default, pk
  while (q.step())
    if (q.text(1) == "cx_root") return true;
  return false;
}

void ResultsStore::add_root_cause_column() {
  auto exec = [&](const std::string& sql) { exec_or_fail(sql, "adding root causes to the verdicts: "); };
  exec("BEGIN IMMEDIATE");
  bool still = false;  // another process may have added it meanwhile
  try {
    still = !has_root_cause_column();
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  if (still)
    for (const std::string& s : migration_to_root_causes()) exec(s);
  exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  exec("UPDATE meta SET value = '" + std::to_string(kSchemaVersion) + "' WHERE key = 'schema_version'");
  exec("COMMIT");
}

void ResultsStore::migrate_shared_instance_rows() {
  auto exec = [&](const std::string& sql) { exec_or_fail(sql, "giving every sweep its own instance rows: "); };
  auto set_version = [&] {
    exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    exec("UPDATE meta SET value = '" + std::to_string(kSchemaVersion) + "' WHERE key = 'schema_version'");
  };
  exec("PRAGMA foreign_keys = OFF");  // outside the transaction, or it has no effect
  exec("BEGIN IMMEDIATE");
  // Still the older table once the write lock is held (another process may have migrated it)?
  bool still = false;
  try {
    still = has_shared_instance_rows();
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  if (!still) {  // another process migrated it: only the version number may be left
    set_version();
    exec("COMMIT");
    return;
  }
  for (const std::string& s : migration_to_own_rows()) exec(s);
  set_version();
  {
    char* err = nullptr;
    bool dangling = false;
    const int rc = sqlite3_exec(
        db_, "PRAGMA foreign_key_check",
        [](void* d, int, char**, char**) {
          *static_cast<bool*>(d) = true;
          return 1;
        },
        &dangling, &err);
    const std::string msg = err ? err : "";
    sqlite3_free(err);
    if (rc != SQLITE_OK && !dangling) {
      exec("ROLLBACK");
      fail("checking references after giving every sweep its own instance rows: " + msg, rc);
    }
    if (dangling) {
      exec("ROLLBACK");
      throw InputError("results store '" + path_ +
                       "' is corrupt (dangling references in its instance rows); nothing was written");
    }
  }
  exec("COMMIT");
}

void ResultsStore::exec_or_fail(const std::string& sql, const std::string& context) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  if (rc != SQLITE_OK) {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    fail(context + msg, rc);
  }
}

void ResultsStore::create_schema(int busy_timeout_ms) {
  auto exec = [&](const std::string& sql) { exec_or_fail(sql, ""); };
  std::string mode;
  if (const int rc = enter_wal(db_, busy_timeout_ms, mode); rc != SQLITE_OK) fail(sqlite3_errmsg(db_), rc);
  exec("BEGIN IMMEDIATE");
  // Still empty once the write lock is held? Another process that opened the
  // empty file at the same time may have created the store meanwhile.
  bool empty = false;
  try {
    Query q(db_, "SELECT count(*) FROM sqlite_schema", fail_fn_);
    empty = q.step() && q.i64(0) == 0;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  if (!empty) {
    exec("ROLLBACK");
    return;
  }
  for (const std::string& s : schema_statements()) exec(s);
  exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  const std::function<void(const std::string&, int)> fn = [this](const std::string& w, int c) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    fail(w, c);
  };
  Query q(db_,
          "INSERT INTO meta(key, value) VALUES ('tool_version', ?1), ('schema_version', ?2),"
          " ('created', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
          fn);
  q.bind(1, tool_version_).bind(2, std::to_string(kSchemaVersion)).run();
  exec("COMMIT");
}

int64_t ResultsStore::begin_sweep(const std::string& command, const std::string& config, const std::string& mode,
                                  uint64_t seed, int threads, uint64_t planned) {
  std::lock_guard<std::mutex> g(m_);
  Query q(db_,
          "INSERT INTO sweeps(command, tool_version, config, mode, seed, threads, planned, started)"
          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
          fail_fn_);
  q.bind(1, command).bind(2, tool_version_).bind(3, config).bind(4, mode).bind(5, seed).bind(6, threads).bind(7, planned);
  q.run();
  sweep_id_ = sqlite3_last_insert_rowid(db_);
  config_ = config;
  sqlite3_busy_timeout(db_, kRecordBusyMs);
  return sweep_id_;
}

void ResultsStore::finish_sweep(const Report& r) {
  std::lock_guard<std::mutex> g(m_);
  Query q(db_,
          "UPDATE sweeps SET finished = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), seconds = ?1, notes = ?2, mode = ?3"
          " WHERE id = ?4",
          fail_fn_);
  q.bind(1, r.seconds)
      .bind(2, nlohmann::json(r.notes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .bind(3, r.mode)
      .bind(4, sweep_id_)
      .run();
}

int64_t ResultsStore::instance_id(const InstanceKey& key, const std::string& config) {
  // The latest result: a sweep without --resume adds its own row beside older sweeps' rows.
  Query q(db_,
          "SELECT id FROM instances WHERE algorithm = ?1 AND variant = ?2 AND p = ?3 AND params = ?4 AND config = ?5"
          " ORDER BY id DESC LIMIT 1",
          fail_fn_);
  q.bind(1, key.algorithm).bind(2, key.variant).bind(3, key.p).bind(4, key.params).bind(5, config);
  return q.step() ? q.i64(0) : 0;
}

bool ResultsStore::has(const InstanceKey& key, const std::string& config) {
  std::lock_guard<std::mutex> g(m_);
  return instance_id(key, config) != 0;
}

std::optional<InstanceResult> ResultsStore::lookup(const InstanceKey& key, const std::string& config) {
  std::lock_guard<std::mutex> g(m_);
  int64_t id = instance_id(key, config);
  if (!id) return std::nullopt;
  return load_instance(id);
}

std::optional<InstanceResult> ResultsStore::reuse(size_t ord, const InstanceResult& header) {
  std::lock_guard<std::mutex> g(m_);
  int64_t id = instance_id(InstanceKey::of(header), config_);
  if (!id) return std::nullopt;
  InstanceResult r = load_instance(id);
  Query q(db_, "INSERT OR REPLACE INTO sweep_instances(sweep_id, ord, instance_id) VALUES (?1, ?2, ?3)", fail_fn_);
  q.bind(1, sweep_id_).bind(2, static_cast<uint64_t>(ord)).bind(3, id).run();
  return r;
}

void ResultsStore::record(size_t ord, const InstanceResult& r) {
  std::lock_guard<std::mutex> g(m_);
  const std::function<void(const std::string&, int)> fn = [this](const std::string& w, int c) {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    fail(w, c);
  };
  // A count is kept as SQLite's (signed) integer, so up to 2^63 - 1, and
  // opening refuses a negative one (a row edited by hand): never write one.
  for (const Verdict& v : r.verdicts)
    if (v.checks > static_cast<uint64_t>(INT64_MAX) || v.violations > static_cast<uint64_t>(INT64_MAX))
      throw InputError("results store '" + path_ + "': " + r.algorithm + "/" + r.variant + " p=" + std::to_string(r.p) +
                       ": property " + v.property + " counted " + std::to_string(v.checks) + " checks and " +
                       std::to_string(v.violations) + " violations, more than the store keeps (2^63 - 1); "
                       "this instance was not recorded");
  { Query(db_, "BEGIN IMMEDIATE", fn).run(); }
  int64_t id = 0;
  {
    Query q(db_,
            "INSERT INTO instances(algorithm, variant, p, params, config, collective, status, skip_reason, mode,"
            " seconds, stats, tool_version, sweep_id, recorded)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
            // A new row for this sweep: older sweeps keep theirs. Only the same
            // sweep recording the same instance again replaces its own row.
            " ON CONFLICT(algorithm, variant, p, params, config, sweep_id) DO UPDATE SET"
            " collective = excluded.collective, status = excluded.status, skip_reason = excluded.skip_reason,"
            " mode = excluded.mode, seconds = excluded.seconds, stats = excluded.stats,"
            " tool_version = excluded.tool_version, recorded = excluded.recorded"
            " RETURNING id",
            fn);
    auto mode = r.stats.find("mode");
    q.bind(1, r.algorithm).bind(2, r.variant).bind(3, r.p).bind(4, r.params).bind(5, config_).bind(6, r.collective);
    q.bind(7, std::string(to_string(r.status))).bind(8, r.skip_reason);
    q.bind(9, mode == r.stats.end() ? std::string() : mode->second).bind(10, r.seconds).bind(11, stats_to_json(r.stats));
    q.bind(12, tool_version_).bind(13, sweep_id_);
    if (q.step()) id = q.i64(0);
    q.run();
  }
  {
    Query q(db_, "DELETE FROM verdicts WHERE instance_id = ?1", fn);
    q.bind(1, id).run();
  }
  for (size_t k = 0; k < r.verdicts.size(); ++k) {
    const Verdict& v = r.verdicts[k];
    Query q(db_,
            "INSERT INTO verdicts(instance_id, ord, property, status, checks, violations, mode, stats, cx_p, cx_rank,"
            " cx_step, cx_block, cx_peer, cx_expected, cx_actual, cx_message, cx_root)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            fn);
    q.bind(1, id).bind(2, static_cast<uint64_t>(k)).bind(3, v.property).bind(4, std::string(to_string(v.status)));
    q.bind(5, v.checks).bind(6, v.violations).bind(7, v.mode).bind(8, stats_to_json(v.stats));
    if (const auto& cx = v.counterexample) {
      q.bind(9, cx->p).bind(10, cx->rank).bind(11, cx->step).bind(12, cx->block).bind(13, cx->peer);
      q.bind(14, cx->expected).bind(15, cx->actual).bind(16, cx->message);
      if (cx->root_cause)
        q.bind(17, root_cause_to_json(cx->root_cause).dump());
      else
        q.bind_null(17);
    } else {
      for (int c = 9; c <= 17; ++c) q.bind_null(c);
    }
    q.run();
  }
  {
    Query q(db_, "INSERT OR REPLACE INTO sweep_instances(sweep_id, ord, instance_id) VALUES (?1, ?2, ?3)", fn);
    q.bind(1, sweep_id_).bind(2, static_cast<uint64_t>(ord)).bind(3, id).run();
  }
  { Query(db_, "COMMIT", fn).run(); }
}

InstanceResult ResultsStore::load_instance(int64_t id) {
  InstanceResult r;
  {
    Query q(db_,
            "SELECT algorithm, variant, collective, p, params, status, skip_reason, seconds, stats FROM instances"
            " WHERE id = ?1",
            fail_fn_);
    q.bind(1, id);
    if (!q.step()) throw InputError("results store '" + path_ + "': instance " + std::to_string(id) + " is missing");
    r.algorithm = q.text(0);
    r.variant = q.text(1);
    r.collective = q.text(2);
    r.p = q.u64(3);
    r.params = q.text(4);
    r.status = status_from_string(q.text(5));
    r.skip_reason = q.text(6);
    r.seconds = q.real(7);
    r.stats = stats_from_json(q.text(8));
  }
  const std::string sql = std::string(
                              "SELECT property, status, checks, violations, mode, stats, cx_p, cx_rank, cx_step, "
                              "cx_block, cx_peer, cx_expected, cx_actual, cx_message, ") +
                          (root_causes_ ? "cx_root" : "NULL") + " FROM verdicts WHERE instance_id = ?1 ORDER BY ord";
  Query q(db_, sql.c_str(), fail_fn_);
  q.bind(1, id);
  while (q.step()) {
    Verdict v;
    v.property = q.text(0);
    v.status = status_from_string(q.text(1));
    v.checks = q.u64(2);
    v.violations = q.u64(3);
    v.mode = q.text(4);
    v.stats = stats_from_json(q.text(5));
    if (!q.null(6)) {
      Counterexample cx;
      cx.p = q.u64(6);
      if (!q.null(7)) cx.rank = static_cast<Rank>(q.i64(7));
      if (!q.null(8)) cx.step = static_cast<int>(q.i64(8));
      if (!q.null(9)) cx.block = static_cast<Block>(q.i64(9));
      if (!q.null(10)) cx.peer = static_cast<Rank>(q.i64(10));
      cx.expected = q.text(11);
      cx.actual = q.text(12);
      cx.message = q.text(13);
      if (!q.null(14)) cx.root_cause = stored_root_cause(q.text(14));
      v.counterexample = std::move(cx);
    }
    r.verdicts.push_back(std::move(v));
  }
  return r;
}

bool ResultsStore::changed_since_open() const {
  struct stat now {};
  return log_beside(path_) || ::stat(path_.c_str(), &now) != 0 || now.st_ino != opened_.st_ino ||
         now.st_size != opened_.st_size || now.st_mtim.tv_sec != opened_.st_mtim.tv_sec ||
         now.st_mtim.tv_nsec != opened_.st_mtim.tv_nsec;
}

template <class F>
auto ResultsStore::read_consistently(F read) {
  try {
    auto out = read();
    if (!immutable_ || !changed_since_open()) return out;
  } catch (const InputError&) {  // e.g. a page read half before, half after a checkpoint
    if (!immutable_ || !changed_since_open()) throw;
  }
  // A writer touched the store while it was read without locks: read it
  // again as any reader does (shared locks, the log through -shm).
  sqlite3_close_v2(db_);
  db_ = nullptr;
  immutable_ = false;
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) fail(db_ ? sqlite3_errmsg(db_) : "out of memory", rc);
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, kRecordBusyMs);
  return read();
}

std::vector<SweepInfo> ResultsStore::sweeps() {
  return read_consistently([this] { return sweeps_now(); });
}

std::vector<SweepInfo> ResultsStore::sweeps_now() {
  std::lock_guard<std::mutex> g(m_);
  Query q(db_,
          "SELECT id, command, tool_version, config, mode, seed, threads, planned, started, finished, seconds, notes,"
          " (SELECT count(*) FROM sweep_instances si WHERE si.sweep_id = s.id) FROM sweeps s ORDER BY id",
          fail_fn_);
  std::vector<SweepInfo> out;
  while (q.step()) {
    SweepInfo s;
    s.id = q.i64(0);
    s.command = q.text(1);
    s.tool_version = q.text(2);
    s.config = q.text(3);
    s.mode = q.text(4);
    s.seed = q.u64(5);
    s.threads = static_cast<int>(q.i64(6));
    s.planned = q.u64(7);
    s.started = q.text(8);
    if (!q.null(9)) s.finished = q.text(9);
    s.seconds = q.real(10);
    if (!q.null(11)) s.notes = stored_json<std::vector<std::string>>(q.text(11), "notes");
    s.recorded = q.u64(12);
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<SweepInfo> ResultsStore::sweep(int64_t id) {
  for (SweepInfo& s : sweeps())
    if (s.id == id) return std::move(s);
  return std::nullopt;
}

std::vector<InstanceResult> ResultsStore::load_sweep(int64_t id) {
  return read_consistently([this, id] { return load_sweep_now(id); });
}

std::vector<InstanceResult> ResultsStore::load_sweep_now(int64_t id) {
  std::lock_guard<std::mutex> g(m_);
  std::vector<int64_t> ids;
  {
    Query q(db_, "SELECT instance_id FROM sweep_instances WHERE sweep_id = ?1 ORDER BY ord", fail_fn_);
    q.bind(1, id);
    while (q.step()) ids.push_back(q.i64(0));
  }
  std::vector<InstanceResult> out;
  out.reserve(ids.size());
  for (int64_t i : ids) out.push_back(load_instance(i));
  return out;
}

}  // namespace collcheck
