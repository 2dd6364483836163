/*
 * fsview — the filesystem a sandboxed process sees.
 *
 * Built by the sandbox's init in its private mount namespace, before any
 * untrusted code runs, on a fresh tmpfs that becomes the root by
 * pivot_root; the host's tree is then detached, so no path leads back to it.
 *
 * SBX_RUN: the root is an empty, read-only tmpfs. The program is executed
 * from a descriptor and needs no file at all: there is nothing to read,
 * nothing to execute and nowhere to write.
 *
 * SBX_COMPILE: the toolchain only. Read-only binds of /usr (and the
 * top-level /bin, /lib, /lib64, /sbin as the host has them: symlinks into
 * /usr on a merged-/usr Debian), /etc/ld.so.cache for the compiler's own
 * dynamic libraries, /dev/null, and two small private tmpfs: /work (the
 * sources, the objects, the program) and /tmp (the compiler's temporaries).
 * Nothing else of /etc (no passwd, shadow, hostname), no /proc (no
 * environ, no other processes), no /home, /root, /var or the judge's data
 * directory: `#include "/etc/shadow"` finds no file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* The mount point of the new root in the old tree: any existing directory
 * would do, as the namespace is private. */
#define NEWROOT "/tmp"

static const char *const top_names[4] = {"bin", "lib", "lib64", "sbin"};

void sbx_view_plan(struct sbx_view_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    for (int i = 0; i < 4; i++) {
        char path[32];
        struct stat st;
        snprintf(plan->top[i].name, sizeof plan->top[i].name, "%s", top_names[i]);
        snprintf(path, sizeof path, "/%s", top_names[i]);
        if (lstat(path, &st) < 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(path, plan->top[i].target, sizeof plan->top[i].target - 1);
            if (n <= 0)
                continue;
            plan->top[i].target[n] = '\0';
            plan->top[i].is_link = true;
            plan->top[i].present = true;
        } else if (S_ISDIR(st.st_mode)) {
            plan->top[i].present = true;
        }
    }
    plan->have_ld_cache = access("/etc/ld.so.cache", R_OK) == 0;
}

/* Async-signal-safe path join into a caller's buffer. */
static const char *join(char *buf, size_t len, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + 1 + lb + 1 > len)
        return NULL;
    memcpy(buf, a, la);
    buf[la] = '/';
    memcpy(buf + la + 1, b, lb + 1);
    return buf;
}

/* Read-only bind of host path src at dst (dst must exist). */
static int bind_ro(const char *src, const char *dst, unsigned long extra)
{
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
        return -1;
    return mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | extra, NULL);
}

static int make_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* A private tmpfs of size bytes at path, owned by the sandbox's user. */
static int mount_tmpfs(const char *path, int64_t size, const char *mode)
{
    char opts[96];
    /* snprintf is not on the async-signal-safe list, but glibc's takes no
     * lock for a plain string buffer */
    snprintf(opts, sizeof opts, "size=%lld,mode=%s,uid=%d,gid=%d", (long long)size, mode,
             SBX_INNER_ID, SBX_INNER_ID);
    return mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts);
}

static int build_compile_view(const struct sbx_limits *lim, const struct sbx_view_plan *plan,
                              const char **what)
{
    char path[PATH_MAX], src[32];

    *what = "bind /usr";
    if (mkdir(NEWROOT "/usr", 0755) < 0 || bind_ro("/usr", NEWROOT "/usr", MS_NODEV) < 0)
        return -1;
    *what = "top-level toolchain directories";
    for (int i = 0; i < 4; i++) {
        const typeof(plan->top[0]) *t = &plan->top[i];
        if (!t->present || !join(path, sizeof path, NEWROOT, t->name))
            continue;
        if (t->is_link) {
            if (symlink(t->target, path) < 0)
                return -1;
        } else {
            if (!join(src, sizeof src, "", t->name) || mkdir(path, 0755) < 0 ||
                bind_ro(src, path, MS_NODEV) < 0)
                return -1;
        }
    }
    *what = "/etc/ld.so.cache";
    if (mkdir(NEWROOT "/etc", 0755) < 0)
        return -1;
    if (plan->have_ld_cache &&
        (make_file(NEWROOT "/etc/ld.so.cache") < 0 ||
         bind_ro("/etc/ld.so.cache", NEWROOT "/etc/ld.so.cache", MS_NODEV) < 0))
        return -1;
    *what = "/dev/null";
    if (mkdir(NEWROOT "/dev", 0755) < 0 || make_file(NEWROOT "/dev/null") < 0 ||
        bind_ro("/dev/null", NEWROOT "/dev/null", MS_NOEXEC) < 0)
        return -1;
    /* bind_ro made it read-only; /dev/null must accept writes */
    if (mount(NULL, NEWROOT "/dev/null", NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NOEXEC, NULL) <
        0)
        return -1;
    *what = "/work and /tmp";
    if (mkdir(NEWROOT "/work", 0755) < 0 || mkdir(NEWROOT "/tmp", 0755) < 0 ||
        mount_tmpfs(NEWROOT "/work", lim->tmpfs_bytes, "0700") < 0 ||
        mount_tmpfs(NEWROOT "/tmp", lim->tmpfs_bytes, "0700") < 0)
        return -1;
    return 0;
}

int sbx_view_enter(enum sbx_policy policy, const struct sbx_limits *lim,
                   const struct sbx_view_plan *plan, const char **what)
{
    *what = "make mounts private";
    /* nothing done here may propagate back to the host's mounts */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return -1;
    *what = "mount the new root";
    if (mount("tmpfs", NEWROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=65536,mode=0755") < 0)
        return -1;
    if (policy == SBX_COMPILE && build_compile_view(lim, plan, what) < 0)
        return -1;
    *what = "pivot_root";
    if (chdir(NEWROOT) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
        return -1;
    /* the old root is now stacked under the new one: detach it entirely */
    *what = "detach the host's tree";
    if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
        return -1;
    *what = "make the root read-only";
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        return -1;
    return 0;
}
