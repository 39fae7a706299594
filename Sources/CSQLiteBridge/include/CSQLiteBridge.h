// The C half of the state file's SQLite, for ToastCLI alone: what Swift cannot call itself
// (SQLite's variadic configuration calls).
#ifndef CSQLITE_BRIDGE_H
#define CSQLITE_BRIDGE_H

#include <sqlite3.h>

/// Leaves the WAL as it is when `db` is closed instead of copying it into the database first:
/// what the WAL holds is synced at every commit, and the next open reads it, so the copy at
/// close only delays the end of a run. SQLite's result code.
int csqlite_keep_wal_on_close(sqlite3 *db);

#endif
