/*
 * bench_session — a benchmark's calls at one size in one process
 * (bench_session.h).
 *
 * The judge holds one end of a socket that is the program's input (fd
 * AJ_FD_INPUT): it sends each call's header there, and the go. The
 * harness answers on its result channel, which the sandbox hands to
 * converse() below as bytes arrive. Per call:
 *
 *   READY (addresses)  -> judge: CPU clock t0, inputs written and outputs
 *                         poisoned in the program's memory, go
 *   RETURNED (heap)    -> judge: outputs read from its memory, CPU clock t1
 *
 * The call's time is t1 - t0: nothing in the program can move either
 * reading. A program that sends READY or RETURNED itself (it can: the
 * harness runs in its address space) gains nothing: its inputs do not
 * exist in its memory before t0, and its outputs are taken before t1, so
 * whatever it computes after t1 is never seen, and whatever it computes
 * from the inputs is counted. A record out of turn ends the session as
 * the program's fault.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "judge/bench_session.h"
#include "judge/errbuf.h"

/* No record the harness sends in a session is longer (READY's addresses);
 * a longer one is not waited for. */
#define RECORD_MAX (sizeof(uint64_t) * AJ_MAX_TENSORS)

enum phase {
    WAIT_READY,    /* call k's header sent */
    WAIT_RETURNED, /* go sent */
    ENDING,        /* the end sent: the program exits */
    OVER,          /* the program broke the protocol, crashed, or the judge failed */
};

struct session {
    const struct problem *p;
    const int64_t *dims;
    const double *scalars;
    const struct bench_session_hooks *hooks;
    int sock; /* the judge's end of the program's input */
    enum phase phase;
    int k;              /* the call under way */
    uint32_t heap_mib;  /* the heap the harness makes ready */
    struct test_data d; /* its inputs (input_fd -1 when none) */
    bool have_d;
    uint64_t addr[AJ_MAX_TENSORS]; /* where its tensors are, as the harness said */
    uint32_t n_tensors;
    unsigned char *out; /* outputs_pack's layout */
    double t0;          /* ms, the program's CPU clock at go */
    int calls;
    uint64_t heap_grew; /* the most a call said the heap grew */
    bool finished, broke, nomem, failed;
    char *err;
    size_t errlen;
};

static void drop_data(struct session *s)
{
    if (s->have_d)
        test_data_free(s->p, &s->d);
    s->have_d = false;
    free(s->out);
    s->out = NULL;
}

/* Sends len bytes to the program; false when it has gone (closed its
 * input or ended: its result will say how). */
static bool send_all(struct session *s, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(s->sock, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Prepares call s->k and sends its header. 0, or -1: s->failed when the
 * judge failed, else the program has gone. */
static int next_call(struct session *s)
{
    unsigned char head[HARNESS_HEADER_MAX];
    if (s->hooks->inputs(s->hooks->arg, s->k, &s->d, s->err, s->errlen) < 0) {
        s->failed = true;
        return -1;
    }
    s->have_d = true;
    s->out = malloc(s->d.out_bytes ? s->d.out_bytes : 1);
    int n = harness_call_header(s->p, s->dims, s->scalars, &s->d.t, s->heap_mib, head, sizeof head);
    if (!s->out || n < 0) {
        errbuf_set(s->err, s->errlen, !s->out ? "out of memory" : "a call's header does not fit");
        s->failed = true;
        return -1;
    }
    s->phase = WAIT_READY;
    return send_all(s, head, (size_t)n) ? 0 : -1;
}

/* A copy into or out of the program failed: its doing (memory it
 * unmapped, an address it forged) or its end, unless the judge failed. */
static void copy_failed(struct session *s, const char *what)
{
    if (errno == EFAULT || errno == EIO)
        s->broke = true;
    else if (errno != ESRCH) {
        errbuf_set(s->err, s->errlen, "%s the program's memory: %s", what, strerror(errno));
        s->failed = true;
    }
}

/* READY came: the clock, then the inputs and the poison, then go. */
static int start_call(struct session *s, const struct sbx_live *live)
{
    if (sbx_live_cpu_ms(live, &s->t0) < 0)
        return -1; /* it ended: its result says how */
    for (int i = 0, ti = 0; i < s->p->n_params; i++) {
        const struct param *q = &s->p->params[i];
        if (q->kind != PARAM_TENSOR)
            continue;
        uint64_t at = s->addr[ti++];
        size_t bytes = (size_t)s->d.t.n_elems[i] * tensor_dtype_size(q->dtype);
        if (s->d.t.is_null[i])
            continue;
        if (at == 0) {
            s->broke = true;
            return -1;
        }
        int rc = param_is_input(q) ? sbx_live_write(live, at, s->d.t.data[i], bytes)
                                   : sbx_live_fill(live, at, 0xFF, bytes);
        if (rc < 0) {
            copy_failed(s, "writing into");
            return -1;
        }
    }
    s->phase = WAIT_RETURNED;
    char go = AJ_GO;
    return send_all(s, &go, 1) ? 0 : -1;
}

/* RETURNED came: the outputs, then the clock; the caller's verdict on
 * the call; the next call or the end. */
static int finish_call(struct session *s, const struct sbx_live *live)
{
    struct harness_result hr;
    double t1;
    size_t at = 0;

    memset(&hr, 0, sizeof hr);
    for (int i = 0, ti = 0; i < s->p->n_params; i++) {
        const struct param *q = &s->p->params[i];
        if (q->kind != PARAM_TENSOR)
            continue;
        uint64_t addr = s->addr[ti++];
        if (!param_is_output(q) || s->d.t.is_null[i])
            continue;
        size_t bytes = (size_t)s->d.t.n_elems[i] * tensor_dtype_size(q->dtype);
        if (sbx_live_read(live, addr, s->out + at, bytes) < 0) {
            copy_failed(s, "reading from");
            return -1;
        }
        hr.outputs[i] = s->out + at;
        at += bytes;
    }
    if (sbx_live_cpu_ms(live, &t1) < 0)
        return -1;
    hr.done = true;
    int more = s->hooks->returned(s->hooks->arg, s->k, &s->d, t1 - s->t0, &hr, s->err, s->errlen);
    s->calls++;
    drop_data(s);
    if (more < 0) {
        s->failed = true;
        return -1;
    }
    if (more == 0) {
        struct aj_in_header end = {AJ_MAGIC_END, 0, 0, 0, 0};
        s->finished = true;
        s->phase = ENDING;
        return send_all(s, &end, sizeof end) ? 0 : -1;
    }
    s->k++;
    return next_call(s);
}

/* sbx_spec.converse: the records as they arrive. */
static size_t converse(void *arg, const unsigned char *buf, size_t len, const struct sbx_live *live,
                       bool *stop)
{
    struct session *s = arg;
    size_t off = 0;

    while (s->phase != OVER && len - off >= sizeof(struct aj_record)) {
        struct aj_record r;
        memcpy(&r, buf + off, sizeof r);
        if (r.len > RECORD_MAX) {
            s->broke = true;
            break;
        }
        if (r.len > len - off - sizeof r)
            return off; /* the rest is on its way */
        const unsigned char *payload = buf + off + sizeof r;
        if (r.tag == AJ_TAG_NOMEM) {
            /* the program may cope with it; a crash after it is a
             * memory_limit */
            s->nomem = true;
        } else if (r.tag == AJ_TAG_READY && s->phase == WAIT_READY &&
                   r.len == sizeof s->addr[0] * s->n_tensors) {
            memcpy(s->addr, payload, r.len);
            off += sizeof r + r.len;
            if (start_call(s, live) < 0)
                s->phase = OVER;
            continue;
        } else if (r.tag == AJ_TAG_RETURNED && s->phase == WAIT_RETURNED &&
                   (r.len == sizeof s->heap_grew || r.len == 0)) {
            /* the heap's growth, as the harness measured it; a record the
             * program forged may say nothing (or anything: the judge caps
             * the heap it makes ready, judge/bench.c) */
            uint64_t grew = 0;
            if (r.len)
                memcpy(&grew, payload, sizeof grew);
            if (grew > s->heap_grew)
                s->heap_grew = grew;
            off += sizeof r + r.len;
            if (finish_call(s, live) < 0)
                s->phase = OVER;
            continue;
        } else {
            /* a crash record (the program dies of its signal next; left
             * for the result), or one out of turn */
            if (r.tag != AJ_TAG_CRASH)
                s->broke = true;
            s->phase = OVER;
            break;
        }
        off += sizeof r + r.len;
    }
    if (s->broke || s->failed) {
        s->phase = OVER;
        *stop = true;
    }
    return off;
}

int bench_session_run(const struct problem *p, const int64_t *dims, const double *scalars, int exe,
                      const struct sbx_limits *lim, uint32_t heap_mib,
                      const struct bench_session_hooks *hooks, struct bench_session_end *end,
                      char *err, size_t errlen)
{
    struct session s;
    struct harness_tensors none;
    struct sbx_spec spec;
    int sv[2];
    int rc = -1;

    memset(end, 0, sizeof *end);
    memset(&s, 0, sizeof s);
    memset(&none, 0, sizeof none);
    s.p = p;
    s.dims = dims;
    s.scalars = scalars;
    s.hooks = hooks;
    s.heap_mib = heap_mib;
    s.err = err;
    s.errlen = errlen;
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_TENSOR)
            s.n_tensors++;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        errbuf_set(err, errlen, "socketpair: %s", strerror(errno));
        return -1;
    }
    s.sock = sv[1];
    if (next_call(&s) < 0) {
        if (!s.failed)
            errbuf_set(err, errlen, "the session's first call could not be sent");
        goto out;
    }
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_RUN;
    spec.limits = *lim;
    spec.exec_fd = exe;
    spec.input_fd = sv[0];
    spec.result_cap = 65536; /* records only: no tensor travels there */
    spec.converse = converse;
    spec.converse_arg = &s;
    if (sbx_run(&spec, &end->res, err, errlen) < 0)
        goto out;
    if (s.failed) {
        sbx_result_free(&end->res);
        goto out;
    }
    harness_parse_result(p, &none, end->res.result, end->res.result_len, &end->hr);
    end->hr.nomem |= s.nomem;
    end->hr.done = false;
    end->calls = s.calls;
    end->heap_grew = s.heap_grew;
    end->finished = s.finished;
    end->broke_protocol = s.broke;
    rc = 0;
out:
    drop_data(&s);
    close(sv[0]);
    close(sv[1]);
    return rc;
}
