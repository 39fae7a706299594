// Debian's SQLite (libsqlite3-dev), the format of a --state file: only
// ToastCLI/State/Unsafe/SQLiteDatabase.swift imports this.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

#endif
