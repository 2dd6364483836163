/*
 * judge — the pipeline: compile, run every test, compare, decide.
 *
 * 1. Compile. The student's file, the generated prototype header and call
 *    stub and the harness runtime go into an SBX_COMPILE sandbox as
 *    memfds; two steps run there (compile the student's file alone, so its
 *    diagnostics name only it; then link statically with the harness). The
 *    program comes back as a memfd: the judge never opens a path the
 *    sandbox could have written. Its ELF program headers are read before
 *    anything runs: a loader request (PT_INTERP, PT_DYNAMIC) is a
 *    compile_error.
 * 2. The reference. Built the same way from the package's reference.c and
 *    cached under <data>/cache/<key>/, where key hashes everything that
 *    could change its outputs (problem.json, reference.c, the harness and
 *    the flags). Its outputs per test are cached there too.
 * 3. Each test: inputs from the seeded generator (hidden seeds from the
 *    deployment secret), the reference's outputs (cache or an SBX_RUN
 *    sandbox), the student's program in a fresh SBX_RUN sandbox with the
 *    same inputs, then compare.c. Expected outputs and seeds never enter a
 *    sandbox. After a fatal test (judge_verdict_is_fatal) the rest are not run,
 *    unless the problem sets run_all_tests.
 *
 * Two kinds of failure never mix: anything the submission did is a verdict;
 * a failure of the judge (the sandbox could not start, the cache could not
 * be written, the reference crashed) is internal_error with a message for
 * the operator, never shown as the student's fault.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "judge/crashsite.h"
#include "judge/errbuf.h"
#include "judge/explain.h"
#include "judge/gen.h"
#include "judge/harness.h"
#include "judge/judge.h"
#include "judge/pipeline.h"
#include "judge/schedule.h"
#include "sandbox/sandbox.h"
#include "util/clock.h"
#include "util/fs.h"

#define ERR_LEN 512
#define PROGRAM_MAX (64LL << 20) /* largest linked program accepted, bytes */
#define OUTPUT_SHOWN 8192        /* printed text kept per sample test, bytes */
#define HEATMAP_MAX (1 << 20)    /* elements of a per-element error map */
/* The first line of every cache manifest. Bumped whenever the way references
 * run changes in a way the manifest cannot see (the sandbox, the input blob),
 * so that cached outputs are not reused across such a change. */
#define CACHE_VERSION "attnjudge-cache-2"

static const char *const verdict_names[] = {
    [V_ACCEPTED] = "accepted",
    [V_WRONG_ANSWER] = "wrong_answer",
    [V_COMPILE_ERROR] = "compile_error",
    [V_RUNTIME_ERROR] = "runtime_error",
    [V_TIME_LIMIT] = "time_limit",
    [V_MEMORY_LIMIT] = "memory_limit",
    [V_SECURITY_VIOLATION] = "security_violation",
    [V_INTERNAL_ERROR] = "internal_error",
    [V_NOT_RUN] = "not_run",
};

const char *judge_verdict_name(enum judge_verdict v)
{
    if ((unsigned)v >= sizeof verdict_names / sizeof verdict_names[0])
        return "internal_error";
    return verdict_names[v];
}

int judge_verdict_from_name(const char *name)
{
    for (int i = 0; i < (int)V_NOT_RUN; i++)
        if (strcmp(verdict_names[i], name) == 0)
            return i;
    return -1;
}

bool judge_verdict_is_fatal(enum judge_verdict v)
{
    return v == V_TIME_LIMIT || v == V_RUNTIME_ERROR || v == V_MEMORY_LIMIT ||
           v == V_SECURITY_VIOLATION;
}

/* ---- context ---- */

static int toolchain_identify(const char *data_dir, char *out, size_t len, char *err,
                              size_t errlen);

struct probe_job {
    const char *data_dir;
    char *out;
    size_t len;
    char err[ERR_LEN];
    int rc;
};

static void *probe_thread(void *arg)
{
    struct probe_job *j = arg;
    j->rc = toolchain_identify(j->data_dir, j->out, j->len, j->err, sizeof j->err);
    return NULL;
}

struct judge_ctx *judge_open(const char *data_dir, char *err, size_t errlen)
{
    return judge_open_secret(data_dir, NULL, err, errlen);
}

struct judge_ctx *judge_open_secret(const char *data_dir, const char *secret_file, char *err,
                                    size_t errlen)
{
    struct judge_ctx *ctx = NULL;
    char path[4096];

    /* It picks the random source the secret and temporary names come
     * from; failing is no allocation failure and must not read as one. */
    if (sodium_init() < 0) {
        errbuf_set(err, errlen, "cannot initialise libsodium (no usable random source?)");
        return NULL;
    }
    if (!(ctx = calloc(1, sizeof *ctx))) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    ctx->data_dir = strdup(data_dir);
    /* secret_load creates the data directory; with a secret_file of its
     * own, a fresh host's directory is made here */
    if (secret_file && *secret_file && fs_mkdir_p(data_dir, 0700) < 0) {
        errbuf_set(err, errlen, "cannot create %s: %s", data_dir, strerror(errno));
        goto fail;
    }
    if (!ctx->data_dir ||
        (secret_file && *secret_file ? secret_load_file(secret_file, &ctx->secret, err, errlen)
                                     : secret_load(data_dir, &ctx->secret, err, errlen)) < 0)
        goto fail;
    snprintf(path, sizeof path, "%s/cache", data_dir);
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        errbuf_set(err, errlen, "cannot create %s: %s", path, strerror(errno));
        goto fail;
    }
    /* the toolchain probe (when its cached answer is stale) runs only the
     * trusted toolchain (gcc -dump*, ld --version), so it may run beside
     * the self-test, on another core; nothing of a submission runs before
     * the self-test has passed */
    struct probe_job job = {
        .data_dir = ctx->data_dir, .out = ctx->toolchain, .len = sizeof ctx->toolchain};
    pthread_t probe;
    bool threaded = pthread_create(&probe, NULL, probe_thread, &job) == 0;
    char why[400];
    int self = sbx_selftest(why, sizeof why);
    if (threaded)
        pthread_join(probe, NULL);
    else
        probe_thread(&job);
    if (self < 0) {
        errbuf_set(err, errlen, "refusing to judge: the sandbox does not work here: %s", why);
        goto fail;
    }
    if (job.rc < 0) {
        errbuf_set(err, errlen, "%s", job.err);
        goto fail;
    }
    return ctx;
fail:
    judge_close(ctx);
    return NULL;
}

void judge_close(struct judge_ctx *ctx)
{
    if (!ctx)
        return;
    sodium_memzero(&ctx->secret, sizeof ctx->secret);
    free(ctx->data_dir);
    free(ctx);
}

/* ---- small helpers ---- */

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* Replaces every occurrence of from by to in *s (reallocating). Returns 0,
 * or -1 (out of memory; *s unchanged). */
static int replace_all(char **s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    char *p;
    if (!*s || !fl)
        return 0;
    size_t count = 0;
    for (p = strstr(*s, from); p; p = strstr(p + fl, from))
        count++;
    if (!count)
        return 0;
    char *out = malloc(strlen(*s) + count * tl + 1); /* enough for any fl */
    if (!out)
        return -1;
    char *w = out;
    const char *r = *s;
    for (p = strstr(r, from); p; p = strstr(r, from)) {
        memcpy(w, r, (size_t)(p - r));
        w += p - r;
        memcpy(w, to, tl);
        w += tl;
        r = p + fl;
    }
    strcpy(w, r);
    free(*s);
    *s = out;
    return 0;
}

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

/* A student-chosen file name is only a label: keep it if it is a plain,
 * short C file name, otherwise call it solution.c. It goes on the
 * compiler's command line, so it never starts with '-' (gcc would read
 * "-v.c" as an option) and never names one of the judge's own files. */
static void safe_filename(const char *in, char *out, size_t len)
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

/* ---- the linked program's ELF headers ---- */

/* What the judge reads from a linked program's program headers. */
struct program_info {
    bool interp;   /* PT_INTERP: the program asks for a dynamic loader */
    bool dynamic;  /* PT_DYNAMIC: dynamic linking information */
    int64_t image; /* bytes: the span of the PT_LOAD segments (text, data,
                    * .bss) plus the PT_TLS block static glibc allocates at
                    * start-up */
};

/* Reads the program headers of fd. The file comes from the sandboxed
 * compiler and its sections from the student (`.interp`, `.dynamic`, huge
 * `.bss` or `__thread` arrays), so every field is bounds-checked. Returns 0,
 * or -1 if the file is not a readable ELF64 executable. */
static int program_inspect(int fd, struct program_info *pi)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;
    uint64_t lo = UINT64_MAX, hi = 0, tls = 0;
    bool huge = false;

    memset(pi, 0, sizeof *pi);
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof ph || eh.e_phnum > 64 || eh.e_phoff > (uint64_t)PROGRAM_MAX)
        return -1;
    for (int i = 0; i < eh.e_phnum; i++) {
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) !=
            (ssize_t)sizeof ph)
            return -1;
        if (ph.p_type == PT_INTERP)
            pi->interp = true;
        if (ph.p_type == PT_DYNAMIC)
            pi->dynamic = true;
        if (ph.p_type == PT_TLS) {
            if (ph.p_memsz > (uint64_t)INT64_MAX / 4 || ph.p_align > (uint64_t)INT64_MAX / 4 ||
                tls > (uint64_t)INT64_MAX / 4)
                huge = true;
            else
                tls += ph.p_memsz + ph.p_align;
        }
        if (ph.p_type != PT_LOAD)
            continue;
        if (ph.p_vaddr > UINT64_MAX - ph.p_memsz) {
            huge = true;
            continue;
        }
        if (ph.p_vaddr < lo)
            lo = ph.p_vaddr;
        if (ph.p_vaddr + ph.p_memsz > hi)
            hi = ph.p_vaddr + ph.p_memsz;
    }
    if (hi <= lo && !huge)
        return -1;
    if (huge || hi - lo > (uint64_t)INT64_MAX - tls)
        pi->image = INT64_MAX;
    else
        pi->image = (int64_t)(hi - lo + tls);
    return 0;
}

/* Why the judge refuses to run a linked program, or NULL. Programs are
 * linked with -static: a PT_INTERP (a student's `.interp` section) would
 * make exec look for a loader the empty run root does not have, and a
 * PT_DYNAMIC (a `.dynamic` section) has no business in a static program. */
static const char *program_refusal(int fd)
{
    struct program_info pi;
    if (program_inspect(fd, &pi) < 0)
        return "error: the linked program is not a valid ELF executable";
    if (pi.interp || pi.dynamic)
        return pi.interp ? "error: the linked program asks for a dynamic loader (a .interp "
                           "section): the judge runs static programs only"
                         : "error: the linked program has dynamic-linking information (a "
                           ".dynamic section): the judge runs static programs only";
    return NULL;
}

/* ---- compiling ---- */

#define BUILD_FILES 4 /* at most: the harness build's attnjudge.h, call stub, runtime, header */
#define BUILD_ARGV 24
#define BUILD_STEPS 2
/* The harness object: the generated call stub and the harness runtime,
 * compiled once per problem version and toolchain (harness_object). */
#define HARNESS_OBJ "attnjudge_harness.o"

/* Everything one compile sandbox is given: the files placed in /work (name
 * and text) and the argv of each step. The product is a function of this
 * and of the toolchain alone, which is why the caches are keyed on exactly
 * this (build_manifest). */
struct build {
    int n_files, n_steps;
    const char *names[BUILD_FILES];
    const char *text[BUILD_FILES];
    size_t len[BUILD_FILES];
    const char *steps[BUILD_STEPS][BUILD_ARGV];
    const char *output;     /* the file copied out of /work after the last step */
    bool executable;        /* the product is a program (its ELF headers are checked) */
    char obj[64];           /* the student's object, "<name>.o" */
    char *proto_h, *call_c; /* generated for the problem; owned */
    char *harness;          /* the harness object's bytes; owned */
    size_t harness_len;
    char *harness_manifest; /* the manifest the harness object was built from; owned */
};

static void build_free(struct build *b)
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

/* Describes how the harness object of p is built: the generated prototype
 * header and call stub and the fixed runtime, compiled and joined into one
 * relocatable object (gcc -r; no start files, no libraries: the link of
 * each program adds them). Returns 0, or -1 with err; build_free either
 * way. */
static int build_harness(struct build *b, const struct problem *p, char *err, size_t errlen)
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

static int harness_object(const struct judge_ctx *ctx, const struct problem *p, char **obj,
                          size_t *obj_len, char **manifest, char *err, size_t errlen);

/* Describes how source (len bytes, named filename, which outlives b) is
 * compiled for p: with the prototype header, then linked with p's harness
 * object (from the cache, built there first if missing). Returns 0, or -1
 * with err; build_free either way. */
static int build_make(struct build *b, const struct judge_ctx *ctx, const struct problem *p,
                      const char *source, size_t len, const char *filename, char *err,
                      size_t errlen)
{
    int n = 0;

    memset(b, 0, sizeof *b);
    snprintf(b->obj, sizeof b->obj, "%.*s.o", (int)strlen(filename) - 2, filename);
    if (harness_generate(p, &b->proto_h, &b->call_c) < 0) {
        errbuf_set(err, errlen, "cannot generate the harness for %s", p->slug);
        return -1;
    }
    if (harness_object(ctx, p, &b->harness, &b->harness_len, &b->harness_manifest, err, errlen) < 0)
        return -1;
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
    b->n_steps = 2;
    b->output = "program";
    b->executable = true;
    return 0;
}

/* BLAKE2b-256 of data as 64 hex digits. */
static void hash_hex(const void *data, size_t len, char hex[65])
{
    unsigned char h[32];

    crypto_generichash(h, sizeof h, data, len, NULL, 0);
    sodium_bin2hex(hex, 65, h, sizeof h);
}

/* The build as text, one fact per line: the cache version, the toolchain,
 * problem.json (it decides the tests whose outputs are cached too; NULL
 * for the harness object, which depends on the problem only through its
 * generated files), every file's name and hash, every argument of every
 * step, and the harness object's own manifest, each line prefixed with
 * "harness ". Anything that can change the product or the reference's
 * outputs is in here, so hashing this text is the cache key. Returns a new
 * string or NULL (out of memory). */
static char *build_manifest(const struct build *b, const char *toolchain, const char *json_text)
{
    char *text = NULL, hex[65];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return NULL;
    fprintf(f, "%s\n%s", CACHE_VERSION, toolchain);
    if (json_text) {
        hash_hex(json_text, strlen(json_text), hex);
        fprintf(f, "problem.json %s\n", hex);
    }
    for (int i = 0; i < b->n_files; i++) {
        hash_hex(b->text[i], b->len[i], hex);
        fprintf(f, "file %s %s\n", b->names[i], hex);
    }
    /* one argument per line: no argument can pass for two */
    for (int k = 0; k < b->n_steps; k++)
        for (int i = 0; b->steps[k][i]; i++)
            fprintf(f, "step%d %s\n", k + 1, b->steps[k][i]);
    for (const char *l = b->harness_manifest; l && *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        fprintf(f, "harness %.*s\n", n, l);
        l += n + (e ? 1 : 0);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Identifies the toolchain the compile sandbox sees, as the lines
 * "gcc VERSION MACHINE", "ld FIRST-LINE-OF-VERSION", "libc glibc VERSION"
 * (each ending in '\n'): a compiler, binutils or libc upgrade changes the
 * programs built, so it must change the reference cache key. Returns 0 or
 * -1 with err. */
static int toolchain_probe(char *out, size_t len, char *err, size_t errlen)
{
    /* gcc prints only the first of several -dump options: one step each */
    static const char *const version[] = {"/usr/bin/gcc", "-dumpfullversion", NULL};
    static const char *const machine[] = {"/usr/bin/gcc", "-dumpmachine", NULL};
    static const char *const ld[] = {"/usr/bin/ld", "--version", NULL};
    struct sbx_spec spec;
    struct sbx_result res;
    char why[400], gcc_version[64] = "", gcc_machine[64] = "", linker[160] = "";
    int fd = sbx_memfd_new("attnjudge-probe"), rc = -1;

    if (fd < 0) {
        errbuf_set(err, errlen, "memfd: %s", strerror(errno));
        return -1;
    }
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_COMPILE;
    sbx_limits_default(SBX_COMPILE, &spec.limits);
    spec.steps[0] = version;
    spec.steps[1] = machine;
    spec.steps[2] = ld;
    spec.n_steps = 3;
    spec.output_name = "none"; /* nothing is built */
    spec.output_fd = fd;
    spec.output_max = 0;
    if (sbx_run(&spec, &res, why, sizeof why) < 0) {
        errbuf_set(err, errlen, "cannot identify the compiler: %s", why);
        close(fd);
        return -1;
    }
    close(fd);
    if (res.status == SBX_OUTPUT_MISSING && res.exit_code == 0 && res.output &&
        sscanf(res.output, "%63[^\n]\n%63[^\n]\n%159[^\n]", gcc_version, gcc_machine, linker) ==
            3) {
        snprintf(out, len, "gcc %s %s\nld %s\nlibc glibc %s\n", gcc_version, gcc_machine, linker,
                 gnu_get_libc_version());
        rc = 0;
    } else {
        errbuf_set(err, errlen, "cannot identify the compiler (status %d, exit %d): %.200s",
                   res.status, res.exit_code, res.output ? res.output : "");
    }
    sbx_result_free(&res);
    return rc;
}

/* What decides the probe's answer: gcc's driver, whose version and target
 * are compiled in, ld, and the libc the judge runs on. */
static const char *const toolchain_files[] = {"/usr/bin/gcc", "/usr/bin/ld", NULL};

/* A line that changes whenever the probe could answer differently: the
 * identity of each of toolchain_files (device, inode, size, modification
 * and change times: an upgrade installs new files, an alternative points
 * elsewhere) and the libc version. Returns 0, or -1 when a file cannot be
 * examined (the probe then runs, and says what is wrong). */
static int toolchain_fingerprint(char *out, size_t len)
{
    int n = snprintf(out, len, "fingerprint libc %s", gnu_get_libc_version());
    size_t at = 0;
    for (int i = 0; n >= 0 && toolchain_files[i]; i++) {
        struct stat st;
        if (stat(toolchain_files[i], &st) < 0)
            return -1;
        at += (size_t)n;
        n = at < len ? snprintf(out + at, len - at, " %s:%jx:%jx:%jd:%jd.%09ld:%jd.%09ld",
                                toolchain_files[i], (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
                                (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
                                st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec)
                     : -1;
    }
    if (n < 0 || (at += (size_t)n) + 2 > len)
        return -1;
    memcpy(out + at, "\n", 2);
    return 0;
}

/* toolchain_probe's answer, kept in <data_dir>/cache/toolchain after the
 * fingerprint of what decides it: the probe starts three programs in a
 * compile sandbox (~15 ms), which every `attnjudge judge` paid before its
 * first compile. The file is a cache: unreadable, stale or malformed, it
 * is replaced by a new probe's answer. Returns 0 or -1 with err. */
static int toolchain_identify(const char *data_dir, char *out, size_t len, char *err, size_t errlen)
{
    char fp[1024] = "", path[4096];
    char *text = NULL;
    size_t n = 0;

    snprintf(path, sizeof path, "%s/cache/toolchain", data_dir);
    bool have_fp = toolchain_fingerprint(fp, sizeof fp) == 0;
    size_t fl = strlen(fp);
    if (have_fp && fs_read_file(path, O_NOFOLLOW, 4096, &text, &n) == 0 && n > fl && n - fl < len &&
        memcmp(text, fp, fl) == 0 && !memchr(text + fl, '\0', n - fl) &&
        strncmp(text + fl, "gcc ", 4) == 0 && text[n - 1] == '\n') {
        memcpy(out, text + fl, n - fl + 1);
        free(text);
        return 0;
    }
    free(text);
    if (toolchain_probe(out, len, err, errlen) < 0)
        return -1;
    size_t ol = strlen(out);
    if (have_fp && (text = malloc(fl + ol + 1))) {
        memcpy(text, fp, fl);
        memcpy(text + fl, out, ol + 1);
        if (fs_write_atomic(path, text, fl + ol, 0600) < 0) {
            /* the next judge_open probes again: slower, never wrong */
        }
        free(text);
    }
    return 0;
}

enum compile_outcome { COMPILED, COMPILE_FAILED, COMPILE_INTERNAL };

/* Runs build b in a compile sandbox. On COMPILED, *exe is a read-only memfd
 * of the program. *log is the (rewritten) diagnostics either way, or NULL
 * on COMPILE_INTERNAL. */
static enum compile_outcome compile_program(const struct problem *p, const struct build *b,
                                            int *exe, char **log, double *cpu_ms, double *wall_ms,
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

    text = xstrdup(res.output ? res.output : "");
    if (!text)
        goto oom;
    strip_temp_objects(text);
    if (replace_all(&text, "/usr/bin/ld: ", "ld: ") < 0 ||
        replace_all(&text, b->obj, filename) < 0 ||
        (b->executable && replace_all(&text, HARNESS_OBJ, "the judge's harness") < 0))
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
        char *joined = xasprintf("%s%s%s\n", text, text[0] ? "\n" : "", note);
        if (!joined)
            goto oom;
        free(text);
        text = joined;
    }
    if (res.output_truncated) {
        char *joined = xasprintf("%s\n[diagnostics truncated]\n", text);
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
        const char *refusal = b->executable ? program_refusal(*exe) : NULL;
        if (refusal) {
            close(*exe);
            *exe = -1;
            char *joined =
                xasprintf("%s%s%s\n", text ? text : "", text && text[0] ? "\n" : "", refusal);
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

/* ---- the reference and its cache ---- */

/* <data>/cache/<prefix><slug>-<BLAKE2b-128 of the manifest>, created if
 * missing. */
static int cache_dir(const struct judge_ctx *ctx, const struct problem *p, const char *prefix,
                     const char *manifest, char *out, size_t len)
{
    unsigned char h[16];
    char hex[33];

    crypto_generichash(h, sizeof h, (const unsigned char *)manifest, strlen(manifest), NULL, 0);
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    snprintf(out, len, "%s/cache/%s%s-%s", ctx->data_dir, prefix, p->slug, hex);
    if (mkdir(out, 0700) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* The harness object of p: read from <data>/cache/harness-<slug>-<key>/,
 * or compiled there in a sandbox of its own on a miss (once per problem
 * version and toolchain: the key is its manifest's hash, as for the
 * reference). *manifest receives that manifest: every build linked with
 * the object names it in its own (build_manifest). Returns 0 with two new
 * buffers, or -1 with err. */
static int harness_object(const struct judge_ctx *ctx, const struct problem *p, char **obj,
                          size_t *obj_len, char **manifest, char *err, size_t errlen)
{
    char dir[4096], path[4200], *log = NULL;
    struct build b;
    int fd = -1, rc = -1;

    *obj = NULL;
    *obj_len = 0;
    *manifest = NULL;
    if (build_harness(&b, p, err, errlen) < 0)
        goto out;
    if (!(*manifest = build_manifest(&b, ctx->toolchain, NULL))) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (cache_dir(ctx, p, "harness-", *manifest, dir, sizeof dir) < 0) {
        errbuf_set(err, errlen, "cannot create the cache directory %s: %s", dir, strerror(errno));
        goto out;
    }
    snprintf(path, sizeof path, "%s/" HARNESS_OBJ, dir);
    if (fs_read_file(path, O_NOFOLLOW, PROGRAM_MAX, obj, obj_len) == 0) {
        rc = 0;
        goto out;
    }
    double cpu, wall;
    enum compile_outcome c = compile_program(p, &b, &fd, &log, &cpu, &wall, NULL, err, errlen);
    if (c == COMPILE_INTERNAL)
        goto out;
    if (c == COMPILE_FAILED) {
        errbuf_set(err, errlen, "problem %s: the harness does not compile:\n%s", p->slug,
                   log ? log : "");
        goto out;
    }
    if (fs_read_fd(fd, PROGRAM_MAX, obj, obj_len) < 0) {
        errbuf_set(err, errlen, "reading the harness object: %s", strerror(errno));
        goto out;
    }
    /* a cache that cannot be written only costs time */
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    if (fs_write_atomic(path, *manifest, strlen(*manifest), 0600) == 0) {
        snprintf(path, sizeof path, "%s/" HARNESS_OBJ, dir);
        if (fs_write_atomic(path, *obj, *obj_len, 0600) < 0) {
            /* rebuilt next time */
        }
    }
    rc = 0;
out:
    if (rc < 0) {
        free(*obj);
        free(*manifest);
        *obj = *manifest = NULL;
    }
    if (fd >= 0)
        close(fd);
    free(log);
    build_free(&b);
    return rc;
}

/* Opens a trusted program of the package, the reference or a known
 * mistake (source at src_path, compiled as filename), compiling it on a
 * cache miss. dir receives the cache directory of this build: the key
 * covers the source, so each mistake has its own directory and its own
 * cached outputs, under the same discipline as the reference's. */
static int program_from_text(const struct judge_ctx *ctx, const struct problem *p, const char *src,
                             size_t src_len, const char *filename, char *dir, size_t dirlen,
                             int *exe, char *err, size_t errlen);

static int package_program(const struct judge_ctx *ctx, const struct problem *p,
                           const char *src_path, const char *filename, char *dir, size_t dirlen,
                           int *exe, char *err, size_t errlen)
{
    char *src = NULL;
    size_t src_len = 0;

    if (!src_path || fs_read_file(src_path, O_NOFOLLOW, PROBLEM_MAX_FILE, &src, &src_len) < 0) {
        errbuf_set(err, errlen, "problem %s: cannot read %s", p->slug, filename);
        return -1;
    }
    int rc = program_from_text(ctx, p, src, src_len, filename, dir, dirlen, exe, err, errlen);
    free(src);
    return rc;
}

/* package_program's work for a source already in memory: a trusted
 * program of the judge's own (the reference, a mistake, the empty function
 * the benchmark measures its overhead with), compiled once and cached. */
static int program_from_text(const struct judge_ctx *ctx, const struct problem *p, const char *src,
                             size_t src_len, const char *filename, char *dir, size_t dirlen,
                             int *exe, char *err, size_t errlen)
{
    char *bin = NULL, *manifest = NULL;
    size_t bin_len = 0;
    char path[4200], *log = NULL;
    struct build b;
    int rc = -1;

    memset(&b, 0, sizeof b);
    if (build_make(&b, ctx, p, src, src_len, filename, err, errlen) < 0)
        goto out;
    if (!(manifest = build_manifest(&b, ctx->toolchain, p->json_text))) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (cache_dir(ctx, p, "", manifest, dir, dirlen) < 0) {
        errbuf_set(err, errlen, "cannot create the cache directory %s: %s", dir, strerror(errno));
        goto out;
    }
    snprintf(path, sizeof path, "%s/reference.bin", dir);
    if (fs_read_file(path, O_NOFOLLOW, PROGRAM_MAX, &bin, &bin_len) == 0) {
        *exe = sbx_memfd_from("attnjudge-reference", bin, bin_len);
        rc = *exe < 0 ? -1 : 0;
        if (rc < 0)
            errbuf_set(err, errlen, "memfd: %s", strerror(errno));
        goto out;
    }
    double cpu, wall;
    enum compile_outcome c = compile_program(p, &b, exe, &log, &cpu, &wall, NULL, err, errlen);
    if (c == COMPILE_INTERNAL)
        goto out;
    if (c == COMPILE_FAILED) {
        errbuf_set(err, errlen, "problem %s: %s does not compile:\n%s", p->slug, filename,
                   log ? log : "");
        goto out;
    }
    /* The manifest says what the key was made of (for an operator asking
     * why a reference was rebuilt). A cache that cannot be written only
     * costs time. */
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    if (fs_write_atomic(path, manifest, strlen(manifest), 0600) == 0 &&
        fs_read_fd(*exe, PROGRAM_MAX, &bin, &bin_len) == 0) {
        snprintf(path, sizeof path, "%s/reference.bin", dir);
        if (fs_write_atomic(path, bin, bin_len, 0600) < 0) {
            /* rebuilt next time */
        }
    }
    rc = 0;
out:
    build_free(&b);
    free(manifest);
    free(bin);
    free(log);
    return rc;
}

/* Opens the reference program; dir receives its cache directory. */
static int reference_program(const struct judge_ctx *ctx, const struct problem *p, char *dir,
                             size_t dirlen, int *exe, char *err, size_t errlen)
{
    return package_program(ctx, p, p->reference_path, "reference.c", dir, dirlen, exe, err, errlen);
}

/* ---- one test's data ---- */

struct test_data {
    struct harness_tensors t;
    int input_fd;     /* the input blob, read-only memfd */
    size_t out_bytes; /* all outputs together */
};

static void test_data_free(const struct problem *p, struct test_data *d)
{
    for (int i = 0; i < p->n_params; i++)
        free(d->t.data[i]);
    if (d->input_fd >= 0)
        close(d->input_fd);
    memset(d, 0, sizeof *d);
    d->input_fd = -1;
}

/* The input blob of a test as cached: <cache>/<test>.<seed>.in, next to
 * its expected outputs (the blob depends on what they depend on: the
 * reference cache's key covers problem.json and the protocol header, the
 * seed is in the name, and CACHE_VERSION the generator). Generating the
 * inputs costs more CPU time than most solutions take (twelve draws per
 * normal element); reading them back costs a copy. */
static int test_data_cached(const struct problem *p, const char *cache, const struct test_case *tc,
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
static void test_data_cache(const char *cache, const struct test_case *tc, uint64_t seed,
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

static int test_data_make(const struct problem *p, const int64_t *dims, const double *scalars,
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

static void run_limits(const struct problem_limits *l, bool reference, struct sbx_limits *out)
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

static int run_program(int exe, const struct test_data *d, const struct sbx_limits *lim,
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
static void reference_failure(const struct sbx_result *res, const struct sbx_limits *lim,
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
static unsigned char *outputs_pack(const struct problem *p, const struct test_data *d,
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
static unsigned char *expected_outputs(const struct problem *p, const char *cache, int ref_exe,
                                       const char *test_name, uint64_t seed,
                                       const struct problem_limits *limits,
                                       const struct test_data *d, bool *ref_failed, char *err,
                                       size_t errlen)
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

/* ---- verdict of one test ---- */

/* Compares every output; fills the test report; returns the verdict, or
 * V_INTERNAL_ERROR if an allocation failed (a report missing a tensor, its
 * name, its error map or the message would mislead). */
static enum judge_verdict compare_outputs(const struct problem *p, const struct test_case *tc,
                                          const int64_t *dims, const struct test_data *d,
                                          const unsigned char *expected,
                                          const struct harness_result *hr,
                                          struct judge_test_report *tr)
{
    size_t at = 0;
    int k;
    bool pass = true;
    int n_out = 0;

    for (int i = 0; i < p->n_params; i++)
        if (param_is_output(&p->params[i]) && !d->t.is_null[i])
            n_out++;
    tr->tensors = calloc((size_t)(n_out ? n_out : 1), sizeof *tr->tensors);
    if (!tr->tensors)
        return V_INTERNAL_ERROR;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        struct judge_tensor_report *t = &tr->tensors[tr->n_tensors++];
        size_t bytes = (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
        if (!(t->name = xstrdup(q->name)))
            return V_INTERNAL_ERROR;
        t->rank = dims_tensor_shape(p, i, dims, t->shape);
        compare_tensor(expected + at, hr->outputs[i], q->dtype, t->shape, t->rank, &p->tol,
                       &t->cmp);
        if (tc->kind == TEST_SAMPLE && q->dtype == DT_F32 && d->t.n_elems[i] <= HEATMAP_MAX) {
            t->abs_err = malloc((size_t)d->t.n_elems[i] * sizeof(float));
            if (!t->abs_err)
                return V_INTERNAL_ERROR;
            for (int64_t e = 0; e < d->t.n_elems[i]; e++) {
                float ev, gv;
                memcpy(&ev, expected + at + (size_t)e * 4, 4);
                memcpy(&gv, hr->outputs[i] + (size_t)e * 4, 4);
                float diff = fabsf(gv - ev);
                /* judge.h: NaN marks an element never written */
                t->abs_err[e] = compare_classify_f32(gv) == CMP_NAN_UNWRITTEN ? NAN
                                : isfinite(diff)                              ? diff
                                                                              : INFINITY;
            }
        }
        if (!t->cmp.pass) {
            pass = false;
            t->message =
                explain_tensor(t->name, t->shape, t->rank, &t->cmp, tc->kind == TEST_SAMPLE);
            if (!t->message)
                return V_INTERNAL_ERROR;
        }
        if (t->cmp.max_abs_err > tr->max_abs_err)
            tr->max_abs_err = t->cmp.max_abs_err;
        if (t->cmp.max_rel_err > tr->max_rel_err)
            tr->max_rel_err = t->cmp.max_rel_err;
        tr->n_mismatch += t->cmp.n_mismatch;
        tr->n_finite += t->cmp.n_finite;
        at += bytes;
    }
    tr->compared = true;
    if (pass)
        return V_ACCEPTED;

    /* every failed output's own message, in signature order */
    for (k = 0; k < tr->n_tensors; k++) {
        const char *m = tr->tensors[k].message;
        if (!m)
            continue;
        char *joined = tr->message ? xasprintf("%s; %s", tr->message, m) : xstrdup(m);
        free(tr->message);
        tr->message = joined;
        if (!joined)
            return V_INTERNAL_ERROR;
    }
    return V_WRONG_ANSWER;
}

/* Maps how the program ended to a verdict (V_ACCEPTED: it returned
 * normally and its outputs are to be compared). */
static enum judge_verdict classify_run(const struct sbx_result *res,
                                       const struct harness_result *hr,
                                       const struct problem_limits *lim, char **message)
{
    char text[512];
    switch (res->status) {
    case SBX_TIME_CPU:
        *message = explain_end(EXPLAIN_TIME_CPU, lim->cpu_ms, 0);
        return V_TIME_LIMIT;
    case SBX_TIME_WALL:
        *message = explain_end(EXPLAIN_TIME_WALL, lim->wall_ms, 0);
        return V_TIME_LIMIT;
    case SBX_VIOLATION:
        explain_syscall(res->syscall_name, text, sizeof text);
        *message = xstrdup(text);
        return V_SECURITY_VIOLATION;
    case SBX_EXEC_FAILED:
        if (res->exec_errno == ENOMEM || res->exec_errno == E2BIG) {
            *message = explain_end(EXPLAIN_EXEC_NOMEM, lim->memory_mb, 0);
            return V_MEMORY_LIMIT;
        }
        *message = xasprintf("the program could not start: %s", strerror(res->exec_errno));
        return V_INTERNAL_ERROR;
    case SBX_SIGNALED:
        if (hr->nomem) {
            *message = explain_end(EXPLAIN_NO_MEMORY, lim->memory_mb, 0);
            return V_MEMORY_LIMIT;
        }
        /* a sample test's crash gets more (judge_test); this is a hidden
         * test's, and the start of a sample test's */
        *message = explain_crash(res->signal, NULL, 0, NULL);
        return V_RUNTIME_ERROR;
    case SBX_EXITED:
        if (res->exit_code == 0 && hr->done)
            return V_ACCEPTED;
        if (hr->nomem) {
            *message = explain_end(EXPLAIN_NO_MEMORY, lim->memory_mb, 0);
            return V_MEMORY_LIMIT;
        }
        *message = explain_end(EXPLAIN_EXIT, res->exit_code, 0);
        return V_RUNTIME_ERROR;
    case SBX_OUTPUT_TOO_BIG:
    case SBX_OUTPUT_MISSING: break; /* compile outcomes, not a run's */
    }
    *message = xstrdup("unexpected sandbox status");
    return V_INTERNAL_ERROR;
}

/* A hint for a crash in a sample test of a problem with a mask-like input
 * (the first u8 input tensor): its shape, whether it lacks the batch
 * dimension (the leading dimension of the first output), and whether it may
 * be NULL (when it is NULL in this test, explain_crash says so). Indexing a
 * shared (Tq, Tk) mask per batch, or reading a NULL one, is the usual crash
 * there. Derived from the parameters only; NULL when the problem has no
 * such input or on allocation failure. */
static char *mask_hint(const struct problem *p, const struct test_case *tc)
{
    const struct param *mask = NULL, *out = NULL;
    int mi = -1;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (q->kind != PARAM_TENSOR)
            continue;
        if (!mask && q->role == ROLE_IN && q->dtype == DT_U8) {
            mask = q;
            mi = i;
        }
        if (!out && param_is_output(q))
            out = q;
    }
    if (!mask)
        return NULL;
    char shape[160] = "";
    size_t at = 0;
    bool has_batch = false;
    const char *batch = out && out->rank >= 2 ? out->shape_text[0] : NULL;
    for (int k = 0; k < mask->rank && at < sizeof shape; k++) {
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%s", k ? ", " : "",
                               mask->shape_text[k]);
        if (batch && strcmp(mask->shape_text[k], batch) == 0)
            has_batch = true;
    }
    return explain_mask_shape(mask->name, shape, batch && !has_batch ? batch : NULL,
                              mask->nullable && !tc->is_null[mi]);
}

/* The message of a crash (signal sig) on sample test tc: the signal in
 * words, the tensors this test passes as NULL, the mask hint. NULL when
 * out of memory. */
static char *sample_crash_message(const struct problem *p, const struct test_case *tc, int sig)
{
    const char *nulls[PROBLEM_MAX_PARAMS];
    int n_nulls = 0;
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_TENSOR && tc->is_null[i])
            nulls[n_nulls++] = p->params[i].name;
    char *hint = mask_hint(p, tc);
    char *m = explain_crash(sig, nulls, n_nulls, hint);
    free(hint);
    return m;
}

/* The sentence after a sample test's crash message: its line in src, or
 * where to find it (crashsite.h). NULL when out of memory. The line is
 * feedback, never the verdict: when the sandbox that reads the line table
 * cannot run, the student is pointed to the sample kit instead. */
static char *crash_site_message(int exe, const struct crashsite_source *src,
                                const struct harness_result *hr)
{
    struct crashsite site;
    char why[ERR_LEN];
    int found = hr->crashed ? crashsite_find(exe, src, &hr->crash, &site, why, sizeof why) : 0;
    return crashsite_describe(src, found > 0 ? &site : NULL);
}

/* ---- the pipeline ---- */

static void progress(const struct judge_options *opt, const char *stage, int i, int n)
{
    if (opt && opt->progress)
        opt->progress(opt->progress_arg, stage, i, n);
}

/* True if msg reports the machine running out of something (descriptors,
 * memory, processes) rather than a fault. The failures reach here as
 * messages built with strerror() by many layers (sandbox, compile, cache),
 * so they are recognised by the same strerror() texts. */
static bool resource_failure(const char *msg)
{
    static const int resource_errnos[] = {EMFILE, ENFILE, ENOMEM, EAGAIN, ENOBUFS};
    if (strstr(msg, "out of memory"))
        return true;
    for (size_t i = 0; i < sizeof resource_errnos / sizeof resource_errnos[0]; i++)
        if (strstr(msg, strerror(resource_errnos[i])))
            return true;
    return false;
}

static void internal(struct judge_report *r, const char *msg)
{
    r->verdict = V_INTERNAL_ERROR;
    r->score = 0;
    r->transient = resource_failure(msg);
    free(r->internal_message);
    r->internal_message = xstrdup(msg);
}

/* Runs one test into tr. When got is not NULL and the test's outputs were
 * compared, *got receives them (outputs_pack's layout), for the diagnosis.
 * src: the file exe was built from, to name the line of a crash on a
 * sample test (NULL: not named). */
static void judge_test(struct judge_ctx *ctx, const struct problem *p, const char *cache,
                       int ref_exe, int exe, const struct crashsite_source *src,
                       const struct test_case *tc, struct judge_test_report *tr, bool *ref_failed,
                       unsigned char **got, char *err, size_t errlen)
{
    struct test_data d;
    unsigned char *expected = NULL;
    struct sbx_result res;
    bool have_res = false;
    uint64_t seed = judge_test_seed(ctx, p, tc);

    tr->verdict = V_INTERNAL_ERROR;
    memset(&d, 0, sizeof d);
    d.input_fd = -1;
    int cached = test_data_cached(p, cache, tc, seed, &d, err, errlen);
    if (cached < 0)
        goto out;
    if (cached > 0) {
        if (test_data_make(p, tc->dims, tc->scalars, seed, tc->gen, tc->is_null, &d, err, errlen) <
            0)
            goto out;
        test_data_cache(cache, tc, seed, &d);
    }
    expected = expected_outputs(p, cache, ref_exe, tc->name, seed, &tc->limits, &d, ref_failed, err,
                                errlen);
    if (!expected)
        goto out;

    struct sbx_limits lim;
    struct program_info pi;
    run_limits(&tc->limits, false, &lim);
    /* an image over the limit is killed by the kernel while it starts, or
     * stopped by glibc's TLS allocation: it would look like a crash */
    if (program_inspect(exe, &pi) == 0 && pi.image > lim.memory_bytes) {
        tr->verdict = V_MEMORY_LIMIT;
        tr->message = explain_end(EXPLAIN_IMAGE_TOO_BIG, pi.image >> 20, tc->limits.memory_mb);
        if (!tr->message)
            goto oom;
        goto out;
    }
    if (run_program(exe, &d, &lim, &res, err, errlen) < 0)
        goto out;
    have_res = true;
    tr->time_ms = res.cpu_ms;
    tr->wall_ms = res.wall_ms;
    tr->setup_ms = res.setup_ms;
    if (tc->kind == TEST_SAMPLE && res.output_len > 0) {
        size_t n = res.output_len < OUTPUT_SHOWN ? res.output_len : OUTPUT_SHOWN;
        tr->output =
            xasprintf("%.*s%s", (int)n, res.output,
                      res.output_len > n || res.output_truncated ? "\n[output truncated]" : "");
        if (!tr->output)
            goto oom;
    }
    struct harness_result hr;
    harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
    tr->verdict = classify_run(&res, &hr, &tc->limits, &tr->message);
    if (tr->verdict != V_ACCEPTED && !tr->message)
        goto oom;
    /* only in sample tests: what a student sees of the test's data */
    if (tc->kind == TEST_SAMPLE && tr->verdict == V_RUNTIME_ERROR && res.status == SBX_SIGNALED) {
        char *m = sample_crash_message(p, tc, res.signal);
        if (!m)
            goto oom;
        free(tr->message);
        tr->message = m;
        if (src) {
            if (!(m = crash_site_message(exe, src, &hr)))
                goto oom;
            char *joined = xasprintf("%s %s", tr->message, m);
            free(m);
            if (!joined)
                goto oom;
            free(tr->message);
            tr->message = joined;
        }
    }
    if (tr->verdict == V_INTERNAL_ERROR) {
        errbuf_set(err, errlen, "test %s: %s", tc->name, tr->message ? tr->message : "");
        goto out;
    }
    if (tr->verdict != V_ACCEPTED)
        goto out;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        if (param_is_output(q) && !d.t.is_null[i] && !hr.outputs[i]) {
            tr->verdict = V_WRONG_ANSWER;
            tr->message = explain_end(EXPLAIN_NO_OUTPUTS, 0, 0);
            if (!tr->message)
                goto oom;
            goto out;
        }
    }
    double t0 = clock_mono_ms();
    tr->verdict = compare_outputs(p, tc, tc->dims, &d, expected, &hr, tr);
    tr->compare_ms = clock_mono_ms() - t0;
    if (tr->verdict == V_INTERNAL_ERROR)
        goto oom;
    if (got && !(*got = outputs_pack(p, &d, &hr)))
        goto oom;
    goto out;
oom:
    /* the judge failed, not the submission: never a report with a hole */
    tr->verdict = V_INTERNAL_ERROR;
    errbuf_set(err, errlen, "test %s: out of memory", tc->name);
out:
    if (have_res)
        sbx_result_free(&res);
    free(expected);
    test_data_free(p, &d);
}

/* ---- mistake diagnosis ---- */

/* True if every output in got (a submission's, outputs_pack's layout) is
 * within the problem's tolerance of the same output in ref (a mistake's),
 * which plays the expected side, as the reference's does in a test. Unlike
 * a test, NaN matches NaN here: a mistake such as a row with no key to
 * attend to produces NaN, and the same NaN is the evidence of the same
 * mistake (got is modified: such elements are zeroed on both sides). */
static bool outputs_match(const struct problem *p, const int64_t *dims, const struct test_data *d,
                          unsigned char *ref, unsigned char *got)
{
    size_t at = 0;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        struct compare_result cmp;
        int64_t shape[TENSOR_MAX_RANK];
        if (!param_is_output(q) || d->t.is_null[i])
            continue;
        for (int64_t e = 0; q->dtype == DT_F32 && e < d->t.n_elems[i]; e++) {
            float a, b;
            memcpy(&a, ref + at + (size_t)e * 4, 4);
            memcpy(&b, got + at + (size_t)e * 4, 4);
            if (isnan(a) && isnan(b)) {
                memset(ref + at + (size_t)e * 4, 0, 4);
                memset(got + at + (size_t)e * 4, 0, 4);
            }
        }
        int rank = dims_tensor_shape(p, i, dims, shape);
        compare_tensor(ref + at, got + at, q->dtype, shape, rank, &p->tol, &cmp);
        if (!cmp.pass)
            return false;
        at += (size_t)d->t.n_elems[i] * tensor_dtype_size(q->dtype);
    }
    return true;
}

/* True if mistake m's outputs match got[] on every test i with on[i] (both
 * indexed like p->tests). The mistake is compiled and its outputs cached
 * like the reference's (package_program, expected_outputs); a mistake that
 * cannot be built or fails on a test is no match: a diagnosis is advice,
 * and never changes a verdict or fails a judgement. */
static bool mistake_matches(const struct judge_ctx *ctx, const struct problem *p,
                            const struct problem_mistake *m, unsigned char *const *got,
                            const bool *on)
{
    char cache[4096], err[ERR_LEN], filename[80];
    int exe = -1;
    bool match = false;

    snprintf(filename, sizeof filename, "%s.c", m->id);
    if (package_program(ctx, p, m->path, filename, cache, sizeof cache, &exe, err, sizeof err) < 0)
        return false;
    for (size_t i = 0; i < p->n_tests; i++) {
        const struct test_case *tc = &p->tests[i];
        struct test_data d;
        unsigned char *out = NULL;
        if (!on[i])
            continue;
        uint64_t seed = judge_test_seed(ctx, p, tc);
        if (test_data_make(p, tc->dims, tc->scalars, seed, tc->gen, tc->is_null, &d, err,
                           sizeof err) == 0)
            out = expected_outputs(p, cache, exe, tc->name, seed, &tc->limits, &d, NULL, err,
                                   sizeof err);
        unsigned char *mine = out ? malloc(d.out_bytes ? d.out_bytes : 1) : NULL;
        if (mine)
            memcpy(mine, got[i], d.out_bytes);
        match = mine && outputs_match(p, tc->dims, &d, out, mine);
        free(mine);
        free(out);
        test_data_free(p, &d);
        if (!match)
            break;
    }
    close(exe);
    return match;
}

/* The verdict of test name in r, or V_NOT_RUN when r has no such test. */
static enum judge_verdict report_verdict(const struct judge_report *r, const char *name)
{
    for (int t = 0; t < r->n_tests; t++)
        if (strcmp(r->tests[t].name, name) == 0)
            return r->tests[t].verdict;
    return V_NOT_RUN;
}

/* Sets r->diagnosis to the first listed mistake that matches got[] on
 * every test marked in on[]. Returns 0, or -1 when out of memory. */
static int diagnose_first(const struct judge_ctx *ctx, const struct problem *p,
                          struct judge_report *r, unsigned char *const *got, const bool *on,
                          bool from_hidden)
{
    for (size_t k = 0; k < p->n_mistakes; k++) {
        const struct problem_mistake *m = &p->mistakes[k];
        if (!mistake_matches(ctx, p, m, got, on))
            continue;
        r->diagnosis.mistake = xstrdup(m->id);
        r->diagnosis.title = xstrdup(m->title);
        r->diagnosis.hint = xstrdup(m->hint);
        r->diagnosis.from_hidden = from_hidden;
        return r->diagnosis.mistake && r->diagnosis.title && r->diagnosis.hint ? 0 : -1;
    }
    return 0;
}

/* Sets r->diagnosis to the first listed mistake whose outputs match the
 * submission's (got[], indexed like p->tests, NULL where a test did not
 * reach its comparison; on[], same index, is scratch). Sample evidence
 * first: wrong on at least one sample test, outputs on all of them, the
 * mistake matched on all of them. Else hidden evidence: the mistake matches
 * on every hidden test that is wrong_answer (at least one, each with
 * outputs). Only the mistake's id, title and hint come out of it, never a
 * hidden test's data. Returns 0, or -1 when out of memory. */
static int diagnose(const struct judge_ctx *ctx, const struct problem *p, struct judge_report *r,
                    unsigned char *const *got, bool *on)
{
    bool wrong_sample = false, all_samples = true, wrong_hidden = false;

    if (r->verdict != V_WRONG_ANSWER || !p->n_mistakes)
        return 0;
    for (size_t i = 0; i < p->n_tests; i++) {
        bool sample = p->tests[i].kind == TEST_SAMPLE;
        bool wrong = report_verdict(r, p->tests[i].name) == V_WRONG_ANSWER;
        all_samples &= !sample || got[i];
        wrong_sample |= sample && wrong;
        on[i] = sample;
    }
    if (wrong_sample && all_samples && diagnose_first(ctx, p, r, got, on, false) < 0)
        return -1;
    if (r->diagnosis.mistake)
        return 0;
    for (size_t i = 0; i < p->n_tests; i++) {
        on[i] = p->tests[i].kind != TEST_SAMPLE &&
                report_verdict(r, p->tests[i].name) == V_WRONG_ANSWER;
        if (on[i] && !got[i])
            return 0; /* a wrong hidden test without outputs: no evidence */
        wrong_hidden |= on[i];
    }
    return wrong_hidden ? diagnose_first(ctx, p, r, got, on, true) : 0;
}

/* ---- running the tests, on idle cores ---- */

/* Threads judging in this process, over every judgement: each judgement
 * holds one while it runs, and its tests borrow more only while fewer than
 * the cores are held, so a server whose workers already keep every core
 * busy runs each submission's tests one after another. */
static atomic_int threads_busy;

static int cores_online(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < n)
        n = CPU_COUNT(&set);
    return n < 1 ? 1 : (int)n;
}

/* Takes up to want more threads' worth of idle cores; returns how many. */
static int cores_take(int want)
{
    int cores = cores_online(), got = 0;
    while (got < want) {
        int busy = atomic_load(&threads_busy);
        if (busy >= cores)
            break;
        if (atomic_compare_exchange_weak(&threads_busy, &busy, busy + 1))
            got++;
    }
    return got;
}

/* One judgement's tests, run by the judging thread and the helpers it
 * could get. The judging thread claims them in report order, the helpers
 * costliest first (judge/schedule.h); each runs exactly as it would alone
 * (judge_test). What the report says is decided afterwards, in report
 * order (tests_run), so that it is the sequential report: a test that
 * started beside an earlier fatal one is not_run. */
struct test_run {
    struct judge_ctx *ctx;
    const struct problem *p;
    const struct judge_options *opt;
    const char *cache;
    int ref, exe;
    const struct crashsite_source *src; /* exe's source (judge_test) */
    struct judge_test_report *tests;    /* [n], report order */
    int n;
    unsigned char **got;         /* indexed like p->tests, or NULL */
    const struct test_case **tc; /* [n] */
    size_t *pi;                  /* [n]: index in p->tests */
    char (*err)[ERR_LEN];        /* [n] */
    bool *ref_failed;            /* [n] */
    bool *ran;                   /* [n] */
    int *by_cost;                /* [n]: the helpers' claim order */
    bool *claimed;               /* [n] */
    pthread_mutex_t mu;
    int stop_at; /* the first test after which no test needs to run (n: none) */
    /* the judging thread's progress: tests before it were announced */
    int announced;
};

/* Announces (judge.h: on the judging thread, in order, a run of hidden
 * tests once) every test before upto that was claimed and is not known to
 * come after a fatal one. */
static void tests_announce(struct test_run *t, int upto)
{
    pthread_mutex_lock(&t->mu);
    int stop_at = t->stop_at;
    pthread_mutex_unlock(&t->mu);
    for (; t->announced < upto; t->announced++) {
        int k = t->announced;
        bool hidden = t->tc[k]->kind == TEST_HIDDEN;
        bool prev_hidden = k > 0 && t->tc[k - 1]->kind == TEST_HIDDEN;
        if (k <= stop_at && !(hidden && prev_hidden))
            progress(t->opt, JUDGE_STAGE_RUNNING, k, t->n);
    }
}

/* Claims and runs tests until none is left; the judging thread (main)
 * announces them too. */
static void tests_work(struct test_run *t, bool main)
{
    for (;;) {
        pthread_mutex_lock(&t->mu);
        int k = schedule_claim(t->claimed, t->by_cost, t->n, main);
        bool skip = k > t->stop_at;
        pthread_mutex_unlock(&t->mu);
        if (k < 0)
            break;
        if (main)
            tests_announce(t, k + 1);
        if (skip)
            continue; /* one sleeping or crashing program does not hold a worker */
        struct judge_test_report *tr = &t->tests[k];
        judge_test(t->ctx, t->p, t->cache, t->ref, t->exe, t->src, t->tc[k], tr, &t->ref_failed[k],
                   t->got ? &t->got[t->pi[k]] : NULL, t->err[k], ERR_LEN);
        t->ran[k] = true;
        bool stops = tr->verdict == V_INTERNAL_ERROR ||
                     (judge_verdict_is_fatal(tr->verdict) && !t->p->run_all_tests);
        pthread_mutex_lock(&t->mu);
        if (stops && k < t->stop_at)
            t->stop_at = k;
        pthread_mutex_unlock(&t->mu);
    }
}

static void *tests_helper(void *arg)
{
    tests_work(arg, false);
    return NULL;
}

/* Frees what a test's run filled in and zeroes it (judge.h: a not_run
 * test's measurements are zero). */
static void test_result_clear(struct judge_test_report *tr)
{
    for (int j = 0; j < tr->n_tensors; j++) {
        free(tr->tensors[j].name);
        free(tr->tensors[j].abs_err);
        free(tr->tensors[j].message);
    }
    free(tr->tensors);
    free(tr->message);
    free(tr->output);
    tr->tensors = NULL;
    tr->n_tensors = 0;
    tr->message = tr->output = NULL;
    tr->time_ms = tr->wall_ms = tr->compare_ms = tr->setup_ms = 0;
    tr->compared = false;
    tr->n_finite = tr->n_mismatch = 0;
    tr->max_abs_err = tr->max_rel_err = 0;
}

/* Runs r's tests (r->tests[0..n) named and weighted) and sets the verdict:
 * the first failing test's; after a fatal test (unless run_all_tests) the
 * rest are not_run; an internal error ends the report at its test, as if
 * the tests had run one after another. Returns 0, or -1 after internal(). */
static int tests_run(struct test_run *t, struct judge_report *r)
{
    const struct problem *p = t->p;
    int n = t->n, helpers = 0, rc = -1;
    pthread_t tid[64];

    t->tc = calloc((size_t)n + 1, sizeof *t->tc);
    t->pi = calloc((size_t)n + 1, sizeof *t->pi);
    t->err = calloc((size_t)n + 1, sizeof *t->err);
    t->ref_failed = calloc((size_t)n + 1, sizeof *t->ref_failed);
    t->ran = calloc((size_t)n + 1, sizeof *t->ran);
    t->by_cost = calloc((size_t)n + 1, sizeof *t->by_cost);
    t->claimed = calloc((size_t)n + 1, sizeof *t->claimed);
    int64_t *cost = calloc((size_t)n + 1, sizeof *cost);
    if (!t->tc || !t->pi || !t->err || !t->ref_failed || !t->ran || !t->by_cost || !t->claimed ||
        !cost) {
        internal(r, "out of memory");
        goto out;
    }
    for (size_t i = 0, k = 0; i < p->n_tests; i++)
        if (!t->opt || !t->opt->samples_only || p->tests[i].kind == TEST_SAMPLE) {
            t->tc[k] = &p->tests[i];
            t->pi[k++] = i;
        }
    t->stop_at = n;
    pthread_mutex_init(&t->mu, NULL);
    int want = (t->opt && t->opt->test_threads > 0 ? t->opt->test_threads : 64) - 1;
    if (want > n - 1)
        want = n - 1;
    if (want > (int)(sizeof tid / sizeof tid[0]))
        want = (int)(sizeof tid / sizeof tid[0]);
    int cores = want > 0 ? cores_take(want) : 0;
    for (int k = 0; k < n; k++)
        cost[k] = schedule_test_cost(p, t->tc[k]);
    schedule_by_cost(cost, n, t->by_cost);
    for (; helpers < cores; helpers++)
        if (pthread_create(&tid[helpers], NULL, tests_helper, t) != 0)
            break;
    atomic_fetch_sub(&threads_busy, cores - helpers);
    tests_work(t, true);
    tests_announce(t, n);
    for (int i = 0; i < helpers; i++)
        pthread_join(tid[i], NULL);
    atomic_fetch_sub(&threads_busy, helpers);
    pthread_mutex_destroy(&t->mu);

    /* the report, in order, as one test after another would have made it */
    bool failed = false, stopped = false;
    r->verdict = V_ACCEPTED;
    for (int k = 0; k < n; k++) {
        struct judge_test_report *tr = &r->tests[k];
        if (stopped || !t->ran[k]) {
            test_result_clear(tr);
            tr->verdict = V_NOT_RUN;
            if (t->got) {
                free(t->got[t->pi[k]]);
                t->got[t->pi[k]] = NULL;
            }
            continue;
        }
        if (tr->verdict == V_INTERNAL_ERROR) {
            r->reference_failed = t->ref_failed[k];
            internal(r, t->err[k]);
            /* the report ends at the failed test */
            for (int j = k + 1; j < n; j++) {
                test_result_clear(&r->tests[j]);
                free(r->tests[j].name);
                free(r->tests[j].dims);
                memset(&r->tests[j], 0, sizeof r->tests[j]);
            }
            r->n_tests = k + 1;
            goto out;
        }
        if (tr->verdict != V_ACCEPTED && !failed) {
            failed = true;
            r->verdict = tr->verdict;
        }
        if (judge_verdict_is_fatal(tr->verdict) && !p->run_all_tests)
            stopped = true;
    }
    rc = 0;
out:
    free(t->tc);
    free(t->pi);
    free(t->err);
    free(t->ref_failed);
    free(t->ran);
    free(t->by_cost);
    free(t->claimed);
    free(cost);
    return rc;
}

struct judge_report *judge_submission(struct judge_ctx *ctx, const struct problem *p,
                                      const char *source, size_t len, const char *filename,
                                      const struct judge_options *opt)
{
    struct judge_report *r = calloc(1, sizeof *r);
    char err[ERR_LEN] = "", name[64], cache[4096];
    int exe = -1, ref = -1;
    /* the submission's outputs per test, kept for the diagnosis */
    unsigned char **got = NULL;
    bool *on = NULL;

    if (!r)
        return NULL;
    double t_start = clock_mono_ms();
    atomic_fetch_add(&threads_busy, 1); /* this judgement's own thread */
    safe_filename(filename, name, sizeof name);
    progress(opt, JUDGE_STAGE_COMPILING, 0, 0);
    struct build b;
    enum compile_outcome c = COMPILE_INTERNAL;
    double t_build = clock_mono_ms();
    int built = build_make(&b, ctx, p, source, len, name, err, sizeof err);
    r->timing.reference_ms = clock_mono_ms() - t_build;
    if (built == 0)
        c = compile_program(p, &b, &exe, &r->compile_log, &r->compile_ms, &r->compile_wall_ms,
                            &r->timing, err, sizeof err);
    build_free(&b);
    if (c == COMPILE_INTERNAL) {
        internal(r, err);
        goto out;
    }
    if (c == COMPILE_FAILED) {
        r->verdict = V_COMPILE_ERROR;
        goto out;
    }
    double t_ref = clock_mono_ms();
    if (reference_program(ctx, p, cache, sizeof cache, &ref, err, sizeof err) < 0) {
        internal(r, err);
        goto out;
    }
    r->timing.reference_ms += clock_mono_ms() - t_ref;

    int n = 0;
    for (size_t i = 0; i < p->n_tests; i++)
        if (!opt || !opt->samples_only || p->tests[i].kind == TEST_SAMPLE)
            n++;
    r->tests = calloc((size_t)(n ? n : 1), sizeof *r->tests);
    if (p->n_mistakes &&
        (!(got = calloc(p->n_tests, sizeof *got)) || !(on = calloc(p->n_tests, sizeof *on)))) {
        internal(r, "out of memory");
        goto out;
    }
    if (!r->tests) {
        internal(r, "out of memory");
        goto out;
    }
    /* the line of a crash on a sample test is named in the file as the
     * student wrote it: the prototype header is force-included as a file
     * of its own, so the student's line numbers are the compiler's */
    const struct crashsite_source src = {name, source, len};
    struct test_run tr_run = {.ctx = ctx,
                              .p = p,
                              .opt = opt,
                              .cache = cache,
                              .ref = ref,
                              .exe = exe,
                              .src = &src,
                              .tests = r->tests,
                              .n = n,
                              .got = got};
    int weight_all = 0;
    for (size_t i = 0; i < p->n_tests; i++) {
        const struct test_case *tc = &p->tests[i];
        if (opt && opt->samples_only && tc->kind != TEST_SAMPLE)
            continue;
        struct judge_test_report *tr = &r->tests[r->n_tests++];
        tr->name = xstrdup(tc->name);
        tr->kind = tc->kind;
        tr->weight = tc->weight;
        tr->cpu_limit_ms = tc->limits.cpu_ms;
        tr->dims = malloc(sizeof(int64_t) * (size_t)(p->n_dims ? p->n_dims : 1));
        if (!tr->name || !tr->dims) {
            internal(r, "out of memory");
            goto out;
        }
        memcpy(tr->dims, tc->dims, sizeof(int64_t) * (size_t)p->n_dims);
        weight_all += tc->weight;
    }
    double t_tests = clock_mono_ms();
    if (tests_run(&tr_run, r) < 0)
        goto out;
    r->timing.tests_ms = clock_mono_ms() - t_tests;
    int weight_ok = 0;
    for (int i = 0; i < r->n_tests; i++) {
        r->timing.run_setup_ms += r->tests[i].setup_ms;
        if (r->tests[i].verdict == V_ACCEPTED)
            weight_ok += r->tests[i].weight;
    }
    r->score = weight_all ? 100.0 * weight_ok / weight_all : 0;
    if (got && diagnose(ctx, p, r, got, on) < 0)
        internal(r, "out of memory");
out:
    if (got)
        for (size_t i = 0; i < p->n_tests; i++)
            free(got[i]);
    free(got);
    free(on);
    progress(opt, JUDGE_STAGE_DONE, r->n_tests, r->n_tests);
    if (exe >= 0)
        close(exe);
    if (ref >= 0)
        close(ref);
    atomic_fetch_sub(&threads_busy, 1);
    r->timing.judge_ms = clock_mono_ms() - t_start;
    return r;
}

int judge_export_case(struct judge_ctx *ctx, const struct problem *p, const int64_t *dims,
                      uint64_t seed, const struct test_case *tc, judge_emit_fn emit, void *arg,
                      char *err, size_t errlen)
{
    struct test_data d;
    struct gen_spec gens[PROBLEM_MAX_PARAMS];
    bool is_null[PROBLEM_MAX_PARAMS];
    double scalars[PROBLEM_MAX_PARAMS];
    unsigned char *expected = NULL;
    char cache[4096];
    int ref = -1, rc = -1;

    memset(&d, 0, sizeof d);
    d.input_fd = -1;
    for (int i = 0; i < p->n_params; i++) {
        gens[i] = tc ? tc->gen[i] : p->params[i].gen;
        is_null[i] = tc ? tc->is_null[i] : false;
    }
    problem_default_scalars(p, scalars);
    if (dims_check(p, dims, err, errlen) < 0)
        goto out;
    if (reference_program(ctx, p, cache, sizeof cache, &ref, err, errlen) < 0 ||
        test_data_make(p, dims, tc ? tc->scalars : scalars, seed, gens, is_null, &d, err, errlen) <
            0)
        goto out;
    expected = expected_outputs(p, cache, ref, tc ? tc->name : NULL, seed,
                                tc ? &tc->limits : &p->limits, &d, NULL, err, errlen);
    if (!expected)
        goto out;
    size_t at = 0;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *q = &p->params[i];
        int64_t shape[TENSOR_MAX_RANK];
        if (q->kind != PARAM_TENSOR || d.t.is_null[i])
            continue;
        int rank = dims_tensor_shape(p, i, dims, shape);
        /* an inout tensor twice: its value before the call, then after */
        if ((param_is_input(q) && emit(arg, q, false, shape, rank, d.t.data[i]) < 0) ||
            (param_is_output(q) && emit(arg, q, true, shape, rank, expected + at) < 0)) {
            errbuf_set(err, errlen, "writing %s: %s", q->name, strerror(errno));
            goto out;
        }
        if (param_is_output(q))
            at += (size_t)d.t.n_elems[i] * tensor_dtype_size(q->dtype);
    }
    rc = 0;
out:
    free(expected);
    test_data_free(p, &d);
    if (ref >= 0)
        close(ref);
    return rc;
}

uint64_t judge_test_seed(const struct judge_ctx *ctx, const struct problem *p,
                         const struct test_case *tc)
{
    return tc->has_seed ? tc->seed : secret_hidden_seed(&ctx->secret, p->slug, tc->name);
}

void judge_report_free(struct judge_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_tests; i++) {
        struct judge_test_report *t = &r->tests[i];
        for (int j = 0; j < t->n_tensors; j++) {
            free(t->tensors[j].name);
            free(t->tensors[j].abs_err);
            free(t->tensors[j].message);
        }
        free(t->tensors);
        free(t->name);
        free(t->dims);
        free(t->message);
        free(t->output);
    }
    free(r->tests);
    free(r->compile_log);
    free(r->internal_message);
    free(r->diagnosis.mistake);
    free(r->diagnosis.title);
    free(r->diagnosis.hint);
    free(r);
}

/* ---- for the benchmark (judge/pipeline.h) ---- */

enum judge_verdict pipeline_programs(struct judge_ctx *ctx, const struct problem *p,
                                     const char *source, size_t len, const char *filename,
                                     struct pipeline_programs *pp, char *err, size_t errlen)
{
    char name[64], cache[4096], proto[4096], *log = NULL;
    double cpu, wall;
    struct build b;

    pp->exe = pp->ref = pp->empty = -1;
    pp->cache[0] = '\0';
    safe_filename(filename, name, sizeof name);
    if (build_make(&b, ctx, p, source, len, name, err, errlen) < 0)
        return V_INTERNAL_ERROR;
    enum compile_outcome c = compile_program(p, &b, &pp->exe, &log, &cpu, &wall, NULL, err, errlen);
    build_free(&b);
    if (c == COMPILE_FAILED)
        errbuf_set(err, errlen, "%s", log ? log : "");
    free(log);
    if (c != COMPILED)
        return c == COMPILE_FAILED ? V_COMPILE_ERROR : V_INTERNAL_ERROR;
    if (reference_program(ctx, p, pp->cache, sizeof pp->cache, &pp->ref, err, errlen) < 0)
        goto fail;
    /* the function that does nothing: what remains of its time is the
     * measurement's own (process start, reading the inputs, writing the
     * poisoned outputs back) */
    int n = harness_prototype(p, proto, sizeof proto - 8);
    if (n < 0) {
        errbuf_set(err, errlen, "cannot write the prototype of %s", p->function);
        goto fail;
    }
    memcpy(proto + n, " {}\n", 5);
    if (program_from_text(ctx, p, proto, strlen(proto), "empty.c", cache, sizeof cache, &pp->empty,
                          err, errlen) < 0)
        goto fail;
    return V_ACCEPTED;
fail:
    pipeline_programs_close(pp);
    return V_INTERNAL_ERROR;
}

void pipeline_programs_close(struct pipeline_programs *pp)
{
    int *fds[] = {&pp->exe, &pp->ref, &pp->empty};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

int pipeline_call(const struct judge_ctx *ctx, const struct problem *p,
                  const struct test_case *size, int k, bool time_reference,
                  const struct pipeline_programs *pp, struct pipeline_call *call, char *err,
                  size_t errlen)
{
    struct test_data d;
    struct sbx_result res;
    struct sbx_limits lim, ref_lim;
    struct harness_result hr;
    unsigned char *expected = NULL;
    char name[NAMES_MAX_LEN + 32];
    int rc = -1;

    memset(call, 0, sizeof *call);
    call->verdict = V_INTERNAL_ERROR;
    call->ref_ms = NAN;
    /* ':' never appears in a test's name: no seed is a hidden test's */
    snprintf(name, sizeof name, "bench:%s:%d", size->name, k);
    uint64_t seed = secret_hidden_seed(&ctx->secret, p->slug, name);
    if (test_data_make(p, size->dims, size->scalars, seed, size->gen, size->is_null, &d, err,
                       errlen) < 0)
        return -1;
    run_limits(&size->limits, false, &lim);
    run_limits(&size->limits, true, &ref_lim);

    /* the reference's outputs for these inputs: cached while the size's
     * cache stays small, else computed again */
    bool cacheable = (long long)d.out_bytes * (k + 1) <= PIPELINE_BENCH_CACHE;
    if (!time_reference) {
        expected = expected_outputs(p, pp->cache, pp->ref, cacheable ? name : NULL, seed,
                                    &size->limits, &d, NULL, err, errlen);
        if (!expected)
            goto out;
    } else {
        if (run_program(pp->ref, &d, &ref_lim, &res, err, errlen) < 0)
            goto out;
        harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
        if (res.status != SBX_EXITED || res.exit_code != 0 || !hr.done || hr.malformed) {
            char why[256];
            reference_failure(&res, &ref_lim, &hr, why, sizeof why);
            errbuf_set(err, errlen, "problem %s: the reference %s at benchmark size '%s'", p->slug,
                       why, size->name);
            sbx_result_free(&res);
            goto out;
        }
        call->ref_ms = res.cpu_ms;
        expected = outputs_pack(p, &d, &hr);
        sbx_result_free(&res);
        if (!expected) {
            errbuf_set(err, errlen, "out of memory");
            goto out;
        }
        char path[4300];
        snprintf(path, sizeof path, "%s/%s.%016" PRIx64 ".out", pp->cache, name, seed);
        if (cacheable && fs_write_atomic(path, expected, d.out_bytes, 0600) < 0) {
            /* a cache that cannot be written only costs time */
        }
    }

    /* the empty function: the overhead every run of this size carries */
    if (run_program(pp->empty, &d, &ref_lim, &res, err, errlen) < 0)
        goto out;
    call->empty_ms = res.cpu_ms;
    bool empty_ok = res.status == SBX_EXITED && res.exit_code == 0;
    sbx_result_free(&res);
    if (!empty_ok) {
        errbuf_set(err, errlen, "problem %s: the empty program failed at size '%s'", p->slug,
                   size->name);
        goto out;
    }

    /* the submission, on the same inputs, checked like a hidden test */
    if (run_program(pp->exe, &d, &lim, &res, err, errlen) < 0)
        goto out;
    call->ms = res.cpu_ms;
    harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
    call->verdict = classify_run(&res, &hr, &size->limits, &call->message);
    if (call->verdict == V_ACCEPTED) {
        struct judge_test_report tr;
        memset(&tr, 0, sizeof tr);
        bool all = true;
        for (int i = 0; i < p->n_params; i++)
            if (param_is_output(&p->params[i]) && !d.t.is_null[i] && !hr.outputs[i])
                all = false;
        if (!all) {
            call->verdict = V_WRONG_ANSWER;
            call->message = explain_end(EXPLAIN_NO_OUTPUTS, 0, 0);
        } else {
            call->verdict = compare_outputs(p, size, size->dims, &d, expected, &hr, &tr);
            call->message = tr.message;
            tr.message = NULL;
            for (int t = 0; t < tr.n_tensors; t++) {
                free(tr.tensors[t].name);
                free(tr.tensors[t].abs_err);
                free(tr.tensors[t].message);
            }
            free(tr.tensors);
        }
    }
    sbx_result_free(&res);
    if (call->verdict == V_INTERNAL_ERROR) {
        errbuf_set(err, errlen, "size %s: %s", size->name,
                   call->message ? call->message : "out of memory");
        goto out;
    }
    if (call->verdict != V_ACCEPTED && !call->message) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    rc = 0;
out:
    if (rc < 0) {
        free(call->message);
        call->message = NULL;
        call->verdict = V_INTERNAL_ERROR;
    }
    free(expected);
    test_data_free(p, &d);
    return rc;
}

int pipeline_reference_at(struct judge_ctx *ctx, const struct problem *p,
                          const struct test_case *size, double *cpu_ms, char *err, size_t errlen)
{
    char cache[4096];
    int ref = -1, rc = -1;
    struct test_data d;
    struct sbx_result res;
    struct sbx_limits lim;
    struct harness_result hr;

    if (reference_program(ctx, p, cache, sizeof cache, &ref, err, errlen) < 0)
        return -1;
    if (test_data_make(p, size->dims, size->scalars, judge_test_seed(ctx, p, size), size->gen,
                       size->is_null, &d, err, errlen) < 0) {
        close(ref);
        return -1;
    }
    /* the students' limits, not the reference's extra room: the size must
     * leave a solution as fast as the reference room to spare */
    run_limits(&size->limits, false, &lim);
    if (run_program(ref, &d, &lim, &res, err, errlen) == 0) {
        harness_parse_result(p, &d.t, res.result, res.result_len, &hr);
        *cpu_ms = res.cpu_ms;
        if (res.status == SBX_EXITED && res.exit_code == 0 && hr.done && !hr.malformed) {
            rc = 0;
        } else {
            char why[256];
            reference_failure(&res, &lim, &hr, why, sizeof why);
            errbuf_set(err, errlen, "the reference %s", why);
            rc = 1;
        }
        sbx_result_free(&res);
    }
    test_data_free(p, &d);
    close(ref);
    return rc;
}

void pipeline_core_hold(int delta)
{
    atomic_fetch_add(&threads_busy, delta);
}
