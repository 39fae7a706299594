#!/usr/bin/env python3
"""A floor for a `--state` checkpoint that finds every screen changed: what SQLite alone takes
to rewrite 50,000 rows of 0.9-1.5 KB (a screen's row holding a few toasts) in one
transaction and sync it, with the state file's settings (WAL, 16 KiB pages, synchronous
FULL, a 64 MiB cache, secure_delete off), through Python's binding of the same libsqlite3.
No row is made, no JSON written: the run's last checkpoint after every screen changed costs
at least this, on top of everything else.

    python3 bench/floors/sqlite-rewrite.py [DIRECTORY]

The database is made in a new temporary directory (inside DIRECTORY when given: put it on the
file system the state lives on) and removed with it at the end; nothing else is touched.
"""
import os
import random
import resource
import shutil
import sqlite3
import sys
import tempfile
import time

arguments = sys.argv[1:]
if len(arguments) > 1 or (arguments and not os.path.isdir(arguments[0])):
    reason = f": {arguments[0]} is not a directory" if len(arguments) == 1 else ""
    print(f"usage: {sys.argv[0]} [DIRECTORY]{reason}", file=sys.stderr)
    sys.exit(2)
folder = tempfile.mkdtemp(prefix="sqlite-rewrite-", dir=arguments[0] if arguments else None)
path = os.path.join(folder, "floor.db")
db = sqlite3.connect(path, isolation_level=None)
db.executescript("""
    PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
    PRAGMA cache_size = -65536; PRAGMA secure_delete = OFF;
    CREATE TABLE screens (serial INTEGER PRIMARY KEY, key NOT NULL, value TEXT NOT NULL);
""")
generator = random.Random(1)


def rows():
    return [(serial, f"u{serial}", '{"x":"%s"}' % ("a" * generator.randint(900, 1500))) for serial in range(50_000)]


def rewrite(batch):
    db.execute("BEGIN IMMEDIATE")
    db.executemany("INSERT OR REPLACE INTO screens (serial, key, value) VALUES (?, ?, ?)", batch)
    db.execute("COMMIT")


rewrite(rows())
for _ in range(3):
    batch = rows()
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    rewrite(batch)
    took, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    print(f"50,000 rows rewritten: {took:.3f} s, CPU {user + system:.3f} s (user {user:.3f}, system {system:.3f})")
print(f"SQLite {sqlite3.sqlite_version}")
db.close()
shutil.rmtree(folder)
