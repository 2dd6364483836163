/*
 * sqlite_fdpath — SQLite files opened through a descriptor's name,
 * /proc/self/fd/N/... (docs/operations.md, "Privileges").
 */
#ifndef ATTNJUDGE_SERVER_SQLITE_FDPATH_H
#define ATTNJUDGE_SERVER_SQLITE_FDPATH_H

/* The VFS that sqlite3_open_v2 must be given for path: for a path under
 * /proc/self/fd/ a VFS (registered on first use, not as the default) that
 * opens it as it is written, where SQLite's own would resolve the magic
 * link to the directory's name, which the process may not be allowed to
 * reach; NULL (SQLite's default VFS) for any other path, or when the VFS
 * cannot be registered (the open then fails with SQLite's message). */
const char *sqlite_fdpath_vfs(const char *path);

#endif
