/*
 * crashsite — from a crash record's addresses to a line of the student's
 * file.
 *
 * The harness runtime catches a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) on
 * its own signal stack, sends the faulting instruction's address and the
 * return addresses above it (harness_proto.h, AJ_TAG_CRASH) and dies of
 * the same signal. The student's file is compiled with line tables (-g1 in
 * harness_cflags; gcc emits the same code with or without them), and
 * nothing else in the program has any: the harness is compiled without -g
 * and Debian's static C library carries none. So an address that the
 * program's line table maps to the student's file is the student's code,
 * and the first such address (the fault itself, else the innermost call
 * the student made) is the line to show.
 *
 * What is trusted. Both the addresses and the line table come from the
 * student: a program can install its own handler, write its own records,
 * or emit any .debug_line with inline assembly. A forged answer only
 * misleads the student about their own crash, so the concern is the
 * judge: the line table is parsed by binutils' addr2line inside a compile
 * sandbox (SBX_COMPILE: no network, a read-only toolchain, limits), never
 * in this process. From its output the judge takes one "FILE:LINE" per
 * address, keeps LINE only when FILE is the student's file (as the
 * compiler named it, /work/<name>) and LINE lies within the submitted
 * text, and reads the line's text from the submission itself. The verdict
 * never depends on any of it: it is made from how the process ended.
 */
#include "judge/crashsite.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/errbuf.h"
#include "judge/explain.h"
#include "sandbox/sandbox.h"

/* The most of a line shown (bytes, before "..."). */
#define LINE_SHOWN 100

/* Lines in src: a last line without '\n' counts. */
static int count_lines(const struct crashsite_source *src)
{
    int n = 0;
    for (size_t i = 0; i < src->len; i++)
        n += src->text[i] == '\n';
    return n + (src->len > 0 && src->text[src->len - 1] != '\n');
}

/* The line number in one line of addr2line's answer ("/work/x.c:14",
 * "/work/x.c:14 (discriminator 2)", "??:0"), or 0 unless it names the
 * student's file and a line within it. */
static int parse_answer(const char *ln, size_t n, const char *filename, int n_lines)
{
    char want[96];
    int w = snprintf(want, sizeof want, "/work/%s:", filename);
    if (w < 0 || (size_t)w >= sizeof want || n <= (size_t)w || memcmp(ln, want, (size_t)w) != 0)
        return 0;
    long v = 0;
    size_t i = (size_t)w;
    for (; i < n && ln[i] >= '0' && ln[i] <= '9' && v <= n_lines; i++)
        v = v * 10 + (ln[i] - '0');
    if (i == (size_t)w || (i < n && ln[i] != ' ') || v < 1 || v > n_lines)
        return 0;
    return (int)v;
}

int crashsite_find(int exe, const struct crashsite_source *src, const struct aj_crash *c,
                   struct crashsite *site, char *err, size_t errlen)
{
    /* "-e program", then the fault and each return address less one (the
     * call instruction's last byte: the address itself may already be the
     * next line's) */
    char hex[1 + AJ_MAX_CALLS][24];
    const char *argv[4 + 1 + AJ_MAX_CALLS + 1];
    int n_addr = 0, a = 0, n_lines = count_lines(src);
    uint64_t n_calls = c->n_calls < AJ_MAX_CALLS ? c->n_calls : AJ_MAX_CALLS;
    struct sbx_spec spec;
    struct sbx_result res;
    int found = 0;

    argv[a++] = "/usr/bin/addr2line";
    argv[a++] = "-e";
    argv[a++] = "program";
    snprintf(hex[n_addr], sizeof hex[0], "0x%" PRIx64, c->pc);
    argv[a++] = hex[n_addr++];
    for (uint64_t i = 0; i < n_calls; i++) {
        snprintf(hex[n_addr], sizeof hex[0], "0x%" PRIx64, c->calls[i] - 1);
        argv[a++] = hex[n_addr++];
    }
    argv[a] = NULL;

    int none = sbx_memfd_new("attnjudge-crashsite");
    if (none < 0) {
        errbuf_set(err, errlen, "memfd: %s", strerror(errno));
        return -1;
    }
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_COMPILE;
    sbx_limits_default(SBX_COMPILE, &spec.limits);
    spec.steps[0] = argv;
    spec.n_steps = 1;
    spec.files[0] = (struct sbx_file){"program", exe};
    spec.n_files = 1;
    spec.output_name = "none"; /* nothing is built: the answer is on stdout */
    spec.output_fd = none;
    spec.output_max = 0;
    if (sbx_run(&spec, &res, err, errlen) < 0) {
        close(none);
        return -1;
    }
    close(none);
    /* one answer line per address, in order; a failed or odd run gives
     * fewer lines that parse, never a line outside the file */
    const char *p = res.output ? res.output : "";
    for (int k = 0; k < n_addr && *p && !found; k++) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int line = parse_answer(p, n, src->filename, n_lines);
        if (line > 0) {
            site->line = line;
            site->in_callee = k > 0;
            found = 1;
        }
        p += n + (e ? 1 : 0);
    }
    sbx_result_free(&res);
    return found;
}

char *crashsite_describe(const struct crashsite_source *src, const struct crashsite *site)
{
    if (!site)
        return explain_crash_unlocated();
    /* the line's text, from the submission: leading blanks dropped,
     * control bytes (a tab, a stray \r) shown as spaces */
    const char *s = src->text, *end = src->text + src->len;
    for (int l = 1; l < site->line && s < end; s++)
        l += *s == '\n';
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    char code[LINE_SHOWN + 4];
    size_t n = 0;
    for (; s < end && *s != '\n' && n < LINE_SHOWN; s++)
        code[n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
    bool cut = s < end && *s != '\n';
    /* cut at a character's start, never inside a UTF-8 sequence */
    for (; cut && n > 0 && ((unsigned char)*s & 0xc0) == 0x80; s--)
        n--;
    while (n > 0 && code[n - 1] == ' ')
        n--;
    if (cut) {
        memcpy(code + n, "...", 3);
        n += 3;
    }
    code[n] = '\0';
    return explain_crash_site(src->filename, site->line, code, site->in_callee);
}
