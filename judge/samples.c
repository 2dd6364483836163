/*
 * samples — the sample kit a student downloads: the sample tests as files.
 *
 * The kit is built from what the judge already has, so that it cannot
 * disagree with a judgement: the inputs and expected outputs of each sample
 * test come from judge_export_case (the seeded generator and the cached
 * reference outputs, exactly what `attnjudge export --test` writes), the
 * .npy bytes from npy_encode, the prototype header from harness_generate
 * (the header force-included into every submission), and the tolerance and
 * parameters from the loaded problem. Only sample tests are read: their
 * seeds are public (docs/contract.md §4), hidden ones never leave.
 *
 * main.c is generated from the signature: one struct field per parameter,
 * loaded, passed and checked by code that emit_param writes. emit_param is
 * the one switch over a parameter's kind and role; a new kind of parameter
 * is a case there (the compiler's -Wswitch points at it). The code that
 * does not depend on the problem is the fixed caseio.c, shipped as it is in
 * the repository (judge/kit/), embedded by samples_embed.S.
 *
 * The archive is a zip written in memory (judge/zipmem.h), with fixed times
 * and modes, so that a problem version always gives the same bytes.
 */
#include "judge/samples.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/dims.h"
#include "judge/errbuf.h"
#include "judge/harness.h"
#include "judge/npy.h"
#include "judge/zipmem.h"

/* Receives one file of the kit: its path relative to the kit's top
 * directory (e.g. "cases/sample-1/inputs/x.npy") and its bytes. Returns 0,
 * or -1 with errno to stop. */
typedef int (*samples_file_fn)(void *arg, const char *path, const void *data, size_t len);

extern const char attnjudge_caseio_c_src[];
extern const char attnjudge_caseio_h_src[];

json_t *samples_case_json(const struct problem *p, const int64_t *dims, uint64_t seed,
                          const struct test_case *tc)
{
    json_t *dj = json_object();
    int d = 0;
    for (int i = 0; dj && i < p->n_params; i++)
        if (p->params[i].kind == PARAM_INT &&
            json_object_set_new(dj, p->params[i].name, json_integer(dims[d++])) < 0) {
            json_decref(dj);
            dj = NULL;
        }
    if (!dj)
        return NULL;
    json_t *o =
        json_pack("{s:s, s:o, s:I}", "problem", p->slug, "dims", dj, "seed", (json_int_t)seed);
    if (o && tc && json_object_set_new(o, "test", json_string(tc->name)) < 0) {
        json_decref(o);
        o = NULL;
    }
    /* the float parameters' values, when the signature has any */
    json_t *sj = NULL;
    for (int i = 0; o && i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_FLOAT)
            continue;
        if ((!sj && (!(sj = json_object()) || json_object_set_new(o, "scalars", sj) < 0)) ||
            json_object_set_new(sj, p->params[i].name,
                                json_real(tc ? tc->scalars[i] : p->params[i].value)) < 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

/* ---- main.c ---- */

static const char *caseio_dtype(enum tensor_dtype t)
{
    switch (t) {
    case DT_F32: return "CASEIO_F32";
    case DT_U8: return "CASEIO_U8";
    case DT_I32: return "CASEIO_I32";
    }
    return "CASEIO_F32";
}

/* The shortest decimal that reads back as v, for constants a student reads. */
static void fmt_exact(double v, char *buf, size_t len)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* The parts of main.c that each parameter contributes to. */
enum part {
    PART_FIELD, /* its field in struct args */
    PART_WANT,  /* its field in struct expected (outputs) */
    PART_LOAD,  /* reading it from the case */
    PART_ARG,   /* the argument passed to the function */
    PART_CHECK, /* comparing it with the expected output */
    PART_FREE,  /* releasing it */
};

/* Writes parameter q's share of one part of main.c. The one place that
 * knows what each kind and role of parameter needs. */
static void emit_param(FILE *f, const struct param *q, enum part part)
{
    const char *n = q->name;
    switch (q->kind) {
    case PARAM_INT:
        switch (part) {
        case PART_FIELD: fprintf(f, "    int64_t %s;\n", n); break;
        case PART_LOAD:
            fprintf(f, "    if (caseio_load_int(dir, \"%s\", &a->%s) < 0)\n        return -1;\n", n,
                    n);
            break;
        case PART_ARG: fprintf(f, "(int)a->%s", n); break;
        case PART_WANT:
        case PART_CHECK:
        case PART_FREE: break;
        }
        break;
    case PARAM_FLOAT:
        switch (part) {
        case PART_FIELD: fprintf(f, "    double %s;\n", n); break;
        case PART_LOAD:
            fprintf(f, "    if (caseio_load_scalar(dir, \"%s\", &a->%s) < 0)\n        return -1;\n",
                    n, n);
            break;
        case PART_ARG: fprintf(f, "(%s)a->%s", problem_scalar_ctype(q), n); break;
        case PART_WANT:
        case PART_CHECK:
        case PART_FREE: break;
        }
        break;
    case PARAM_TENSOR: {
        const char *ct = tensor_dtype_ctype(q->dtype), *dt = caseio_dtype(q->dtype);
        switch (q->role) {
        case ROLE_IN:
            switch (part) {
            case PART_FIELD:
                fprintf(f, "    struct caseio_array %s; /* input%s */\n", n,
                        q->nullable ? ", NULL in some cases" : "");
                break;
            case PART_LOAD:
                fprintf(f,
                        "    if (caseio_load_input(dir, \"%s\", %s, %s, &a->%s) < 0)\n"
                        "        return -1;\n",
                        n, dt, q->nullable ? "true" : "false", n);
                break;
            case PART_ARG: fprintf(f, "(const %s *)a->%s.data", ct, n); break;
            case PART_FREE: fprintf(f, "    caseio_free(&a->%s);\n", n); break;
            case PART_WANT:
            case PART_CHECK: break;
            }
            break;
        case ROLE_OUT:
        case ROLE_INOUT:
            switch (part) {
            case PART_FIELD:
                fprintf(f, "    struct caseio_array %s; /* %s */\n", n,
                        q->role == ROLE_OUT ? "output" : "updated in place");
                break;
            case PART_WANT: fprintf(f, "    struct caseio_array %s;\n", n); break;
            case PART_LOAD:
                fprintf(f,
                        "    if (caseio_load_%s(dir, \"%s\", %s, &want->%s, &a->%s) < 0)\n"
                        "        return -1;\n",
                        q->role == ROLE_OUT ? "output" : "inout", n, dt, n, n);
                break;
            case PART_ARG: fprintf(f, "(%s *)a->%s.data", ct, n); break;
            case PART_CHECK:
                fprintf(f,
                        "    r = caseio_check(dir, test, \"%s\", &want->%s, &a->%s, &tolerance);\n"
                        "    rc = r < 0 || rc < 0 ? -1 : r > 0 ? 1 : rc;\n",
                        n, n, n);
                break;
            case PART_FREE:
                fprintf(f, "    caseio_free(&a->%s);\n    caseio_free(&want->%s);\n", n, n);
                break;
            }
            break;
        }
        break;
    }
    }
}

static void emit_part(FILE *f, const struct problem *p, enum part part)
{
    for (int i = 0; i < p->n_params; i++) {
        if (part == PART_ARG && i)
            fprintf(f, ",\n        ");
        emit_param(f, &p->params[i], part);
    }
}

char *samples_main_c(const struct problem *p)
{
    char proto[4096], atol[32], rtol[32];
    char *text = NULL;
    size_t len = 0;
    if (harness_prototype(p, proto, sizeof proto) < 0)
        return NULL;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fmt_exact(p->tol.atol, atol, sizeof atol);
    fmt_exact(p->tol.rtol, rtol, sizeof rtol);
    fprintf(f,
            "/*\n"
            " * main.c — runs your %s() on the sample cases of problem %s and\n"
            " * compares its outputs with the expected ones as the judge does.\n"
            " * Generated by attnjudge; README.txt says how to build and debug.\n"
            " *\n"
            " *   ./check                 every sample case under cases/\n"
            " *   ./check NAME            the case cases/NAME\n"
            " *   ./check path/to/case    a case directory (e.g. from attnjudge export)\n"
            " *\n"
            " * Your function, exactly:\n"
            " *   %s;\n"
            " */\n"
            "#include <stdbool.h>\n"
            "#include <stdint.h>\n"
            "#include <stdio.h>\n"
            "#include <string.h>\n"
            "\n"
            "#include \"attnjudge.h\"\n"
            "#include \"caseio.h\"\n"
            "\n"
            "/* |got - expected| <= atol' + rtol * |expected|%s */\n"
            "static const struct caseio_tolerance tolerance = {%s, %s, %s};\n"
            "\n"
            "static const char *const cases[] = {\n",
            p->function, p->slug, proto,
            p->tol.atol_relative_to_max ? ", atol' = atol * max|expected|" : "", atol, rtol,
            p->tol.atol_relative_to_max ? "true" : "false");
    for (size_t i = 0; i < p->n_tests; i++)
        if (p->tests[i].kind == TEST_SAMPLE)
            fprintf(f, "    \"%s\",\n", p->tests[i].name);
    fprintf(f, "};\n\n/* The arguments of %s, one field per parameter. */\nstruct args {\n",
            p->function);
    emit_part(f, p, PART_FIELD);
    fprintf(f, "};\n\n/* The expected outputs. */\nstruct expected {\n");
    emit_part(f, p, PART_WANT);
    fprintf(f, "    char unused; /* a struct needs a member */\n"
               "};\n\n"
               "/* Reads the case in dir: inputs, expected outputs (your outputs start as\n"
               " * 0xFF bytes, a NaN, as in the judge) and dimensions. */\n"
               "static int load(const char *dir, struct args *a, struct expected *want)\n{\n");
    emit_part(f, p, PART_LOAD);
    fprintf(f,
            "    return 0;\n}\n\n/* Calls %s exactly as the judge's harness does. */\n"
            "static void call(struct args *a)\n{\n    %s(",
            p->function, p->function);
    emit_part(f, p, PART_ARG);
    fprintf(f, ");\n}\n\n"
               "/* 0: every output matches; 1: one does not; -1: an error. */\n"
               "static int check(const char *dir, const char *test, const struct args *a,\n"
               "                 const struct expected *want)\n{\n"
               "    int rc = 0, r;\n");
    emit_part(f, p, PART_CHECK);
    fprintf(f, "    return rc;\n}\n\n"
               "static void release(struct args *a, struct expected *want)\n{\n");
    emit_part(f, p, PART_FREE);
    fprintf(f, "    (void)want;\n}\n\n");
    fputs("static int run_case(const char *dir, const char *test)\n"
          "{\n"
          "    struct args a;\n"
          "    struct expected want;\n"
          "    int rc = -1;\n"
          "    memset(&a, 0, sizeof a);\n"
          "    memset(&want, 0, sizeof want);\n"
          "    if (load(dir, &a, &want) == 0) {\n"
          "        printf(\"%s: calling your function\\n\", test);\n"
          "        fflush(stdout); /* shown even if the call crashes */\n"
          "        call(&a);\n"
          "        rc = check(dir, test, &a, &want);\n"
          "    }\n"
          "    release(&a, &want);\n"
          "    return rc;\n"
          "}\n"
          "\n"
          "int main(int argc, char **argv)\n"
          "{\n"
          "    int n = argc > 1 ? argc - 1 : (int)(sizeof cases / sizeof cases[0]);\n"
          "    int matched = 0, errors = 0;\n"
          "    if (argc > 1 && (!strcmp(argv[1], \"-h\") || !strcmp(argv[1], \"--help\"))) {\n"
          "        printf(\"usage: %s [CASE-NAME | CASE-DIR]...\\n\", argv[0]);\n"
          "        return 0;\n"
          "    }\n"
          "    for (int i = 0; i < n; i++) {\n"
          "        const char *name = argc > 1 ? argv[i + 1] : cases[i];\n"
          "        char dir[4096];\n"
          "        if (strchr(name, '/'))\n"
          "            snprintf(dir, sizeof dir, \"%s\", name);\n"
          "        else\n"
          "            snprintf(dir, sizeof dir, \"cases/%s\", name);\n"
          "        int rc = run_case(dir, name);\n"
          "        matched += rc == 0;\n"
          "        errors += rc < 0;\n"
          "    }\n"
          "    printf(\"%d of %d sample cases match\\n\", matched, n);\n"
          "    return errors ? 2 : matched == n ? 0 : 1;\n"
          "}\n",
          f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- the other files ---- */

static char *makefile_text(const struct problem *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(
        f,
        "# Builds ./check, the sample cases of %s run on your solution.c (README.txt).\n"
        "#\n"
        "#   make                 ./check, for gdb (-O0 -g)\n"
        "#   make run             build and run every sample case\n"
        "#   make check-asan      ./check-asan: out-of-bounds reads and writes stop at their line\n"
        "#   make SOLUTION=path/to/file.c   another file than solution.c\n"
        "\n"
        "CC = gcc\n"
        "SOLUTION = solution.c\n"
        "# the judge compiles with -O2; -O0 -g keeps every variable visible in gdb\n"
        "CFLAGS = -std=gnu11 -O0 -g -Wall\n"
        "ASAN = -fsanitize=address,undefined -fno-omit-frame-pointer\n"
        "DRIVER = main.c caseio.c caseio.h attnjudge.h\n"
        "\n"
        ".PHONY: all run clean\n"
        "all: check\n"
        "\n"
        "# -include attnjudge.h, as in the judge: a different signature is a compile error\n"
        "check: $(SOLUTION) $(DRIVER)\n"
        "\t$(CC) $(CFLAGS) -include attnjudge.h -c $(SOLUTION) -o solution.o\n"
        "\t$(CC) $(CFLAGS) -o $@ main.c caseio.c solution.o -lm\n"
        "\n"
        "check-asan: $(SOLUTION) $(DRIVER)\n"
        "\t$(CC) $(CFLAGS) $(ASAN) -include attnjudge.h -c $(SOLUTION) -o solution-asan.o\n"
        "\t$(CC) $(CFLAGS) $(ASAN) -o $@ main.c caseio.c solution-asan.o -lm\n"
        "\n"
        "run: check\n"
        "\t./check\n"
        "\n"
        "clean:\n"
        "\trm -f check check-asan solution.o solution-asan.o\n"
        "\trm -rf cases/*/got\n",
        p->slug);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static char *readme_text(const struct problem *p)
{
    char proto[4096], command[1024], first[NAMES_MAX_LEN + 1] = "";
    char *text = NULL;
    size_t len = 0;
    if (harness_prototype(p, proto, sizeof proto) < 0)
        return NULL;
    harness_compile_command(command, sizeof command);
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f,
            "Sample cases of %s (%s)\n"
            "\n"
            "Run and debug your solution on the problem's sample tests on your own\n"
            "machine (Linux, macOS or WSL with gcc and make). Your file must define\n"
            "\n"
            "    %s;\n"
            "\n"
            "What is here\n"
            "\n"
            "    cases/<test>/case.json           the test's dims and seed\n"
            "    cases/<test>/inputs/<name>.npy   each input tensor (a NULL one has no file)\n"
            "    cases/<test>/expected/<name>.npy each output, as the reference computed it\n"
            "    main.c        loads a case, calls your function, compares every output\n"
            "                  with the expected one within the problem's tolerance,\n"
            "                  writes yours to cases/<test>/got/<name>.npy\n"
            "    caseio.c/.h   the .npy loader and the comparison main.c uses\n"
            "    attnjudge.h   your function's prototype, included before your file\n"
            "    Makefile\n"
            "\n"
            "The sample tests, one directory each under cases/:\n"
            "\n",
            p->slug, p->title, proto);
    for (size_t i = 0; i < p->n_tests; i++)
        if (p->tests[i].kind == TEST_SAMPLE) {
            fprintf(f, "    %s\n", p->tests[i].name);
            if (!first[0])
                snprintf(first, sizeof first, "%s", p->tests[i].name);
        }
    fprintf(f,
            "\n"
            "The hidden tests the judge also runs are not here: other sizes and\n"
            "values, chosen to catch common mistakes, so matching every sample case\n"
            "does not yet mean accepted.\n"
            "\n"
            "Build and run\n"
            "\n"
            "    cp path/to/your/solution.c .\n"
            "    make run                  # or: make && ./check %s\n"
            "\n"
            "or by hand, without make:\n"
            "\n"
            "    gcc -std=gnu11 -O0 -g -Wall -include attnjudge.h -c solution.c -o solution.o\n"
            "    gcc -std=gnu11 -O0 -g -Wall -o check main.c caseio.c solution.o -lm\n"
            "\n"
            "./check prints \"match\" or \"MISMATCH\" per output with the first wrong\n"
            "elements in tensor coordinates, and exits 0 when every case matches, 1 when\n"
            "one does not, 2 on an error. Outputs start as 0xFF bytes (a NaN), as in the\n"
            "judge: an element your function never writes shows up as NaN.\n"
            "\n"
            "Debug with gdb\n"
            "\n"
            "    make\n"
            "    gdb --args ./check %s\n"
            "    (gdb) break %s\n"
            "    (gdb) run\n"
            "    (gdb) next                # step through your code; print x, print *p@8\n"
            "\n"
            "A crash (SIGSEGV) stops in gdb at the faulting line; `bt` shows how it got\n"
            "there. `make check-asan && ./check-asan` reports an out-of-bounds read or\n"
            "write at its line even when it does not crash.\n"
            "\n"
            "In Python: numpy.load(\"cases/%s/got/<name>.npy\") next to\n"
            "numpy.load(\"cases/%s/expected/<name>.npy\").\n"
            "\n"
            "The judge compiles with fixed flags:\n"
            "    %s\n"
            "and runs your function in a sandbox with time and memory limits; this\n"
            "driver has neither.\n",
            first, first, p->function, first, first, command);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- the kit ---- */

struct case_emit {
    samples_file_fn fn;
    void *arg;
    const char *test;
};

static int emit_tensor(void *arg, const struct param *q, bool expected, const int64_t *shape,
                       int rank, const void *data)
{
    const struct case_emit *e = arg;
    char path[512];
    unsigned char *img = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "cases/%s/%s/%s.npy", e->test, expected ? "expected" : "inputs",
             q->name);
    if (npy_encode(data, q->dtype, shape, rank, &img, &len) < 0)
        return -1;
    int rc = e->fn(e->arg, path, img, len);
    free(img);
    return rc;
}

static int emit_text(samples_file_fn fn, void *arg, const char *path, const char *text, char *err,
                     size_t errlen)
{
    if (!text) {
        errbuf_set(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (fn(arg, path, text, strlen(text)) < 0) {
        errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Emits the kit's files that are not cases: README, Makefile, the driver
 * and its loader, the prototype header. Returns 0, or -1 with err. */
static int kit_common(const struct problem *p, samples_file_fn fn, void *arg, char *err,
                      size_t errlen)
{
    char *proto_h = NULL, *call_c = NULL, *main_c = NULL, *make = NULL, *readme = NULL;
    int rc = -1;
    if (harness_generate(p, &proto_h, &call_c) < 0) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    main_c = samples_main_c(p);
    make = makefile_text(p);
    readme = readme_text(p);
    if (emit_text(fn, arg, "README.txt", readme, err, errlen) < 0 ||
        emit_text(fn, arg, "Makefile", make, err, errlen) < 0 ||
        emit_text(fn, arg, "main.c", main_c, err, errlen) < 0 ||
        emit_text(fn, arg, "caseio.c", attnjudge_caseio_c_src, err, errlen) < 0 ||
        emit_text(fn, arg, "caseio.h", attnjudge_caseio_h_src, err, errlen) < 0 ||
        emit_text(fn, arg, "attnjudge.h", proto_h, err, errlen) < 0)
        goto out;
    rc = 0;
out:
    free(proto_h);
    free(call_c);
    free(main_c);
    free(make);
    free(readme);
    return rc;
}

/* Emits every sample test's case, in order; runs the reference for the
 * expected outputs (cached like a judgement's). Returns 0, or -1 with err. */
static int samples_kit(struct judge_ctx *ctx, const struct problem *p, samples_file_fn fn,
                       void *arg, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->n_tests; i++) {
        const struct test_case *tc = &p->tests[i];
        char path[512];
        if (tc->kind != TEST_SAMPLE) /* hidden tests never leave the server */
            continue;
        uint64_t seed = judge_test_seed(ctx, p, tc);
        struct case_emit ce = {fn, arg, tc->name};
        if (judge_export_case(ctx, p, tc->dims, seed, tc, emit_tensor, &ce, err, errlen) < 0)
            return -1;
        json_t *cj = samples_case_json(p, tc->dims, seed, tc);
        char *text = cj ? json_dumps(cj, JSON_INDENT(2) | JUDGE_JSON_REALS) : NULL;
        json_decref(cj);
        snprintf(path, sizeof path, "cases/%s/case.json", tc->name);
        int erc = emit_text(fn, arg, path, text, err, errlen);
        free(text);
        if (erc < 0)
            return -1;
    }
    return 0;
}

/* ---- the zip ---- */

static int zip_file(void *arg, const char *path, const void *data, size_t len)
{
    return zipmem_add(arg, path, data, len);
}

/* A zip of p's kit whose entries sit under "<slug>-<suffix>/": the common
 * files, then what cases(arg, ...) emits. Returns 0, cases' positive
 * return, or -1, with err. */
static int kit_archive(const struct problem *p, const char *suffix,
                       int (*cases)(const void *arg, samples_file_fn fn, void *zip, char *err,
                                    size_t errlen),
                       const void *arg, unsigned char **out, size_t *len, char *err, size_t errlen)
{
    char top[128];
    *out = NULL;
    *len = 0;
    snprintf(top, sizeof top, "%s-%s", p->slug, suffix);
    struct zipmem *z = zipmem_new(top, err, errlen);
    if (!z)
        return -1;
    int rc = kit_common(p, zip_file, z, err, errlen);
    if (rc == 0)
        rc = cases(arg, zip_file, z, err, errlen);
    if (rc != 0) {
        zipmem_free(z);
        return rc;
    }
    return zipmem_finish(z, out, len, err, errlen);
}

struct sample_cases {
    struct judge_ctx *ctx;
    const struct problem *p;
};

static int sample_cases(const void *arg, samples_file_fn fn, void *zip, char *err, size_t errlen)
{
    const struct sample_cases *sc = arg;
    return samples_kit(sc->ctx, sc->p, fn, zip, err, errlen);
}

int samples_archive(struct judge_ctx *ctx, const struct problem *p, unsigned char **out,
                    size_t *len, char *err, size_t errlen)
{
    const struct sample_cases sc = {ctx, p};
    return kit_archive(p, "samples", sample_cases, &sc, out, len, err, errlen);
}

/* ---- a counterexample as a case ---- */

/* Decodes the "values" of a report's tensor (report_search.c) into a new
 * buffer of n elements of dtype; NULL when absent, of another length or
 * not numbers. */
static void *values_decode(const json_t *t, enum tensor_dtype dtype, int64_t n)
{
    const json_t *vals = json_object_get(t, "values");
    size_t k;
    json_t *v;

    if (!json_is_array(vals) || (int64_t)json_array_size(vals) != n)
        return NULL;
    unsigned char *buf = malloc((size_t)n * tensor_dtype_size(dtype) + 1);
    if (!buf)
        return NULL;
    json_array_foreach(vals, k, v)
    {
        if (dtype == DT_F32) {
            const char *s = json_string_value(v);
            float f = s && !strcmp(s, "NaN")         ? NAN
                      : s && !strcmp(s, "Infinity")  ? INFINITY
                      : s && !strcmp(s, "-Infinity") ? -INFINITY
                                                     : (float)json_number_value(v);
            if (!s && !json_is_number(v))
                goto bad;
            memcpy(buf + k * 4, &f, 4);
        } else if (!json_is_integer(v)) {
            goto bad;
        } else if (dtype == DT_U8) {
            buf[k] = (unsigned char)json_integer_value(v);
        } else {
            int32_t i = (int32_t)json_integer_value(v);
            memcpy(buf + k * 4, &i, 4);
        }
    }
    return buf;
bad:
    free(buf);
    return NULL;
}

/* Emits the counterexample's tensors and case.json under cases/NAME/. */
static int cx_case(const struct problem *p, const json_t *cx, samples_file_fn fn, void *arg,
                   char *err, size_t errlen)
{
    int64_t dims[PROBLEM_MAX_PARAMS];
    const json_t *jd = json_object_get(cx, "dims");
    struct case_emit ce = {fn, arg, SAMPLES_COUNTEREXAMPLE};

    for (int i = 0; i < p->n_params; i++) {
        const json_t *v = json_object_get(jd, p->params[i].name);
        if (p->params[i].kind != PARAM_INT)
            continue;
        if (!json_is_integer(v)) {
            errbuf_set(err, errlen, "the counterexample has no dimension %s", p->params[i].name);
            return 1;
        }
        dims[p->params[i].dim_index] = json_integer_value(v);
    }
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        int64_t shape[TENSOR_MAX_RANK];
        if (q->kind != PARAM_TENSOR)
            continue;
        for (int part = 0; part < 2; part++) {
            bool expected = part == 1;
            if (expected ? !param_is_output(q) : !param_is_input(q))
                continue;
            const json_t *t =
                json_object_get(json_object_get(cx, expected ? "expected" : "inputs"), q->name);
            if (!t)
                continue; /* a NULL tensor */
            int rank = dims_tensor_shape(p, i, dims, shape);
            void *data = values_decode(t, q->dtype, dims_tensor_elems(p, i, dims));
            if (!data) {
                errbuf_set(err, errlen, "the counterexample's %s is too large to be listed",
                           q->name);
                return 1;
            }
            int rc = emit_tensor(&ce, q, expected, shape, rank, data);
            free(data);
            if (rc < 0) {
                errbuf_set(err, errlen, "%s: %s", q->name, strerror(errno));
                return -1;
            }
        }
    }
    char *seed_end = NULL;
    const char *seed_text = json_string_value(json_object_get(cx, "seed"));
    uint64_t seed = seed_text ? strtoull(seed_text, &seed_end, 10) : 0;
    json_t *cj = samples_case_json(p, dims, seed, NULL);
    if (cj)
        json_object_set_new(cj, "test", json_string(SAMPLES_COUNTEREXAMPLE));
    char *text = cj ? json_dumps(cj, JSON_INDENT(2) | JUDGE_JSON_REALS) : NULL;
    json_decref(cj);
    int rc = emit_text(fn, arg, "cases/" SAMPLES_COUNTEREXAMPLE "/case.json", text, err, errlen);
    free(text);
    return rc;
}

struct cx_cases {
    const struct problem *p;
    const json_t *cx;
};

static int cx_cases(const void *arg, samples_file_fn fn, void *zip, char *err, size_t errlen)
{
    const struct cx_cases *c = arg;
    return cx_case(c->p, c->cx, fn, zip, err, errlen);
}

int samples_counterexample_archive(const struct problem *p, const json_t *cx, unsigned char **out,
                                   size_t *len, char *err, size_t errlen)
{
    const struct cx_cases c = {p, cx};
    return kit_archive(p, "counterexample", cx_cases, &c, out, len, err, errlen);
}
