/*
 * Unit tests of judge/bench_session.c: one sandboxed program serving a
 * benchmark's calls (docs/performance.md, "What is timed"). Real
 * sandboxes, on softmax-stable, with programs built from text by the
 * judge's own compile path (program_from_text):
 *
 * - every call gets the inputs the caller made for it and hands back its
 *   outputs, checked here, in order, until the caller says stop;
 * - the clock counts the function's own work and not the process's start
 *   nor the copying of 8 MB of inputs in and outputs out;
 * - the outputs are read when the program says it returned: a record
 *   forged by the function before it wrote anything yields the judge's
 *   NaN poison, never a result computed afterwards;
 * - the heap the caller asks for is grown and touched before the call,
 *   and the function's allocations are served from it;
 * - a call that crashes ends the session, unfinished and not counted;
 * - a failure of the caller's hook is the judge's failure, said so.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/bench_session.h"
#include "judge/cache.h"
#include "judge/judge.h"
#include "util/fs.h"

#define MAX_CALLS 8

struct fixture {
    char data[64];
    struct problem *p;
    struct judge_ctx *ctx;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    char err[PROBLEM_ERR_LEN];

    if (!fx)
        return -1;
    strcpy(fx->data, "/tmp/attnjudge-session-XXXXXX");
    if (!mkdtemp(fx->data))
        return -1;
    fx->p = problem_load("problems/softmax-stable", "reference", err, sizeof err);
    if (!fx->p) {
        fprintf(stderr, "problem_load: %s\n", err);
        return -1;
    }
    fx->ctx = judge_open(fx->data, err, sizeof err);
    if (!fx->ctx) {
        fprintf(stderr, "judge_open: %s\n", err);
        return -1;
    }
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    int rc;

    judge_close(fx->ctx);
    problem_free(fx->p);
    rc = nftw(fx->data, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(fx);
    return rc;
}

/* The program of softmax_rows with this body, built as the judge builds a
 * trusted program of its own. */
static int program(struct fixture *fx, const char *name, const char *body)
{
    char src[4096], dir[4096], err[512];
    int exe = -1;

    snprintf(src, sizeof src,
             "#include <math.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
             "void softmax_rows(const float *x, float *y, int rows, int cols)\n{\n%s\n}\n",
             body);
    if (program_from_text(fx->ctx, fx->p, src, strlen(src), name, dir, sizeof dir, &exe, err,
                          sizeof err) < 0)
        fail_msg("program_from_text %s: %s", name, err);
    return exe;
}

/* A correct softmax, in float, for the honest programs. */
static const char honest[] = "for (int r = 0; r < rows; r++) {\n"
                             "    const float *xr = x + (size_t)r * cols;\n"
                             "    float *yr = y + (size_t)r * cols, m = xr[0], s = 0;\n"
                             "    for (int c = 1; c < cols; c++) if (xr[c] > m) m = xr[c];\n"
                             "    for (int c = 0; c < cols; c++) s += yr[c] = expf(xr[c] - m);\n"
                             "    for (int c = 0; c < cols; c++) yr[c] /= s;\n"
                             "}";

/* What the hooks saw, call by call. */
struct calls {
    const struct problem *p;
    int64_t dims[2];   /* rows, cols */
    int want;          /* calls before returned() says stop */
    uint32_t heap_mib; /* the heap the harness makes ready */
    int fail_at;       /* returned() of this call fails (-1: none) */
    int inputs_for[MAX_CALLS], n_inputs;
    double ms[MAX_CALLS];
    int rows_ok[MAX_CALLS]; /* rows of the outputs summing to 1 */
    int nan_outputs[MAX_CALLS];
    int n_returned;
};

static int hook_inputs(void *arg, int k, struct test_data *d, char *err, size_t errlen)
{
    struct calls *c = arg;
    const struct test_case *sample = &c->p->tests[0];

    if (c->n_inputs < MAX_CALLS)
        c->inputs_for[c->n_inputs++] = k;
    /* a seed of each call's own, as the benchmark's are */
    return test_data_make(c->p, c->dims, sample->scalars, 1000 + (uint64_t)k, sample->gen,
                          sample->is_null, d, err, errlen);
}

static int hook_returned(void *arg, int k, const struct test_data *d, double ms,
                         const struct harness_result *hr, char *err, size_t errlen)
{
    struct calls *c = arg;
    int out = -1;

    (void)d;
    for (int i = 0; i < c->p->n_params; i++)
        if (param_is_output(&c->p->params[i]))
            out = i;
    assert_true(out >= 0 && k < MAX_CALLS && hr->outputs[out]);
    const float *y = (const float *)hr->outputs[out];
    int64_t rows = c->dims[0], cols = c->dims[1];
    c->ms[k] = ms;
    for (int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (int64_t j = 0; j < cols; j++)
            s += y[r * cols + j];
        c->rows_ok[k] += fabs(s - 1) < 1e-3;
        c->nan_outputs[k] += isnan(s);
    }
    c->n_returned++;
    if (k == c->fail_at) {
        snprintf(err, errlen, "the caller failed at call %d", k);
        return -1;
    }
    return k + 1 < c->want ? 1 : 0;
}

static int session(struct fixture *fx, int exe, struct calls *c, struct bench_session_end *end,
                   char *err, size_t errlen)
{
    const struct bench_session_hooks hooks = {c, hook_inputs, hook_returned};
    struct sbx_limits lim;

    c->p = fx->p;
    run_limits(&fx->p->tests[0].limits, false, &lim);
    lim.cpu_ms = 20000; /* the whole session, generous under the sanitizers */
    lim.wall_ms = 60000;
    return bench_session_run(fx->p, c->dims, fx->p->tests[0].scalars, exe, &lim, c->heap_mib,
                             &hooks, end, err, errlen);
}

/* Three calls, each on the inputs made for it, each checked, in order;
 * returned() saying 0 ends the session as finished. */
static void test_calls_in_order(void **state)
{
    struct fixture *fx = *state;
    struct calls c = {.dims = {64, 257}, .want = 3, .fail_at = -1};
    struct bench_session_end end;
    char err[512];
    int exe = program(fx, "honest.c", honest);

    assert_int_equal(session(fx, exe, &c, &end, err, sizeof err), 0);
    assert_true(end.finished);
    assert_false(end.broke_protocol);
    assert_int_equal(end.calls, 3);
    assert_int_equal(c.n_inputs, 3);
    assert_int_equal(c.n_returned, 3);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(c.inputs_for[k], k);
        assert_int_equal(c.rows_ok[k], 64); /* every row of every call */
        assert_true(c.ms[k] >= 0);
    }
    sbx_result_free(&end.res);
    close(exe);
}

/* The clock: an empty function at 8 MB of inputs and outputs measures
 * under two milliseconds (the process's start and the copies are outside
 * the window), a function that burns a fixed loop measures it. */
static void test_clock_counts_the_function(void **state)
{
    struct fixture *fx = *state;
    struct calls empty = {.dims = {2048, 1024}, .want = 2, .fail_at = -1};
    struct calls spin = {.dims = {2048, 1024}, .want = 1, .fail_at = -1};
    struct bench_session_end end;
    char err[512];
    int e = program(fx, "empty.c", "(void)x; (void)y; (void)rows; (void)cols;");
    int s = program(fx, "spin.c",
                    "volatile unsigned long n = 0;\n"
                    "for (unsigned long i = 0; i < 300000000UL; i++) n += i;\n"
                    "(void)x; (void)y; (void)rows; (void)cols;");

    assert_int_equal(session(fx, e, &empty, &end, err, sizeof err), 0);
    assert_true(end.finished);
    sbx_result_free(&end.res);
    assert_true(empty.ms[0] < 2.0 && empty.ms[1] < 2.0);

    assert_int_equal(session(fx, s, &spin, &end, err, sizeof err), 0);
    assert_true(end.finished);
    sbx_result_free(&end.res);
    /* 300 million dependent adds through memory: well over 50 ms on any
     * machine this runs on, and all of it counted */
    assert_true(spin.ms[0] > 50.0);
    close(e);
    close(s);
}

/* The function writes the harness's "returned" record itself before
 * computing: the judge reads the outputs at that record, so it finds its
 * own NaN poison there, not the honest result computed afterwards. */
static void test_forged_return_reads_poison(void **state)
{
    struct fixture *fx = *state;
    struct calls c = {.dims = {64, 257}, .want = 1, .fail_at = -1};
    struct bench_session_end end;
    char err[512], body[2048];

    snprintf(body, sizeof body,
             "const unsigned record[4] = {0x4e544552u, 0, 0, 0};\n"
             "if (write(4, record, sizeof record) < 0) return;\n"
             "volatile unsigned long n = 0;\n"
             "for (unsigned long i = 0; i < 50000000UL; i++) n += i;\n%s",
             honest);
    int exe = program(fx, "forged.c", body);

    assert_int_equal(session(fx, exe, &c, &end, err, sizeof err), 0);
    assert_int_equal(c.n_returned, 1);
    assert_int_equal(c.rows_ok[0], 0);
    assert_int_equal(c.nan_outputs[0], 64);
    sbx_result_free(&end.res);
    close(exe);
}

/* How far one call of exe grew its heap (as the harness said), with
 * heap_mib MiB of heap made ready. */
static uint64_t heap_grew(struct fixture *fx, int exe, uint32_t heap_mib)
{
    struct calls c = {.dims = {64, 257}, .want = 1, .fail_at = -1, .heap_mib = heap_mib};
    struct bench_session_end end;
    char err[512];

    assert_int_equal(session(fx, exe, &c, &end, err, sizeof err), 0);
    assert_true(end.finished);
    assert_int_equal(c.rows_ok[0], 64);
    sbx_result_free(&end.res);
    return end.heap_grew;
}

/* The heap: a 16 MiB allocation comes from the heap, not from a mapping
 * of its own (which a malloc that size gets by default), so the call
 * reports the heap grown by as much; with 24 MiB made ready it fits in
 * them and grows nothing; with 8 MiB it grows by the rest. */
static void test_heap_made_ready(void **state)
{
    struct fixture *fx = *state;
    char body[4096];
    const uint64_t mib = 1u << 20;

    snprintf(body, sizeof body,
             "char *volatile b = malloc(16u << 20);\n"
             "if (b) for (size_t i = 0; i < (16u << 20); i += 4096) b[i] = 1;\n"
             "free(b);\n%s",
             honest);
    int a = program(fx, "alloc16.c", body);

    uint64_t none = heap_grew(fx, a, 0);
    assert_true(none >= 16 * mib && none < 20 * mib);
    assert_true(heap_grew(fx, a, 24) == 0);
    uint64_t part = heap_grew(fx, a, 8);
    assert_true(part >= 7 * mib && part < 12 * mib);
    close(a);
}

/* A crash in the first call: the session ends unfinished, no call
 * counted, the process's end kept for the caller to classify. */
static void test_crash_ends_the_session(void **state)
{
    struct fixture *fx = *state;
    struct calls c = {.dims = {64, 257}, .want = 3, .fail_at = -1};
    struct bench_session_end end;
    char err[512];
    int exe = program(fx, "crash.c", "(void)x; (void)y; (void)rows; (void)cols; abort();");

    assert_int_equal(session(fx, exe, &c, &end, err, sizeof err), 0);
    assert_false(end.finished);
    assert_false(end.broke_protocol);
    assert_int_equal(end.calls, 0);
    assert_int_equal(c.n_returned, 0);
    assert_int_equal(end.res.status, SBX_SIGNALED);
    sbx_result_free(&end.res);
    close(exe);
}

/* returned() failing is the judge's failure: -1 and its message. */
static void test_hook_failure_is_the_judges(void **state)
{
    struct fixture *fx = *state;
    struct calls c = {.dims = {64, 257}, .want = 3, .fail_at = 1};
    struct bench_session_end end;
    char err[512] = "";
    int exe = program(fx, "honest2.c", honest);

    assert_int_equal(session(fx, exe, &c, &end, err, sizeof err), -1);
    assert_non_null(strstr(err, "the caller failed at call 1"));
    assert_int_equal(c.n_returned, 2);
    close(exe);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_in_order),
        cmocka_unit_test(test_clock_counts_the_function),
        cmocka_unit_test(test_forged_return_reads_poison),
        cmocka_unit_test(test_heap_made_ready),
        cmocka_unit_test(test_crash_ends_the_session),
        cmocka_unit_test(test_hook_failure_is_the_judges),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
