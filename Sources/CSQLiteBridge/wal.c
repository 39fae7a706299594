#include "CSQLiteBridge.h"

int csqlite_keep_wal_on_close(sqlite3 *db) {
    int kept = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &kept);
}
