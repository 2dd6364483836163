/*
 * sqlite_fdpath — a SQLite VFS that opens files under /proc/self/fd/N
 * (sqlite_fdpath.h).
 *
 * A server started as root may keep its data directory open across the
 * privilege drop and use it as /proc/self/fd/N (privilege.c) when run_as
 * cannot reach it by name, e.g. ./data in a clone under root's 0700 home.
 * The kernel follows such a name to the open directory itself, with no
 * search permission needed on its parents. SQLite does not let the kernel
 * do it: its unix VFS makes every database name absolute and resolves each
 * symbolic link in it (xFullPathname), turning /proc/self/fd/N back into
 * /root/attnjudge/data, which run_as cannot reach.
 *
 * The VFS here is SQLite's default one with a single change: names under
 * /proc/self/fd/ are taken as they are written. Every file SQLite opens
 * for the database (the journal, the WAL and its -shm index) is named
 * from that full name, so all of them are opened through the descriptor.
 * Such a name is absolute and does not change while the process runs; the
 * descriptor is the one privilege.c holds for the process's lifetime.
 */
#include "server/sqlite_fdpath.h"

#include <pthread.h>
#include <string.h>

#include <sqlite3.h>

#define FDPATH_PREFIX "/proc/self/fd/"

static sqlite3_vfs fdpath_vfs;
static sqlite3_vfs *base_vfs; /* SQLite's default, which does the rest */
static int registered;        /* written once, under fdpath_once */
static pthread_once_t fdpath_once = PTHREAD_ONCE_INIT;

static int full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
    (void)vfs;
    size_t len = strlen(name);
    if (strncmp(name, FDPATH_PREFIX, strlen(FDPATH_PREFIX)))
        return base_vfs->xFullPathname(base_vfs, name, n, out);
    if (n <= 0 || len >= (size_t)n)
        return SQLITE_CANTOPEN;
    memcpy(out, name, len + 1);
    return SQLITE_OK;
}

static void fdpath_register(void)
{
    if (sqlite3_initialize() != SQLITE_OK || !(base_vfs = sqlite3_vfs_find(NULL)))
        return;
    /* the same VFS (methods, app data, file size) under another name: only
     * xFullPathname differs */
    fdpath_vfs = *base_vfs;
    fdpath_vfs.zName = "attnjudge-fdpath";
    fdpath_vfs.pNext = NULL;
    fdpath_vfs.xFullPathname = full_pathname;
    registered = sqlite3_vfs_register(&fdpath_vfs, 0) == SQLITE_OK;
}

const char *sqlite_fdpath_vfs(const char *path)
{
    if (strncmp(path, FDPATH_PREFIX, strlen(FDPATH_PREFIX)))
        return NULL;
    pthread_once(&fdpath_once, fdpath_register);
    return registered ? fdpath_vfs.zName : NULL;
}
