/*
 * Unit tests of judge/explain, the plain words of a failed test: the exact
 * texts for the usual signals and forbidden system calls, the general
 * sentence for anything outside the tables, the NULL-tensor and mask hints
 * of a crash, the messages of non-finite outputs (never written vs
 * computed, with counts and coordinates), and the limits' texts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <math.h>
#include <seccomp.h>
#include <signal.h>

#include "judge/explain.h"

#define SEGV                                                                                       \
    "SIGSEGV: the function read or wrote outside an array (an index past an end or below 0, a "    \
    "NULL pointer, or a local array too large for the stack)"

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_signals(void **state)
{
    static const int table[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGABRT, SIGILL, SIGTRAP,
                                SIGSYS,  SIGKILL, SIGXCPU, SIGXFSZ, SIGPIPE};
    char buf[512], prefix[32];

    (void)state;
    explain_signal(SIGSEGV, buf, sizeof buf);
    assert_string_equal(buf, SEGV);
    explain_signal(SIGFPE, buf, sizeof buf);
    assert_string_equal(buf, "SIGFPE: an integer division by zero (or INT_MIN / -1): a count or a "
                             "size that is 0 here, used as a divisor? (float division by zero "
                             "gives inf, never this)");
    explain_signal(SIGABRT, buf, sizeof buf);
    assert_string_equal(buf, "SIGABRT: the program aborted: an assert() failed or abort() was "
                             "called, or the C library found the heap corrupted (a write past the "
                             "end of a malloc'd block, or a double free)");
    /* every row starts with its own signal's name and says more than that */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        explain_signal(table[i], buf, sizeof buf);
        snprintf(prefix, sizeof prefix, "SIG%s: ", sigabbrev_np(table[i]));
        assert_true(starts_with(buf, prefix));
        assert_true(strlen(buf) > strlen(prefix) + 20);
        assert_null(strstr(buf, "stopped on signal")); /* not the general sentence */
    }
    /* outside the table: the general sentence, naming the signal */
    explain_signal(SIGUSR1, buf, sizeof buf);
    assert_string_equal(buf, "SIGUSR1: the program stopped on signal 10, which it sent itself "
                             "(raise() or kill()?)");
    /* a short buffer stays terminated */
    explain_signal(SIGSEGV, buf, 8);
    assert_string_equal(buf, "SIGSEGV");
}

static void test_syscalls(void **state)
{
    /* the calls docs/sandbox.md names as forbidden at run time, and the
     * families of the attacks in tests/attacks/ */
    static const char *const forbidden[] = {
        "open",         "openat",         "creat",
        "execve",       "execveat",       "fork",
        "vfork",        "clone",          "clone3",
        "socket",       "connect",        "kill",
        "tgkill",       "ptrace",         "ioctl",
        "memfd_create", "io_uring_setup", "unshare",
        "prctl",        "seccomp",        "prlimit64",
        "modify_ldt",   "vmsplice",       "unlink",
        "mkdir",        "getdents64",     "foreign syscall ABI",
    };
    char buf[512], paren[64];

    (void)state;
    explain_syscall("openat", buf, sizeof buf);
    assert_string_equal(buf, "tried to open a file (openat): solutions may not read files; "
                             "everything the function needs arrives in its arguments");
    explain_syscall("clone", buf, sizeof buf);
    assert_string_equal(buf, "tried to start a process or a thread (clone): a solution runs as "
                             "one single-threaded process (no fork(), pthread_create() or "
                             "OpenMP)");
    explain_syscall("socket", buf, sizeof buf);
    assert_string_equal(buf, "tried to use the network (socket): solutions may not communicate "
                             "with anything");
    explain_syscall("execve", buf, sizeof buf);
    assert_string_equal(buf, "tried to run another program (execve): solutions may not start "
                             "programs (no system(), popen() or exec)");
    explain_syscall("kill", buf, sizeof buf);
    assert_string_equal(buf, "tried to send a signal to a process (kill): only abort() and "
                             "raise() may send one, and only to the program itself");
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
        explain_syscall(forbidden[i], buf, sizeof buf);
        snprintf(paren, sizeof paren, " (%s): ", forbidden[i]);
        assert_non_null(strstr(buf, paren));
        assert_null(strstr(buf, "the sandbox forbids")); /* a row of its own */
    }
    /* every other call the kernel has: its name in the text, in parentheses */
    for (int nr = 0; nr < 512; nr++) {
        char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
        if (!name)
            continue;
        explain_syscall(name, buf, sizeof buf);
        snprintf(paren, sizeof paren, " (%s): ", name);
        assert_non_null(strstr(buf, paren));
        free(name);
    }
    explain_syscall("syscall 999", buf, sizeof buf);
    assert_string_equal(buf, "made a system call the sandbox forbids (syscall 999): a solution may "
                             "compute, allocate memory and print, nothing else");
}

static void test_crash(void **state)
{
    const char *one[] = {"mask"}, *two[] = {"mask", "bias"}, *three[] = {"a", "b", "c"};
    char *s;

    (void)state;
    s = explain_crash(SIGSEGV, NULL, 0, NULL);
    assert_string_equal(s, SEGV ".");
    free(s);
    s = explain_crash(SIGSEGV, one, 1, NULL);
    assert_string_equal(s, SEGV ". In this test `mask` is NULL: does the function read it without "
                                "checking?");
    free(s);
    s = explain_crash(SIGBUS, two, 2, "`mask` has shape (T, T).");
    assert_non_null(strstr(s, ". In this test `mask` and `bias` are NULL: does the function read "
                              "them without checking? Hint: `mask` has shape (T, T)."));
    free(s);
    s = explain_crash(SIGSEGV, three, 3, NULL);
    assert_non_null(strstr(s, "In this test `a`, `b` and `c` are NULL"));
    free(s);
    /* a division by zero has nothing to do with NULL tensors */
    s = explain_crash(SIGFPE, one, 1, "`mask` has shape (T, T).");
    assert_null(strstr(s, "NULL"));
    assert_null(strstr(s, "Hint"));
    free(s);

    s = explain_mask_shape("mask", "Tq, Tk", "B", true);
    assert_string_equal(s, "`mask` has shape (Tq, Tk), with no B dimension: one mask serves every "
                           "batch. It may be NULL.");
    free(s);
    s = explain_mask_shape("mask", "B, T", NULL, false);
    assert_string_equal(s, "`mask` has shape (B, T).");
    free(s);
}

/* A float with the given bits. */
static float from_bits(uint32_t bits)
{
    float f;

    memcpy(&f, &bits, sizeof f);
    return f;
}

static void test_nonfinite_words(void **state)
{
    (void)state;
    assert_string_equal(explain_nonfinite_label(CMP_NAN_UNWRITTEN), "NaN, never written");
    assert_string_equal(explain_nonfinite_label(CMP_NAN_COMPUTED), "NaN, computed");
    assert_string_equal(explain_nonfinite_label(CMP_POS_INF), "+inf, computed");
    assert_string_equal(explain_nonfinite_label(CMP_NEG_INF), "-inf, computed");
    assert_string_equal(explain_nonfinite(CMP_NAN_COMPUTED),
                        "your code computed NaN there: exp overflow? 0/0? a division by a zero "
                        "sum?");
    assert_non_null(strstr(explain_nonfinite(CMP_NAN_UNWRITTEN), "fill pattern (0xFFFFFFFF)"));
    assert_non_null(strstr(explain_nonfinite(CMP_POS_INF), "computed +inf there: an overflow"));
    assert_null(explain_nonfinite(CMP_FINITE));
    assert_null(explain_nonfinite_label(CMP_NONFINITE_KINDS));
}

static void test_tensor_message(void **state)
{
    enum { N = 12 };
    int64_t shape[2] = {3, 4};
    float e[N], g[N];
    struct compare_tolerance tol = {.atol = 1e-3, .rtol = 1e-3};
    struct compare_result c;
    volatile float zero = 0;
    char *s;

    (void)state;
    for (int i = 0; i < N; i++)
        e[i] = g[i] = (float)i / 4;

    /* only never written */
    for (int i = 8; i < N; i++)
        g[i] = from_bits(0xFFFFFFFFu);
    compare_tensor(e, g, DT_F32, shape, 2, &tol, &c);
    s = explain_tensor("y", shape, 2, &c, true);
    assert_string_equal(s, "y: 4 of 12 elements are NaN, never written (first at y[2, 0], y[2, "
                           "1], y[2, 2]): still the judge's fill pattern (0xFFFFFFFF), so your "
                           "code never assigned a value there (a loop that stops early or skips "
                           "a part?), or copied it from malloc'd memory it never filled, which "
                           "starts with the same bytes");
    free(s);
    /* a hidden test's (full view only): counts, no coordinates */
    s = explain_tensor("y", shape, 2, &c, false);
    assert_true(starts_with(s, "y: 4 of 12 elements are NaN, never written: still"));
    free(s);

    /* one computed NaN, one -inf, and two finite elements off */
    for (int i = 0; i < N; i++)
        g[i] = e[i];
    g[5] = zero / zero;
    g[6] = -1 / zero;
    g[1] = 7;
    g[9] = 2;
    compare_tensor(e, g, DT_F32, shape, 2, &tol, &c);
    s = explain_tensor("y", shape, 2, &c, true);
    assert_string_equal(s, "y: 1 of 12 elements is NaN, computed (first at y[1, 1]): your code "
                           "computed NaN there: exp overflow? 0/0? a division by a zero sum?; y: "
                           "1 of 12 elements is -inf, computed (first at y[1, 2]): your code "
                           "computed -inf there: an overflow, or log(0) of a sum that came out "
                           "0?; y[0, 1]: expected 0.25, got 7 (2 more elements outside "
                           "tolerance)");
    free(s);
    s = explain_tensor("y", shape, 2, &c, false);
    assert_non_null(strstr(s, "; y: 2 more elements outside tolerance (max abs error 6.75)"));
    assert_null(strstr(s, "["));
    free(s);

    /* finite only: the message students knew */
    for (int i = 0; i < N; i++)
        g[i] = e[i];
    g[11] = 3;
    compare_tensor(e, g, DT_F32, shape, 2, &tol, &c);
    s = explain_tensor("out", shape, 2, &c, true);
    assert_string_equal(s, "out[2, 3]: expected 2.75, got 3 (1 of 12 elements outside tolerance)");
    free(s);
    s = explain_tensor("out", shape, 2, &c, false);
    assert_string_equal(s, "out: 1 of 12 elements outside tolerance (max abs error 0.25)");
    free(s);
}

static void test_ends(void **state)
{
    char *s;

    (void)state;
    s = explain_end(EXPLAIN_TIME_CPU, 1000, 0);
    assert_string_equal(s, "CPU time over the limit of 1000 ms: an endless loop, or far more "
                           "work than needed (a loop nested once too often?)");
    free(s);
    s = explain_end(EXPLAIN_TIME_WALL, 3000, 0);
    assert_string_equal(s, "wall-clock time over the limit of 3000 ms (sleeping, stopped or "
                           "blocked): the program waited for something that never came");
    free(s);
    s = explain_end(EXPLAIN_EXIT, 5, 0);
    assert_string_equal(s, "exit code 5 (the program exited before your function returned: "
                           "exit() called?)");
    free(s);
    s = explain_end(EXPLAIN_EXIT, 0, 0);
    assert_string_equal(s, "the program exited before your function returned (exit(0) called?)");
    free(s);
    s = explain_end(EXPLAIN_IMAGE_TOO_BIG, 3072, 256);
    assert_string_equal(s, "the program's static and thread-local data alone need 3072 MiB, over "
                           "the memory limit of 256 MiB");
    free(s);
    s = explain_end(EXPLAIN_NO_MEMORY, 256, 0);
    assert_true(starts_with(s, "an allocation failed: over the memory limit of 256 MiB ("));
    free(s);
    s = explain_end(EXPLAIN_EXEC_NOMEM, 256, 0);
    assert_non_null(strstr(s, "memory limit of 256 MiB"));
    free(s);
    s = explain_end(EXPLAIN_NO_OUTPUTS, 0, 0);
    assert_non_null(strstr(s, "descriptor 4"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signals),        cmocka_unit_test(test_syscalls),
        cmocka_unit_test(test_crash),          cmocka_unit_test(test_nonfinite_words),
        cmocka_unit_test(test_tensor_message), cmocka_unit_test(test_ends),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
