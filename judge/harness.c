/*
 * harness — the generated glue between a problem's signature and the fixed
 * harness runtime.
 *
 * The prototype header is force-included (gcc -include) when the student's
 * file is compiled, so a signature that differs from the problem's is a
 * compile error naming both declarations. The call stub is the only
 * problem-specific code that runs in the sandbox besides the student's;
 * everything generic (reading inputs, guard pages, poisoning outputs,
 * writing results) is in harness_rt.c, which knows no problem.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/harness.h"
#include "judge/harness_proto.h"
#include "sandbox/sandbox.h"
#include "util/fs.h"

/* The harness reads and writes where the sandbox puts the descriptors. */
_Static_assert(AJ_FD_INPUT == SBX_RUN_INPUT_FD, "harness input fd");
_Static_assert(AJ_FD_RESULT == SBX_RUN_RESULT_FD, "harness result fd");

extern const char attnjudge_harness_rt_src[];
extern const char attnjudge_harness_proto_src[];

/* -fno-lto (both steps) and -fno-use-linker-plugin (the link): a student's
 * forged `.gnu.lto_*` sections must stay inert data, never be handed to
 * lto-wrapper and lto1 to parse (docs/sandbox.md). --hash-size=127: ld's
 * symbol tables start small and grow, instead of starting at a size meant
 * for large programs that a static link of a few hundred libc members
 * spends a third of its time allocating and clearing (docs/architecture.md,
 * "Where the time goes"); the same linker, the same program up to the
 * order of its symbol table. -g1: line tables only, so that a crash on a
 * sample test can name the student's line (judge/crashsite.c); gcc
 * generates the same code with or without them (docs/sandbox.md).
 * -gdwarf-4 comes first (after -g1 it would mean -g2): Debian 12's
 * addr2line names the wrong file for a DWARF 5 line table whose file 1 is
 * not the main file (after `#line 1 "other.h"`). */
const char *const harness_cflags[] = {
    "-std=gnu11",      "-O2",      "-Wall", "-gdwarf-4", "-g1", "-fdiagnostics-color=never",
    "-fmax-errors=20", "-fno-lto", NULL,
};

const char *const harness_ldflags[] = {
    "-fno-lto",
    "-fno-use-linker-plugin",
    "-static",
    "-Wl,--hash-size=127",
    "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,"
    "--wrap=posix_memalign,--wrap=memalign",
    "-lm",
    NULL,
};

void harness_compile_command(char *buf, size_t len)
{
    size_t at = 0;
    int n = snprintf(buf, len, "gcc");
    for (int i = 0; n >= 0 && harness_cflags[i]; i++) {
        at += (size_t)n;
        n = at < len ? snprintf(buf + at, len - at, " %s", harness_cflags[i]) : -1;
    }
    if (n >= 0 && (at += (size_t)n) < len)
        n = snprintf(buf + at, len - at,
                     " -include attnjudge.h -c solution.c; gcc -o program "
                     "solution.o <the judge's harness>");
    for (int i = 0; n >= 0 && harness_ldflags[i]; i++) {
        at += (size_t)n;
        n = at < len ? snprintf(buf + at, len - at, " %s", harness_ldflags[i]) : -1;
    }
}

const char *harness_runtime_source(void)
{
    return attnjudge_harness_rt_src;
}
const char *harness_proto_source(void)
{
    return attnjudge_harness_proto_src;
}

int harness_prototype(const struct problem *p, char *buf, size_t len)
{
    size_t used = 0;
    int n;

    n = snprintf(buf, len, "void %s(", p->function);
    if (n < 0 || (size_t)n >= len)
        return -1;
    used = (size_t)n;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        const char *sep = i ? ", " : "";

        if (pa->kind == PARAM_INT)
            n = snprintf(buf + used, len - used, "%sint %s", sep, pa->name);
        else if (pa->kind == PARAM_FLOAT)
            n = snprintf(buf + used, len - used, "%s%s %s", sep, problem_scalar_ctype(pa),
                         pa->name);
        else
            n = snprintf(buf + used, len - used, "%s%s%s *%s", sep,
                         pa->role == ROLE_IN ? "const " : "", tensor_dtype_ctype(pa->dtype),
                         pa->name);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    n = snprintf(buf + used, len - used, ")");
    if (n < 0 || (size_t)n >= len - used)
        return -1;
    return (int)(used + (size_t)n);
}

int harness_generate(const struct problem *p, char **proto_h, char **call_c)
{
    char proto[4096];
    char *h = NULL, *c = NULL;
    size_t hlen = 0, clen = 0;
    FILE *f = NULL;
    int rc = -1;

    *proto_h = *call_c = NULL;
    if (harness_prototype(p, proto, sizeof proto) < 0)
        goto out;

    f = open_memstream(&h, &hlen);
    if (!f)
        goto out;
    fprintf(f,
            "/* attnjudge: the function your file must define, exactly so\n"
            " * (problem %s). This header is included before your code. */\n"
            "#include <stdint.h>\n"
            "%s;\n",
            p->slug, proto);
    if (fclose(f) != 0)
        goto out;

    f = open_memstream(&c, &clen);
    if (!f)
        goto out;
    fprintf(f,
            "#include <stdint.h>\n"
            "#include \"attnjudge.h\"\n"
            "void attnjudge_call(void **t, const int64_t *d, const double *s);\n"
            "void attnjudge_call(void **t, const int64_t *d, const double *s)\n{\n"
            "    %s(",
            p->function);
    int tensor = 0, dim = 0, scalar = 0;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (i)
            fprintf(f, ", ");
        if (q->kind == PARAM_INT)
            fprintf(f, "(int)d[%d]", dim++);
        else if (q->kind == PARAM_FLOAT)
            fprintf(f, "(%s)s[%d]", problem_scalar_ctype(q), scalar++);
        else
            fprintf(f, "(%s%s *)t[%d]", q->role == ROLE_IN ? "const " : "",
                    tensor_dtype_ctype(q->dtype), tensor++);
    }
    fprintf(f, ");\n}\n");
    if (fclose(f) != 0)
        goto out;
    f = NULL;
    *proto_h = h;
    *call_c = c;
    h = c = NULL;
    rc = 0;
out:
    free(h);
    free(c);
    return rc;
}

int64_t harness_input_size(const struct problem *p, const struct harness_tensors *t)
{
    int64_t n = (int64_t)sizeof(struct aj_in_header) + (int64_t)sizeof(int64_t) * p->n_dims;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind == PARAM_FLOAT)
            n += (int64_t)sizeof(double);
        if (q->kind != PARAM_TENSOR)
            continue;
        n += (int64_t)sizeof(struct aj_in_tensor);
        if (param_is_input(q) && !t->is_null[i])
            n += t->n_elems[i] * (int64_t)tensor_dtype_size(q->dtype);
    }
    return n;
}

/* Builds the header, ints, floats and tensor descriptors of an input blob
 * (magic AJ_MAGIC) or of a session's call (AJ_MAGIC_CALL) into buf (cap
 * bytes). Returns its length, or -1 when it does not fit. */
static int build_header(const struct problem *p, uint64_t magic, const int64_t *dims,
                        const double *scalars, const struct harness_tensors *t, uint32_t heap_mib,
                        unsigned char *buf, size_t cap)
{
    struct aj_in_header h = {magic, 0, (uint32_t)p->n_dims, 0, heap_mib};
    struct aj_in_tensor desc[AJ_MAX_TENSORS];
    double floats[AJ_MAX_FLOATS];

    if (p->n_dims > AJ_MAX_INTS)
        return -1;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind == PARAM_FLOAT) {
            if (h.n_floats >= AJ_MAX_FLOATS)
                return -1;
            floats[h.n_floats++] = scalars[i];
        }
        if (q->kind != PARAM_TENSOR)
            continue;
        if (h.n_tensors >= AJ_MAX_TENSORS)
            return -1;
        struct aj_in_tensor *d = &desc[h.n_tensors++];
        memset(d, 0, sizeof *d);
        d->is_input = param_is_input(q);
        d->is_output = param_is_output(q);
        d->elem_size = (uint32_t)tensor_dtype_size(q->dtype);
        d->is_null = t->is_null[i];
        d->n_elems = (uint64_t)t->n_elems[i];
    }
    const struct {
        const void *p;
        size_t len;
    } parts[] = {
        {&h, sizeof h},
        {dims, sizeof dims[0] * (size_t)p->n_dims},
        {floats, sizeof floats[0] * h.n_floats},
        {desc, sizeof desc[0] * h.n_tensors},
    };
    size_t at = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i].len > cap - at)
            return -1;
        if (parts[i].len)
            memcpy(buf + at, parts[i].p, parts[i].len);
        at += parts[i].len;
    }
    return (int)at;
}

int harness_write_input(const struct problem *p, const int64_t *dims, const double *scalars,
                        const struct harness_tensors *t, int fd)
{
    unsigned char head[HARNESS_HEADER_MAX];
    int n = build_header(p, AJ_MAGIC, dims, scalars, t, 0, head, sizeof head);
    if (n < 0 || fs_write_all(fd, head, (size_t)n) < 0)
        return -1;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (!param_is_input(q) || t->is_null[i])
            continue;
        if (fs_write_all(fd, t->data[i], (size_t)t->n_elems[i] * tensor_dtype_size(q->dtype)) < 0)
            return -1;
    }
    return lseek(fd, 0, SEEK_SET) < 0 ? -1 : 0;
}

int harness_call_header(const struct problem *p, const int64_t *dims, const double *scalars,
                        const struct harness_tensors *t, uint32_t heap_mib, unsigned char *buf,
                        size_t cap)
{
    return build_header(p, AJ_MAGIC_CALL, dims, scalars, t, heap_mib, buf, cap);
}

void harness_parse_result(const struct problem *p, const struct harness_tensors *t,
                          const unsigned char *buf, size_t len, struct harness_result *res)
{
    size_t off = 0, want = 0;

    memset(res, 0, sizeof *res);
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (param_is_output(q) && !t->is_null[i])
            want += (size_t)t->n_elems[i] * tensor_dtype_size(q->dtype);
    }
    while (off + sizeof(struct aj_record) <= len) {
        struct aj_record r;
        memcpy(&r, buf + off, sizeof r);
        off += sizeof r;
        if (r.len > len - off) {
            res->malformed = true;
            return;
        }
        switch (r.tag) {
        case AJ_TAG_NOMEM: res->nomem = true; break;
        case AJ_TAG_OUTPUTS:
            /* the last OUTPUTS record before DONE counts; a program that
             * writes its own records on AJ_FD_RESULT only fools itself */
            if (r.len != want) {
                res->malformed = true;
                break;
            }
            {
                size_t at = off;
                for (int i = 0; i < p->n_params; i++) {
                    const struct param *q = &p->params[i];
                    if (!param_is_output(q) || t->is_null[i])
                        continue;
                    res->outputs[i] = buf + at;
                    at += (size_t)t->n_elems[i] * tensor_dtype_size(q->dtype);
                }
            }
            break;
        case AJ_TAG_DONE: res->done = true; break;
        case AJ_TAG_CRASH:
            /* the fault handler writes the last one; a program that forges
             * records only misleads itself about its own crash */
            if (r.len != sizeof res->crash) {
                res->malformed = true;
                break;
            }
            memcpy(&res->crash, buf + off, sizeof res->crash);
            if (res->crash.n_calls > AJ_MAX_CALLS)
                res->crash.n_calls = AJ_MAX_CALLS;
            res->crashed = true;
            break;
        default: res->malformed = true; return;
        }
        off += (size_t)r.len;
    }
    if (off != len)
        res->malformed = true;
}
