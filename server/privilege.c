/*
 * privilege — how `attnjudge serve` started as root gives root up
 * (privilege.h).
 *
 * Started as root, `attnjudge serve` keeps root only for what needs it:
 * taking its data directory (locked by server.c, then chowned to run_as and
 * made 0700), binding its port (which may be below 1024), and opening the
 * other directories and the access log it was told to use. Then, still
 * with one thread, it moves into a user namespace of its own whose only
 * ids are
 *
 *      inside    outside (the host)
 *      0      -> run_as (attnjudge by default)
 *      65534  -> 65534 (nobody)
 *
 * written by a helper child that stays root on the host for those two
 * writes, and keeps, inside it, only CAP_SETUID and CAP_SETGID (bounding
 * set included, so no exec can regain more). On the host the server is
 * then run_as and nothing else: every file access is run_as's, and its
 * capabilities reach nothing outside its namespace, whose only other id is
 * nobody.
 *
 * Why a namespace rather than setuid(run_as): the judge maps each sandbox
 * to nobody when it runs as root, and the kernel lets only a process with
 * CAP_SETUID over nobody write that mapping (sandbox/namespaces.c); after a
 * plain setuid the sandboxes would run as run_as itself, the owner of the
 * database and the secret. Here the judge still sees itself as root, so
 * its sandboxes run as nobody, who can read neither.
 *
 * Paths: the data directory, the problems, reference and web directories
 * and the access log are opened before the drop and, where run_as cannot
 * reach them by name, used through /proc/self/fd/N from then on: a clone
 * in root's home (mode 0700) serves its ./data, ./problems and ./web. The
 * kernel follows such a name to the open file itself, with no search
 * permission needed on its parents. The data directory counts as reachable
 * only by its absolute name, since SQLite makes the database's name
 * absolute (opened through the descriptor, it keeps /proc/self/fd/N as
 * written: sqlite_fdpath.h); everything else in it (secret, cache,
 * problem versions, machine.json) is opened by names built on data_dir.
 */
#include "server/privilege.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SANDBOX_ID 65534 /* nobody: the sandboxes' id on the host (sandbox/namespaces.c) */
#define MAX_DEPTH 16     /* directory levels handed over under the data directory */

/* What a root server before this change, or `attnjudge user add` as root,
 * may have left in the data directory (and a file system's lost+found):
 * only these are handed to run_as when the directory is still root's (a
 * mistyped data = /etc must not become run_as's). */
static bool ours(const char *name)
{
    static const char *const names[] = {"attnjudge.db", "secret.key", "server.lock", "problems",
                                        "cache",        "lost+found", "lti",         NULL};
    for (const char *const *n = names; *n; n++)
        if (!strncmp(name, *n, strlen(*n)) &&
            (!strcmp(*n, "attnjudge.db") || name[strlen(*n)] == '\0'))
            return true;
    return false;
}

static int lookup_user(const char *name, uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwnam_r(name, &pw, buf, sizeof buf, &res) != 0 || !res) {
        snprintf(err, errlen,
                 "run_as: there is no user '%s' on this machine; create it (useradd --system "
                 "--user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "
                 "%s; 'make' does it as root) or name another (docs/operations.md)",
                 name, name);
        return PRIVILEGE_BAD_CONFIG;
    }
    if (pw.pw_uid == 0) {
        snprintf(err, errlen,
                 "run_as: '%s' is root; name an unprivileged user (or run_as = root to keep "
                 "root, not recommended)",
                 name);
        return PRIVILEGE_BAD_CONFIG;
    }
    if (pw.pw_uid == SANDBOX_ID || pw.pw_gid == SANDBOX_ID) {
        snprintf(err, errlen,
                 "run_as: '%s' has the sandboxes' own id (%d, nobody): they could read the "
                 "data directory; create a dedicated user",
                 name, SANDBOX_ID);
        return PRIVILEGE_BAD_CONFIG;
    }
    *uid = pw.pw_uid;
    *gid = pw.pw_gid;
    return 0;
}

/* Whether the directory dirfd holds nothing but what ours() knows; if not,
 * says what. */
static int only_ours(int dirfd, const char *path, char *err, size_t errlen)
{
    int rc = -1, fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    if (!d) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    rewinddir(d); /* the duplicate shares dirfd's position */
    while ((errno = 0, e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !ours(e->d_name)) {
            snprintf(err, errlen,
                     "the data directory %s belongs to root and holds '%s', which attnjudge "
                     "did not create: refusing to hand it to run_as (is 'data' right?)",
                     path, e->d_name);
            goto out;
        }
    if (errno) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    closedir(d);
    return rc;
}

/* chowns everything below dirfd (not following symbolic links) to uid:gid
 * and takes group and others' permissions away */
static int chown_tree(int dirfd, const char *path, uid_t uid, gid_t gid, int depth, char *err,
                      size_t errlen)
{
    int rc = -1, fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    if (!d) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    rewinddir(d);
    while ((errno = 0, e = readdir(d))) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            ((st.st_uid != uid || st.st_gid != gid) &&
             fchownat(dirfd, e->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0) ||
            (!S_ISLNK(st.st_mode) && (st.st_mode & 077) &&
             fchmodat(dirfd, e->d_name, st.st_mode & 07700, 0) < 0)) {
            snprintf(err, errlen, "%s/%s: %s", path, e->d_name, strerror(errno));
            goto out;
        }
        if (!S_ISDIR(st.st_mode))
            continue;
        if (depth >= MAX_DEPTH) {
            snprintf(err, errlen, "%s/%s: directories nested too deep", path, e->d_name);
            goto out;
        }
        int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            snprintf(err, errlen, "%s/%s: %s", path, e->d_name, strerror(errno));
            goto out;
        }
        char subpath[CONFIG_PATH_MAX + 256];
        snprintf(subpath, sizeof subpath, "%s/%s", path, e->d_name);
        int r = chown_tree(sub, subpath, uid, gid, depth + 1, err, errlen);
        close(sub);
        if (r < 0)
            goto out;
    }
    if (errno) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    closedir(d);
    return rc;
}

/* The data directory (created 0700 and locked by server.c) becomes run_as's:
 * owner of it and of everything in it, mode 0700. Returns its descriptor
 * (close-on-exec), or -1 with a message. */
static int take_data_dir(const char *dir, uid_t uid, gid_t gid, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "data directory %s: %s", dir, strerror(errno));
        goto fail;
    }
    if ((st.st_uid == 0 && only_ours(fd, dir, err, errlen) < 0) ||
        chown_tree(fd, dir, uid, gid, 0, err, errlen) < 0)
        goto fail;
    if (((st.st_uid != uid || st.st_gid != gid) && fchown(fd, uid, gid) < 0) ||
        ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0)) {
        snprintf(err, errlen, "data directory %s: %s", dir, strerror(errno));
        goto fail;
    }
    return fd;
fail:
    /* root could not make it run_as's (read-only, or NFS with root_squash) */
    if (errno == EPERM || errno == EROFS) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n,
                 " (root cannot hand it to run_as there: put the data directory on a local, "
                 "writable file system)");
    }
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Binds and listens on c->bind:c->port while root (ports below 1024). */
static int bind_port(struct config *c, char *err, size_t errlen)
{
    if (c->port < 0) { /* attnjudge worker serves no HTTP */
        c->listen_fd = -1;
        return 0;
    }
    struct sockaddr_storage ss;
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    socklen_t len;
    int one = 1;
    memset(&ss, 0, sizeof ss);
    if (inet_pton(AF_INET, c->bind, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)c->port);
        len = sizeof *in4;
    } else if (inet_pton(AF_INET6, c->bind, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)c->port);
        len = sizeof *in6;
    } else {
        snprintf(err, errlen, "bind: '%s' is not an IPv4 or IPv6 address", c->bind);
        return PRIVILEGE_BAD_CONFIG;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        (ss.ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0) ||
        bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, SOMAXCONN) < 0) {
        snprintf(err, errlen, "cannot listen on %s port %d: %s", c->bind, c->port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    c->listen_fd = fd;
    return 0;
}

/* The access log, created for run_as when it does not exist yet. Returns
 * its descriptor, -1 for none ("-", "off"), or -2 with a message. */
static int open_access_log(const char *path, uid_t uid, gid_t gid, char *err, size_t errlen)
{
    if (!strcmp(path, "-") || !strcmp(path, "off"))
        return -1;
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT) {
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
        if (fd >= 0 && fchown(fd, uid, gid) < 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        snprintf(err, errlen, "access_log %s: %s", path, strerror(errno));
        return -2;
    }
    return fd;
}

/* The first directory of path that the current user cannot search, into
 * why ("" if none: the last component itself is the obstacle). */
static void blocking_dir(const char *path, char *why, size_t len)
{
    char prefix[CONFIG_PATH_MAX];
    why[0] = '\0';
    for (const char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        snprintf(prefix, sizeof prefix, "%.*s", (int)(s - path), path);
        if (access(prefix, X_OK) < 0) {
            struct stat st;
            if (stat(prefix, &st) == 0)
                snprintf(why, len, ": %s (mode %04o) is not searchable by it", prefix,
                         (unsigned)(st.st_mode & 07777));
            else
                snprintf(why, len, ": %s is not searchable by it", prefix);
            return;
        }
    }
}

/* After the drop: c->data_dir stays as it is when run_as can use it by
 * its absolute name abs (SQLite opens the database by that name); else it
 * becomes /proc/self/fd/N of fd, which stays open. */
static int reach_data_dir(struct config *c, int fd, const char *abs, char *err, size_t errlen)
{
    char via[64], why[CONFIG_PATH_MAX + 96];
    if (abs[0] && access(abs, R_OK | W_OK | X_OK) == 0) {
        close(fd);
        return 0;
    }
    snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
    if (access(via, R_OK | W_OK | X_OK) < 0) {
        snprintf(err, errlen,
                 "data directory %s: run_as user '%s' cannot use it although it owns it (%s): "
                 "put it on a file system that keeps owners and modes",
                 c->data_dir, c->run_as, strerror(errno));
        return -1;
    }
    blocking_dir(abs[0] ? abs : c->data_dir, why, sizeof why);
    fprintf(stderr,
            "attnjudge: data directory %s: run_as user '%s' cannot reach it by name%s; it is "
            "used through the descriptor opened as root (%s)\n",
            c->data_dir, c->run_as, why, via);
    snprintf(c->data_dir, sizeof c->data_dir, "%s", via);
    return 0;
}

/* After the drop: path (a buffer of CONFIG_PATH_MAX) names fd's file or
 * directory; when run_as cannot reach it with mode by name, it is
 * rewritten to /proc/self/fd/N and fd kept open, else fd is closed. */
static int reach(char *path, int fd, int mode, const char *what, const char *user, char *err,
                 size_t errlen)
{
    char via[64], why[CONFIG_PATH_MAX + 96];
    if (fd < 0)
        return 0; /* it could not be opened as root either: its user says so later */
    if (access(path, mode) == 0) {
        close(fd);
        return 0;
    }
    snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
    if (access(via, mode) == 0) {
        snprintf(path, CONFIG_PATH_MAX, "%s", via);
        return 0;
    }
    blocking_dir(path, why, sizeof why);
    snprintf(err, errlen, "%s %s: run_as user '%s' may not %s it%s", what, path, user,
             mode & W_OK ? "write" : "read", why);
    return -1;
}

/* Child side of enter_userns: still root on the host, writes the new
 * namespace's maps for the parent once it has unshared. */
static _Noreturn void write_maps(pid_t parent, int go, int report, uid_t uid, gid_t gid)
{
    static const char *const files[] = {"uid_map", "gid_map"};
    char path[64], map[96], msg[160];
    char c;
    if (read(go, &c, 1) != 1)
        _exit(1); /* the parent could not unshare and said so itself */
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "/proc/%d/%s", (int)parent, files[i]);
        snprintf(map, sizeof map, "0 %u 1\n%d %d 1\n", i ? (unsigned)gid : (unsigned)uid,
                 SANDBOX_ID, SANDBOX_ID);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map)) {
            int n = snprintf(msg, sizeof msg, "%s: %s", path, strerror(errno));
            if (write(report, msg, (size_t)n) < 0)
                _exit(1);
            _exit(1);
        }
        close(fd);
    }
    _exit(0);
}

/* Moves this (single-threaded) process into a new user namespace where it
 * is root, mapped to uid:gid outside, and nobody is the only other id. */
static int enter_userns(uid_t uid, gid_t gid, char *err, size_t errlen)
{
    int go[2] = {-1, -1}, report[2] = {-1, -1}, rc = -1, status;
    pid_t parent = getpid(), child = -1;
    if (pipe2(go, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto out;
    }
    if ((child = fork()) < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    if (child == 0) {
        close(go[1]);
        close(report[0]);
        write_maps(parent, go[0], report[1], uid, gid);
    }
    close(go[0]);
    close(report[1]);
    go[0] = report[1] = -1;
    if (unshare(CLONE_NEWUSER) < 0) {
        snprintf(err, errlen, "unshare(CLONE_NEWUSER): %s", strerror(errno));
        goto out;
    }
    if (write(go[1], "g", 1) != 1) {
        snprintf(err, errlen, "the id-map helper is gone: %s", strerror(errno));
        goto out;
    }
    close(go[1]);
    go[1] = -1;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            goto out;
        }
    child = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char msg[160];
        ssize_t n = read(report[0], msg, sizeof msg - 1);
        msg[n > 0 ? n : 0] = '\0';
        snprintf(err, errlen, "cannot map the server's user namespace: %s",
                 msg[0] ? msg : "the helper failed");
        goto out;
    }
    /* become the namespace's root (run_as outside): capabilities stay, but
     * only in this namespace */
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
        snprintf(err, errlen, "setresuid in the server's namespace: %s", strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (child > 0) {
        close(go[1]); /* the helper reads EOF and exits */
        go[1] = -1;
        waitpid(child, NULL, 0);
    }
    for (int i = 0; i < 2; i++) {
        if (go[i] >= 0)
            close(go[i]);
        if (report[i] >= 0)
            close(report[i]);
    }
    return rc;
}

/* Keeps CAP_SETUID and CAP_SETGID (the judge maps its sandboxes to nobody
 * with them) and nothing else, in every set. */
static int keep_setid_caps(char *err, size_t errlen)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    for (int cap = 0; cap < 64; cap++)
        if (cap != CAP_SETUID && cap != CAP_SETGID && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
            errno != EINVAL) {
            snprintf(err, errlen, "PR_CAPBSET_DROP: %s", strerror(errno));
            return -1;
        }
    memset(d, 0, sizeof d);
    d[0].permitted = d[0].effective = (1u << CAP_SETUID) | (1u << CAP_SETGID);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
        syscall(SYS_capset, &h, d) < 0) {
        snprintf(err, errlen, "capset: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int privilege_drop(struct config *c, char *err, size_t errlen)
{
    uid_t uid;
    gid_t gid;
    int rc, data_fd, log_fd = -1, dir_fd[3];
    char data_abs[PATH_MAX];
    char *dirs[3] = {c->problems_dir, c->reference_dir, c->web_dir};
    static const char *const dir_names[3] = {"problems", "reference", "web"};

    if (geteuid() != 0)
        return 0;
    if (!strcmp(c->run_as, "root")) {
        fprintf(stderr, "attnjudge: run_as = root: the server keeps every privilege of root "
                        "(docs/operations.md)\n");
        return 0;
    }
    if ((rc = lookup_user(c->run_as, &uid, &gid, err, errlen)) < 0)
        return rc;
    if ((data_fd = take_data_dir(c->data_dir, uid, gid, err, errlen)) < 0)
        return -1;
    if (!realpath(c->data_dir, data_abs))
        data_abs[0] = '\0'; /* then only the descriptor can stand for it */
    if ((rc = bind_port(c, err, errlen)) < 0)
        return rc;
    if ((log_fd = open_access_log(c->access_log, uid, gid, err, errlen)) == -2)
        return -1;
    for (int i = 0; i < 3; i++)
        dir_fd[i] = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (setgroups(0, NULL) < 0) {
        snprintf(err, errlen, "setgroups: %s", strerror(errno));
        return -1;
    }
    if (enter_userns(uid, gid, err, errlen) < 0 || keep_setid_caps(err, errlen) < 0)
        return -1;
    /* changing ids made the process non-dumpable, which would make its
     * children's /proc files root's: the judge writes its sandboxes' id
     * maps there (sandbox/namespaces.c) */
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) {
        snprintf(err, errlen, "PR_SET_DUMPABLE: %s", strerror(errno));
        return -1;
    }
    umask(077); /* everything the server creates is run_as's alone */
    fprintf(stderr, "attnjudge: running as %s (uid %d); sandboxes run as nobody\n", c->run_as,
            (int)uid);

    if (reach_data_dir(c, data_fd, data_abs, err, errlen) < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (reach(dirs[i], dir_fd[i], R_OK | X_OK, dir_names[i], c->run_as, err, errlen) < 0)
            return -1;
    return reach(c->access_log, log_fd, W_OK, "access_log", c->run_as, err, errlen);
}
