#pragma once
// Reading a collcheck results store (SQLite) from the tests, read-only, with
// a 2 s busy timeout so that a sweep writing it at the same time is no
// failure (results store and MPI tests); and running raw SQL on one (to
// spoil it, or turn it into an older schema).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/report_json.hpp"

namespace collcheck::test {

// Runs `statements` on the store at `path` (a test failure if they fail).
inline void execute(const std::string& path, const std::string& statements) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &err), SQLITE_OK)
      << statements << ": " << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// The rows of `sql` as text (NULL: "<null>"); a "stats" column (JSON) is
// given without its timing keys. quiet: a store that is not there yet (or
// has no tables yet) is no test failure, just no rows.
inline std::vector<std::vector<std::string>> table(const std::string& db, const std::string& sql, bool quiet = false) {
  std::vector<std::vector<std::string>> out;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr);
    if (!quiet) {
      EXPECT_EQ(rc, SQLITE_OK) << sqlite3_errmsg(h) << "\n" << sql;
    }
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        std::string v = t ? reinterpret_cast<const char*>(t) : "<null>";
        if (t && std::string(sqlite3_column_name(st, c)) == "stats") {
          nlohmann::json j = nlohmann::json::parse(v);
          drop_timing(j);
          v = j.dump();
        }
        row.push_back(v);
      }
      out.push_back(std::move(row));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

// One integer from the store: the first column of the first row (NULL: 0);
// -1 if there is no row or the store cannot be read (yet).
inline int64_t query(const std::string& db, const std::string& sql, bool quiet = true) {
  sqlite3* h = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr);
    if (!quiet) {
      EXPECT_EQ(rc, SQLITE_OK) << sqlite3_errmsg(h) << "\n" << sql;
    }
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return v;
}

// PRAGMA integrity_check's answer ("ok" for a sound file).
inline std::string integrity(const std::string& db) {
  const auto rows = table(db, "PRAGMA integrity_check");
  return rows.empty() || rows[0].empty() ? "no answer" : rows[0][0];
}

}  // namespace collcheck::test
