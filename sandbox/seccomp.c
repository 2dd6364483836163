/*
 * seccomp — the two system-call filters and how they are loaded.
 *
 * Filters are compiled to BPF with libseccomp once, in the judge process
 * (libseccomp allocates, so it must not run in a child made by a raw clone
 * of a multi-threaded judge), and loaded in each worker just before it
 * execs, with the raw seccomp(2) call. Both filters kill the whole process
 * on a foreign system-call ABI (i386 int 0x80, x32): a deny-list that only
 * knows x86_64 numbers could otherwise be bypassed through another table.
 *
 * SBX_COMPILE is a deny-list (default allow): gcc, cc1, as and ld make many
 * ordinary calls; the filter removes the kernel surface a compromised
 * compiler could use to escape or to reach the network. Denied calls fail
 * with EPERM so the compiler reports an error instead of hanging.
 *
 * SBX_RUN is an allow-list (default: user notification): only what a static
 * glibc program, malloc, libm and the harness need. Any other call is
 * reported to the sandbox's init, which records its number and kills the
 * program: the verdict names the call (security_violation).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

struct filter_cache {
    pthread_once_t once;
    struct sock_fprog prog;
    char err[200];
};

static struct filter_cache cache[2] = {
    {PTHREAD_ONCE_INIT, {0, NULL}, ""},
    {PTHREAD_ONCE_INIT, {0, NULL}, ""},
};

/* Calls the compiler's deny-list removes. Each line: the threat. */
// clang-format off
static const int compile_denied[] = {
    /* network: no exfiltration, no reaching services on the host */
    SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
    SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4),
    /* inspecting or controlling other processes */
    SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
    SCMP_SYS(pidfd_getfd), SCMP_SYS(kcmp),
    /* changing the filesystem view (the sandbox's own mounts are final) */
    SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot),
    SCMP_SYS(move_mount), SCMP_SYS(open_tree), SCMP_SYS(fsopen), SCMP_SYS(fsconfig),
    SCMP_SYS(fsmount), SCMP_SYS(fspick), SCMP_SYS(mount_setattr),
    SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at),
    /* new namespaces: fresh capabilities to attack the kernel with */
    SCMP_SYS(unshare), SCMP_SYS(setns),
    /* kernel attack surface a compiler never needs */
    SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(bpf),
    SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
    SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(fanotify_init),
    SCMP_SYS(personality), SCMP_SYS(syslog), SCMP_SYS(acct), SCMP_SYS(quotactl),
    /* the machine itself */
    SCMP_SYS(init_module), SCMP_SYS(finit_module), SCMP_SYS(delete_module),
    SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(reboot),
    SCMP_SYS(swapon), SCMP_SYS(swapoff), SCMP_SYS(settimeofday),
    SCMP_SYS(clock_settime), SCMP_SYS(adjtimex), SCMP_SYS(clock_adjtime),
    SCMP_SYS(sethostname), SCMP_SYS(setdomainname), SCMP_SYS(iopl), SCMP_SYS(ioperm),
    /* the x86 local descriptor table: a source of kernel bugs (CVE-2015-5157,
     * CVE-2017-17053) that no compiler touches */
    SCMP_SYS(modify_ldt),
    /* moving pages between pipes and files inside the kernel: Dirty Pipe
     * (CVE-2022-0847) was a splice; the toolchain reads and writes */
    SCMP_SYS(splice), SCMP_SYS(vmsplice), SCMP_SYS(tee), SCMP_SYS(sendfile),
    SCMP_SYS(copy_file_range),
    /* memory policy and other processes' memory: NUMA placement, page
     * migration, remote madvise, memory hidden from the kernel */
    SCMP_SYS(mbind), SCMP_SYS(set_mempolicy), SCMP_SYS(get_mempolicy),
    SCMP_SYS(set_mempolicy_home_node), SCMP_SYS(migrate_pages), SCMP_SYS(move_pages),
    SCMP_SYS(process_madvise), SCMP_SYS(process_mrelease), SCMP_SYS(remap_file_pages),
    SCMP_SYS(memfd_secret), SCMP_SYS(mlock), SCMP_SYS(mlock2), SCMP_SYS(mlockall),
    SCMP_SYS(pkey_alloc), SCMP_SYS(pkey_free), SCMP_SYS(pkey_mprotect),
    /* real-time scheduling: starving the host's other work */
    SCMP_SYS(sched_setattr), SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam),
    /* asynchronous I/O, System V and POSIX IPC, file watching, device nodes:
     * kernel subsystems the toolchain never uses */
    SCMP_SYS(io_setup), SCMP_SYS(io_destroy), SCMP_SYS(io_submit), SCMP_SYS(io_cancel),
    SCMP_SYS(io_getevents), SCMP_SYS(io_pgetevents),
    SCMP_SYS(msgget), SCMP_SYS(msgsnd), SCMP_SYS(msgrcv), SCMP_SYS(msgctl),
    SCMP_SYS(semget), SCMP_SYS(semop), SCMP_SYS(semtimedop), SCMP_SYS(semctl),
    SCMP_SYS(shmget), SCMP_SYS(shmat), SCMP_SYS(shmdt), SCMP_SYS(shmctl),
    SCMP_SYS(mq_open), SCMP_SYS(mq_unlink), SCMP_SYS(mq_timedsend),
    SCMP_SYS(mq_timedreceive), SCMP_SYS(mq_notify), SCMP_SYS(mq_getsetattr),
    SCMP_SYS(inotify_init), SCMP_SYS(inotify_init1), SCMP_SYS(inotify_add_watch),
    SCMP_SYS(fanotify_mark), SCMP_SYS(mknod), SCMP_SYS(mknodat), SCMP_SYS(quotactl_fd),
    /* obsolete calls, still numbered: nothing legitimate calls them */
    SCMP_SYS(uselib), SCMP_SYS(ustat), SCMP_SYS(sysfs), SCMP_SYS(_sysctl),
    SCMP_SYS(vhangup), SCMP_SYS(lookup_dcookie), SCMP_SYS(nfsservctl),
    SCMP_SYS(create_module), SCMP_SYS(get_kernel_syms), SCMP_SYS(query_module),
};
// clang-format on

/* Calls a student's program may make, each with its reason. */
// clang-format off
static const int run_allowed[] = {
    /* the harness's channels and printf debugging (fds are fixed by the
     * sandbox: 0 empty, 1-2 captured, 3 input, 4 result) */
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
    SCMP_SYS(pread64), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
    SCMP_SYS(lseek),
    /* memory: malloc, static glibc start-up, students' own mmap (mmap
     * itself only anonymous: a rule below) */
    SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
    SCMP_SYS(mprotect), SCMP_SYS(madvise),
    /* signals: abort(), students' own handlers */
    SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
    SCMP_SYS(sigaltstack),
    /* ending, identity, time (time is measured outside; these are harmless) */
    SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(getpid), SCMP_SYS(gettid),
    SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday),
    SCMP_SYS(time), SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep),
    SCMP_SYS(sched_yield), SCMP_SYS(getrandom),
    /* static glibc start-up and its locks (single-threaded: no clone) */
    SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address), SCMP_SYS(set_robust_list),
    SCMP_SYS(rseq), SCMP_SYS(futex),
};
// clang-format on

static int build_compile(scmp_filter_ctx ctx)
{
    size_t i;
    for (i = 0; i < sizeof compile_denied / sizeof compile_denied[0]; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), compile_denied[i], 0) < 0)
            return -1;
    /* clone with a namespace flag would give the compiler new capabilities
     * (one rule per flag: the rules for one call are or-ed). clone3's flags
     * live in memory a filter cannot read, so clone3 answers ENOSYS and
     * glibc falls back to clone, which the filter can check. */
    static const unsigned long ns_flags[] = {
        CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET,
        CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWTIME,
    };
    for (i = 0; i < sizeof ns_flags / sizeof ns_flags[0]; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i])) < 0)
            return -1;
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0)
        return -1;
    return 0;
}

static int build_run(scmp_filter_ctx ctx)
{
    size_t i;
    for (i = 0; i < sizeof run_allowed / sizeof run_allowed[0]; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, run_allowed[i], 0) < 0)
            return -1;
    /* abort() and raise() signal the caller itself; the program is always
     * pid 2 of its pid namespace (its init's only child), so no other
     * process can be reached. */
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                         SCMP_A0(SCMP_CMP_EQ, SBX_RUN_PID)) < 0)
        return -1;
    /* mmap only of anonymous memory. Mapping a file descriptor would let a
     * function reach the input file (fd 3) without the copy the harness
     * makes for every call, and the empty function it is measured against
     * pays that copy: a mapping would take part of the harness's own cost
     * off the function's figure. Neither static glibc nor the harness maps
     * a file. */
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
                         SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS)) < 0)
        return -1;
    /* glibc reads its stack limit at start-up; raising a limit stays out */
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0),
                         SCMP_A2(SCMP_CMP_EQ, 0)) < 0)
        return -1;
    /* static glibc asks for /proc/self/exe at start-up and copes without
     * it; answer "no such file" without looking anything up */
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(readlink), 0) < 0)
        return -1;
    /* the one exec the worker makes after loading this filter: the program
     * by descriptor. The descriptor is close-on-exec, no call that could
     * put another file at that number is allowed (no open, dup, fcntl,
     * memfd_create), so a later execveat can only fail. */
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(execveat), 2,
                         SCMP_A0(SCMP_CMP_EQ, SBX_RUN_EXEC_FD),
                         SCMP_A4(SCMP_CMP_EQ, AT_EMPTY_PATH)) < 0)
        return -1;
    return 0;
}

/* Exports ctx's BPF into a heap copy via an in-memory file. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
    int fd = memfd_create("attnjudge-bpf", MFD_CLOEXEC);
    struct stat st;
    void *buf = NULL;
    int rc = -1;

    if (fd < 0)
        return -1;
    if (seccomp_export_bpf(ctx, fd) < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
        st.st_size % (off_t)sizeof(struct sock_filter) != 0)
        goto out;
    buf = malloc((size_t)st.st_size);
    if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
        goto out;
    prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
    prog->filter = buf;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    close(fd);
    return rc;
}

static void build_policy(enum sbx_policy policy)
{
    struct filter_cache *c = &cache[policy];
    uint32_t def = policy == SBX_RUN ? SCMP_ACT_NOTIFY : SCMP_ACT_ALLOW;
    scmp_filter_ctx ctx = seccomp_init(def);

    if (!ctx) {
        snprintf(c->err, sizeof c->err, "seccomp_init failed");
        return;
    }
    if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
        /* no_new_privs is set by the worker itself, before loading */
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0) {
        snprintf(c->err, sizeof c->err, "seccomp_attr_set failed");
        goto out;
    }
    if ((policy == SBX_RUN ? build_run(ctx) : build_compile(ctx)) < 0) {
        snprintf(c->err, sizeof c->err, "seccomp_rule_add failed");
        goto out;
    }
    if (export_bpf(ctx, &c->prog) < 0)
        snprintf(c->err, sizeof c->err, "seccomp_export_bpf failed: %s", strerror(errno));
out:
    seccomp_release(ctx);
}

static void build_compile_once(void)
{
    build_policy(SBX_COMPILE);
}
static void build_run_once(void)
{
    build_policy(SBX_RUN);
}

const struct sock_fprog *sbx_seccomp_program(enum sbx_policy policy, char *err, size_t errlen)
{
    struct filter_cache *c = &cache[policy];
    pthread_once(&c->once, policy == SBX_RUN ? build_run_once : build_compile_once);
    if (!c->prog.filter) {
        snprintf(err, errlen, "building the %s seccomp filter: %s",
                 policy == SBX_RUN ? "run" : "compile", c->err);
        return NULL;
    }
    return &c->prog;
}

int sbx_seccomp_load(const struct sock_fprog *prog, bool want_listener)
{
    unsigned long flags = want_listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
    if (rc < 0)
        return -1;
    return want_listener ? (int)rc : 0;
}

void sbx_seccomp_name(long nr, char *buf, size_t len)
{
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, (int)nr);
    if (name)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "syscall %ld", nr);
    free(name);
}
