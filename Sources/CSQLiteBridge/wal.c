#include "CSQLiteBridge.h"

int csqlite_keep_wal_on_close(sqlite3 *db) {
    int kept = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &kept);
}

static int record_wal_pages(void *pages, sqlite3 *db, const char *name, int count) {
    (void)db;
    (void)name;
    *(int *)pages = count;
    return SQLITE_OK;
}

void csqlite_count_wal_pages(sqlite3 *db, int *pages) {
    sqlite3_wal_hook(db, record_wal_pages, pages);
}
