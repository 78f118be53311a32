// The results database file: its identity (application_id), its schema version (user_version),
// the current schema, the migrations from older versions, and the one safe way to open it.
#pragma once

#include "store/sqlite.h"

#include <string>

namespace opsched::store {

// "opsc": marks the file as an opsched results database (PRAGMA application_id).
inline constexpr std::int64_t kApplicationId = 0x6F707363;
// v1: first layout. v2: run uids (merge), latency percentiles, warp sample durations and SM-active %,
// the IOS cost cache. v3: job claims (batches sharing a database).
inline constexpr int kSchemaVersion = 4;

enum class OpenMode { ReadOnly, ReadWrite };

struct OpenedDatabase {
    Connection connection;
    int fileVersion = 0; // user_version of the file as found (0: created now)
    bool created = false;
    bool migrated = false; // ReadWrite: migrated in the file; ReadOnly: in an in-memory copy
};

// Opens `path`, never modifying a file that is not a healthy opsched database of a version this
// build knows: the file is first opened read-only and checked (SQLite header, application_id,
// user_version, PRAGMA quick_check); only then is it opened for writing (WAL) and migrated.
// ReadWrite creates a missing (or zero-length) file, or fills a blank SQLite file (no tables, no
// marks: what a writer killed while creating the file leaves); several processes may do so at once. ReadOnly migrates
// an older file in memory, so reading an old file never changes it. Throws StoreError with a message that says what the
// file is.
OpenedDatabase openDatabase(const std::string& path, OpenMode mode);

// The current schema, for a fresh file (also sets application_id and user_version), under the
// write lock. Returns false, changing nothing, when the file already holds tables (another
// process created it first).
bool createSchema(Connection& conn);

// Applies the migrations from `fromVersion` (or from the version the file holds by the time the
// write lock is taken, when another writer migrated it meanwhile) to kSchemaVersion inside one
// transaction.
void migrate(Connection& conn, int fromVersion);

} // namespace opsched::store
