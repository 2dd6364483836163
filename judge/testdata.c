/*
 * testdata — a test's inputs, its expected outputs and one sandboxed run
 * (testdata.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/dims.h"
#include "judge/errbuf.h"
#include "judge/testdata.h"
#include "util/fs.h"

void test_data_free(const struct problem *p, struct test_data *d)
{
    for (int i = 0; i < p->n_params; i++)
        free(d->t.data[i]);
    if (d->input_fd >= 0)
        close(d->input_fd);
    memset(d, 0, sizeof *d);
    d->input_fd = -1;
}

uint64_t test_data_seed(const struct judge_ctx *ctx, const struct problem *p,
                        const struct test_case *tc)
{
    return tc->has_seed ? tc->seed : secret_hidden_seed(&ctx->secret, p->slug, tc->name);
}

/* The input blob of a test as cached: <cache>/<test>.<seed>.in, next to
 * its expected outputs (the blob depends on what they depend on: the
 * reference cache's key covers problem.json and the protocol header, the
 * seed is in the name, and cache.c's CACHE_VERSION the generator). Generating the
 * inputs costs more CPU time than most solutions take (twelve draws per
 * normal element); reading them back costs a copy. */
int test_data_cached(const struct problem *p, const char *cache, const struct test_case *tc,
                     uint64_t seed, struct test_data *d, char *err, size_t errlen)
{
    char path[4300];
    int64_t blob = 0;
    struct stat sb;

    memset(d, 0, sizeof *d);
    d->input_fd = -1;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind != PARAM_TENSOR)
            continue;
        d->t.is_null[i] = tc->is_null[i];
        if (tc->is_null[i])
            continue;
        int64_t n = dims_tensor_elems(p, i, tc->dims);
        if (n <= 0)
            return 1;
        d->t.n_elems[i] = n;
        if (param_is_output(q))
            d->out_bytes += (size_t)n * tensor_dtype_size(q->dtype);
    }
    blob = harness_input_size(p, &d->t);
    snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".in", cache, tc->name, seed);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 1;
    int mfd = -1;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size != blob ||
        (mfd = sbx_memfd_new("attnjudge-input")) < 0)
        goto miss;
    for (off_t at = 0; at < blob;) {
        ssize_t k = sendfile(mfd, fd, &at, (size_t)(blob - at));
        if (k <= 0)
            goto miss;
    }
    close(fd);
    if (lseek(mfd, 0, SEEK_SET) < 0 || (d->input_fd = sbx_memfd_seal(mfd)) < 0) {
        errbuf_set(err, errlen, "reopen input: %s", strerror(errno));
        return -1;
    }
    return 0;
miss:
    close(fd);
    if (mfd >= 0)
        close(mfd);
    memset(d, 0, sizeof *d);
    d->input_fd = -1;
    return 1;
}

/* Writes d's input blob to the cache (test_data_cached); a cache that
 * cannot be written only costs time. */
void test_data_cache(const char *cache, const struct test_case *tc, uint64_t seed,
                     const struct test_data *d)
{
    char path[4300], *blob = NULL;
    size_t len = 0;

    snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".in", cache, tc->name, seed);
    if (lseek(d->input_fd, 0, SEEK_SET) == 0 &&
        fs_read_fd(d->input_fd, (size_t)1 << 32, &blob, &len) == 0 &&
        fs_write_atomic(path, blob, len, 0600) < 0) {
        /* generated again next time */
    }
    free(blob);
}

int test_data_make(const struct problem *p, const int64_t *dims, const double *scalars,
                   uint64_t seed, const struct gen_spec *gens, const bool *is_null,
                   struct test_data *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->input_fd = -1;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        int64_t shape[TENSOR_MAX_RANK];
        if (q->kind != PARAM_TENSOR)
            continue;
        d->t.is_null[i] = is_null[i];
        if (is_null[i])
            continue;
        int64_t n = dims_tensor_elems(p, i, dims);
        if (n <= 0 || dims_tensor_shape(p, i, dims, shape) < 0) {
            errbuf_set(err, errlen, "tensor %s: invalid size", q->name);
            return -1;
        }
        d->t.n_elems[i] = n;
        if (param_is_output(q))
            d->out_bytes += (size_t)n * tensor_dtype_size(q->dtype);
        if (!param_is_input(q))
            continue;
        d->t.data[i] = malloc((size_t)n * tensor_dtype_size(q->dtype));
        if (!d->t.data[i]) {
            errbuf_set(err, errlen, "out of memory for tensor %s", q->name);
            return -1;
        }
        if (gen_fill(d->t.data[i], q->dtype, shape, q->rank, &gens[i], seed, i) < 0) {
            errbuf_set(err, errlen, "tensor %s: its generator does not fit it", q->name);
            return -1;
        }
    }
    int fd = sbx_memfd_new("attnjudge-input");
    if (fd < 0 || harness_write_input(p, dims, scalars, &d->t, fd) < 0) {
        errbuf_set(err, errlen, "writing the input: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    d->input_fd = sbx_memfd_seal(fd);
    if (d->input_fd < 0) {
        errbuf_set(err, errlen, "reopen input: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void run_limits(const struct problem_limits *l, bool reference, struct sbx_limits *out)
{
    sbx_limits_default(SBX_RUN, out);
    out->cpu_ms = l->cpu_ms;
    out->wall_ms = l->wall_ms;
    out->memory_bytes = l->memory_mb << 20;
    if (reference) {
        /* the reference is trusted to finish; give it room so that a slow
         * reference is never blamed on a student */
        out->cpu_ms = l->cpu_ms * 4 + 10000;
        out->wall_ms = l->wall_ms * 4 + 20000;
        out->memory_bytes = (l->memory_mb << 20) * 2 + (512LL << 20);
    }
}

int run_program(int exe, const struct test_data *d, const struct sbx_limits *lim,
                struct sbx_result *res, char *err, size_t errlen)
{
    struct sbx_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_RUN;
    spec.limits = *lim;
    spec.exec_fd = exe;
    spec.input_fd = d->input_fd;
    /* room for the outputs and a few records; more is the program's noise */
    spec.result_cap = d->out_bytes + 4096;
    if (lseek(d->input_fd, 0, SEEK_SET) < 0) {
        errbuf_set(err, errlen, "rewind input: %s", strerror(errno));
        return -1;
    }
    return sbx_run(&spec, res, err, errlen);
}

/* How a reference run failed, in an author's words: "was killed by signal
 * 11 (SIGSEGV)", "ran over its CPU time limit of 14000 ms". */
void reference_failure(const struct sbx_result *res, const struct sbx_limits *lim,
                       const struct harness_result *hr, char *buf, size_t len)
{
    switch (res->status) {
    case SBX_EXITED:
        if (res->exit_code != 0)
            snprintf(buf, len, "exited with status %d", res->exit_code);
        else
            snprintf(buf, len, "exited without writing %s outputs",
                     hr->malformed ? "well-formed" : "all its");
        break;
    case SBX_SIGNALED:
        snprintf(buf, len, "was killed by signal %d (SIG%s)", res->signal,
                 sigabbrev_np(res->signal) ? sigabbrev_np(res->signal) : "?");
        break;
    case SBX_TIME_CPU:
        snprintf(buf, len, "ran over its CPU time limit of %" PRId64 " ms", lim->cpu_ms);
        break;
    case SBX_TIME_WALL:
        snprintf(buf, len, "ran over its wall-clock limit of %" PRId64 " ms", lim->wall_ms);
        break;
    case SBX_VIOLATION:
        snprintf(buf, len, "made a forbidden system call (%s)",
                 res->syscall_name[0] ? res->syscall_name : "?");
        break;
    case SBX_EXEC_FAILED:
        snprintf(buf, len, "could not start: %s", strerror(res->exec_errno));
        break;
    default: snprintf(buf, len, "failed (sandbox status %d)", res->status); break;
    }
}

/* Every non-NULL output of a run, in signature order, as one new buffer of
 * d->out_bytes bytes (the layout of the cached expected outputs); NULL when
 * out of memory. hr must hold every output (a completed run). */
unsigned char *outputs_pack(const struct problem *p, const struct test_data *d,
                            const struct harness_result *hr)
{
    unsigned char *buf = malloc(d->out_bytes ? d->out_bytes : 1);
    size_t at = 0;

    if (!buf)
        return NULL;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        size_t n = (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
        memcpy(buf + at, hr->outputs[i], n);
        at += n;
    }
    return buf;
}

/* Expected outputs: from the cache, or by running the reference. Returns a
 * new buffer of d->out_bytes bytes, or NULL with err; *ref_failed (may be
 * NULL) is then true when the reference itself failed (crashed, ran out of
 * time, wrote no outputs: the package's fault), false when the judge did. */
unsigned char *expected_outputs(const struct problem *p, const char *cache, int ref_exe,
                                const char *test_name, uint64_t seed,
                                const struct problem_limits *limits, const struct test_data *d,
                                bool *ref_failed, char *err, size_t errlen)
{
    char path[4300];
    unsigned char *buf = NULL;
    char *cached = NULL;
    size_t len = 0;
    struct sbx_result res;
    struct sbx_limits lim;

    if (test_name) {
        snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".out", cache, test_name, seed);
        if (fs_read_file(path, O_NOFOLLOW, d->out_bytes, &cached, &len) == 0 && len == d->out_bytes)
            return (unsigned char *)cached;
        free(cached);
    }
    run_limits(limits, true, &lim);
    if (run_program(ref_exe, d, &lim, &res, err, errlen) < 0)
        return NULL;
    struct harness_result hr;
    harness_parse_result(p, &d->t, res.result, res.result_len, &hr);
    if (res.status != SBX_EXITED || res.exit_code != 0 || !hr.done || hr.malformed) {
        char why[256];
        reference_failure(&res, &lim, &hr, why, sizeof why);
        errbuf_set(err, errlen, "problem %s: the reference %s on test '%s'", p->slug, why,
                   test_name ? test_name : "a custom case");
        if (ref_failed)
            *ref_failed = true;
        sbx_result_free(&res);
        return NULL;
    }
    buf = outputs_pack(p, d, &hr);
    if (buf) {
        if (test_name && fs_write_atomic(path, buf, d->out_bytes, 0600) < 0) {
            /* a cache that cannot be written only costs time */
        }
    } else {
        errbuf_set(err, errlen, "out of memory");
    }
    sbx_result_free(&res);
    return buf;
}
