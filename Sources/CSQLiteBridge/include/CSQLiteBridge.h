// The C half of the state file's SQLite, for ToastCLI alone: what Swift cannot call itself
// (SQLite's variadic configuration calls).
#ifndef CSQLITE_BRIDGE_H
#define CSQLITE_BRIDGE_H

#include <sqlite3.h>

/// Leaves the WAL as it is when `db` is closed instead of copying it into the database first:
/// what the WAL holds is synced at every commit, and the next open reads it, so the copy at
/// close only delays the end of a run. SQLite's result code.
int csqlite_keep_wal_on_close(sqlite3 *db);

/// After each commit of `db`, `*pages` is the number of pages the WAL holds. This takes the
/// place of SQLite's own copy of a long WAL into the database at a commit (its hook), so that
/// the caller chooses when to copy (`sqlite3_wal_checkpoint_v2`). `pages` must outlive `db`.
void csqlite_count_wal_pages(sqlite3 *db, int *pages);

#endif
