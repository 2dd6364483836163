/*
 * compile — describing a build and running it in a compile sandbox
 * (compile.h); the diagnostics come back rewritten for the student.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/compile.h"
#include "judge/elf.h"
#include "judge/errbuf.h"
#include "judge/harness.h"
#include "sandbox/sandbox.h"
#include "util/str.h"

/* Removes gcc's temporary object names ("/tmp/ccAbC123.o:") from a log. */
static void strip_temp_objects(char *s)
{
    char *p;
    while ((p = strstr(s, "/tmp/cc")) != NULL) {
        char *e = p + 7;
        while (*e && *e != ':' && *e != ' ' && *e != '\n')
            e++;
        if (*e == ':')
            e++;
        memmove(p, e, strlen(e) + 1);
    }
}

/* gcc would read a name such as "-v.c" as an option. */
void safe_filename(const char *in, char *out, size_t len)
{
    const char *base = in ? strrchr(in, '/') : NULL;
    base = base ? base + 1 : in;
    size_t n = base ? strlen(base) : 0;
    bool ok = n > 2 && n < 48 && strcmp(base + n - 2, ".c") == 0 &&
              strcmp(base, "attnjudge_call.c") != 0 && strcmp(base, "harness_rt.c") != 0 &&
              strcmp(base, "attnjudge_harness.c") != 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= 'A' && base[i] <= 'Z') ||
             (base[i] >= '0' && base[i] <= '9') || base[i] == '_' || (base[i] == '-' && i > 0) ||
             (base[i] == '.' && i == n - 2);
    snprintf(out, len, "%s", ok ? base : "solution.c");
}

void build_free(struct build *b)
{
    free(b->proto_h);
    free(b->call_c);
    free(b->harness);
    free(b->harness_manifest);
    memset(b, 0, sizeof *b);
}

static void build_file(struct build *b, const char *name, const char *text, size_t len)
{
    b->names[b->n_files] = name;
    b->text[b->n_files] = text;
    b->len[b->n_files] = len;
    b->n_files++;
}

int build_harness(struct build *b, const struct problem *p, char *err, size_t errlen)
{
    int n = 0;

    memset(b, 0, sizeof *b);
    if (harness_generate(p, &b->proto_h, &b->call_c) < 0) {
        errbuf_set(err, errlen, "cannot generate the harness for %s", p->slug);
        return -1;
    }
    build_file(b, "attnjudge.h", b->proto_h, strlen(b->proto_h));
    build_file(b, "attnjudge_call.c", b->call_c, strlen(b->call_c));
    build_file(b, "harness_rt.c", harness_runtime_source(), strlen(harness_runtime_source()));
    build_file(b, "harness_proto.h", harness_proto_source(), strlen(harness_proto_source()));
    const char **s = b->steps[0];
    s[n++] = "/usr/bin/gcc";
    s[n++] = "-std=gnu11";
    s[n++] = "-O2";
    s[n++] = "-fdiagnostics-color=never";
    s[n++] = "-fno-lto";
    /* the harness's fills stay its own loops, never calls of memset (a
     * name the student's object would come before: judge/harness_rt.c) */
    s[n++] = "-fno-tree-loop-distribute-patterns";
    s[n++] = "-nostdlib";
    s[n++] = "-r";
    s[n++] = "-o";
    s[n++] = HARNESS_OBJ;
    s[n++] = "attnjudge_call.c";
    s[n++] = "harness_rt.c";
    s[n] = NULL;
    b->n_steps = 1;
    b->output = HARNESS_OBJ;
    b->executable = false;
    return 0;
}

int build_program(struct build *b, const struct problem *p, const char *source, size_t len,
                  const char *filename, char *harness, size_t harness_len, char *harness_manifest,
                  char *err, size_t errlen)
{
    int n = 0;

    memset(b, 0, sizeof *b);
    b->harness = harness;
    b->harness_len = harness_len;
    b->harness_manifest = harness_manifest;
    snprintf(b->obj, sizeof b->obj, "%.*s.o", (int)strlen(filename) - 2, filename);
    if (harness_generate(p, &b->proto_h, &b->call_c) < 0) {
        errbuf_set(err, errlen, "cannot generate the harness for %s", p->slug);
        return -1;
    }
    /* everything the compiler reads goes in by descriptor, under these names */
    build_file(b, filename, source, len);
    build_file(b, "attnjudge.h", b->proto_h, strlen(b->proto_h));
    build_file(b, HARNESS_OBJ, b->harness, b->harness_len);

    /* step 1: the student's file alone, with the prototype force-included */
    const char **s = b->steps[0];
    s[n++] = "/usr/bin/gcc";
    for (int i = 0; harness_cflags[i]; i++)
        s[n++] = harness_cflags[i];
    s[n++] = "-include";
    s[n++] = "attnjudge.h";
    s[n++] = "-c";
    s[n++] = filename;
    s[n++] = "-o";
    s[n++] = b->obj;
    s[n] = NULL;
    /* step 2: only a link, with the harness object */
    n = 0;
    s = b->steps[1];
    s[n++] = "/usr/bin/gcc";
    s[n++] = "-std=gnu11";
    s[n++] = "-O2";
    s[n++] = "-fdiagnostics-color=never";
    s[n++] = "-o";
    s[n++] = "program";
    s[n++] = b->obj;
    s[n++] = HARNESS_OBJ;
    for (int i = 0; harness_ldflags[i]; i++)
        s[n++] = harness_ldflags[i];
    s[n] = NULL;
    /* step 3: a copy of the student's object in the program, never loaded
     * (not SHF_ALLOC): the judge reads its symbols (program_refusal) */
    n = 0;
    s = b->steps[2];
    snprintf(b->embed, sizeof b->embed, "%s=%s", STUDENT_OBJECT_SECTION, b->obj);
    s[n++] = "/usr/bin/objcopy";
    s[n++] = "--add-section";
    s[n++] = b->embed;
    s[n++] = "program";
    s[n] = NULL;
    b->n_steps = 3;
    b->output = "program";
    b->executable = true;
    return 0;
}

enum compile_outcome compile_program(const struct problem *p, const struct build *b, int *exe,
                                     char **log, double *cpu_ms, double *wall_ms,
                                     struct judge_timing *timing, char *err, size_t errlen)
{
    int fds[BUILD_FILES] = {-1, -1, -1, -1}, out_fd = -1;
    enum compile_outcome rc = COMPILE_INTERNAL;
    const char *filename = b->names[0];
    struct sbx_result res = {0};
    bool have_res = false;
    char *text = NULL;

    *exe = -1;
    *log = NULL;
    for (int i = 0; i < b->n_files; i++)
        fds[i] = sbx_memfd_from("attnjudge-build", b->text[i], b->len[i]);
    out_fd = sbx_memfd_new("attnjudge-program");
    for (int i = 0; i < b->n_files; i++)
        if (fds[i] < 0 || out_fd < 0) {
            errbuf_set(err, errlen, "memfd: %s", strerror(errno));
            goto out;
        }

    struct sbx_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_COMPILE;
    sbx_limits_default(SBX_COMPILE, &spec.limits);
    for (int k = 0; k < b->n_steps; k++)
        spec.steps[k] = b->steps[k];
    spec.n_steps = b->n_steps;
    for (int i = 0; i < b->n_files; i++)
        spec.files[i] = (struct sbx_file){b->names[i], fds[i]};
    spec.n_files = b->n_files;
    spec.output_name = b->output;
    spec.output_fd = out_fd;
    spec.output_max = PROGRAM_MAX;
    if (sbx_run(&spec, &res, err, errlen) < 0)
        goto out;
    have_res = true;
    *cpu_ms = res.cpu_ms;
    *wall_ms = res.wall_ms;
    if (timing) {
        timing->compile_setup_ms = res.setup_ms;
        timing->compile_step_ms = res.step_wall_ms[0];
        timing->link_ms = res.step_wall_ms[1];
    }

    text = str_dup(res.output ? res.output : "");
    if (!text)
        goto oom;
    strip_temp_objects(text);
    if (str_replace_all(&text, "/usr/bin/ld: ", "ld: ") < 0 ||
        str_replace_all(&text, b->obj, filename) < 0 ||
        (b->executable && str_replace_all(&text, HARNESS_OBJ, "the judge's harness") < 0))
        goto oom;

    const char *note = NULL;
    switch (res.status) {
    case SBX_EXITED:
        if (res.exit_code == 0)
            break;
        if (strstr(text, "multiple definition of `main'"))
            note = "note: the judge supplies main(); remove yours (keep only the function)";
        else if (strstr(text, "undefined reference to `") && res.step == 1 &&
                 strstr(text, p->function))
            note = "note: your file must define the function with exactly the signature "
                   "shown in the problem";
        else if (res.step == 2 && strstr(text, STUDENT_OBJECT_SECTION))
            note = "note: the section name " STUDENT_OBJECT_SECTION " is the judge's; "
                   "remove the section of that name from your file";
        break;
    case SBX_TIME_CPU:
    case SBX_TIME_WALL: note = "error: the compiler ran out of time (compile-time limit)"; break;
    case SBX_SIGNALED:
        note = res.signal == SIGXFSZ
                   ? "error: the compiler's output exceeded the file-size limit"
                   : "error: the compiler was stopped by a signal (memory or file limit)";
        break;
    case SBX_OUTPUT_TOO_BIG: note = "error: the compiled program is too large"; break;
    case SBX_OUTPUT_MISSING: note = "error: the compiler produced no program"; break;
    default: note = "error: the compiler failed"; break;
    }
    if (note) {
        char *joined = str_printf("%s%s%s\n", text, text[0] ? "\n" : "", note);
        if (!joined)
            goto oom;
        free(text);
        text = joined;
    }
    if (res.output_truncated) {
        char *joined = str_printf("%s\n[diagnostics truncated]\n", text);
        if (!joined)
            goto oom;
        free(text);
        text = joined;
    }
    if (res.status == SBX_EXITED && res.exit_code == 0) {
        *exe = sbx_memfd_seal(out_fd);
        out_fd = -1;
        if (*exe < 0) {
            errbuf_set(err, errlen, "reopen program: %s", strerror(errno));
            goto out;
        }
        /* checked once here, before anything runs: what the source made of
         * the program's headers is the submission's doing, never the judge's */
        char why[320];
        const char *refusal = b->executable ? program_refusal(*exe, why, sizeof why) : NULL;
        if (refusal) {
            close(*exe);
            *exe = -1;
            char *joined =
                str_printf("%s%s%s\n", text ? text : "", text && text[0] ? "\n" : "", refusal);
            if (joined) {
                free(*log);
                *log = joined;
            }
            rc = COMPILE_FAILED;
            goto out;
        }
        rc = COMPILED;
    } else {
        rc = COMPILE_FAILED;
    }
    *log = text;
    text = NULL;
    goto out;
oom:
    errbuf_set(err, errlen, "out of memory");
out:
    free(text);
    if (have_res)
        sbx_result_free(&res);
    for (int i = 0; i < BUILD_FILES; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (out_fd >= 0)
        close(out_fd);
    return rc;
}
