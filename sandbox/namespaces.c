/*
 * namespaces — making the sandbox's processes.
 *
 * The sandbox's init is created by clone3() directly into new user, mount,
 * pid, network, IPC and UTS namespaces, with a pidfd so the judge can wait
 * for it and kill it without pid-reuse races. Being the first process of
 * its pid namespace, its death takes every process of the sandbox with it:
 * nothing can be left behind.
 *
 * The user namespace maps exactly one id: inside, the sandbox is uid/gid
 * SBX_INNER_ID (not 0, so exec drops the capabilities the creator had);
 * outside, it is the judge's own uid, or nobody when the judge runs as root,
 * so that any access the kernel checks against the host is that of an
 * unprivileged user.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define NOBODY_ID 65534

pid_t sbx_clone_sandbox(int *pidfd)
{
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                 CLONE_NEWUTS | CLONE_PIDFD;
    args.pidfd = (uint64_t)(uintptr_t)pidfd;
    args.exit_signal = SIGCHLD;
    return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

pid_t sbx_raw_fork(void)
{
    return (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
}

static int write_proc_file(pid_t pid, const char *file, const char *text, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "open %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = write(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    if (n != (ssize_t)strlen(text)) {
        snprintf(err, errlen, "write %s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

int sbx_write_id_maps(pid_t child, char *err, size_t errlen)
{
    char map[64];
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (uid == 0) {
        uid = NOBODY_ID;
        gid = NOBODY_ID;
    } else {
        /* an unprivileged writer may map its own gid only after giving
         * up setgroups(2) in the namespace; as root, init drops the
         * supplementary groups itself instead (they would otherwise stay
         * root's, e.g. group 0) */
        if (write_proc_file(child, "setgroups", "deny", err, errlen) < 0)
            return -1;
    }
    snprintf(map, sizeof map, "%d %d 1\n", SBX_INNER_ID, (int)uid);
    if (write_proc_file(child, "uid_map", map, err, errlen) < 0)
        return -1;
    snprintf(map, sizeof map, "%d %d 1\n", SBX_INNER_ID, (int)gid);
    return write_proc_file(child, "gid_map", map, err, errlen);
}
