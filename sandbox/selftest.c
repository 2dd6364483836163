/*
 * selftest — proves, on this machine and now, that the sandbox works.
 *
 * Two hand-assembled static programs (a few dozen bytes of x86-64, no
 * compiler involved) run in SBX_RUN sandboxes: one must exit with code 7,
 * the other calls openat and must be caught as a violation naming it. A
 * third sandbox runs /usr/bin/true under SBX_COMPILE, beside the other
 * two. If any of this fails, the judge refuses to judge: there is no
 * weaker mode.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define BASE 0x400000ULL
#define CODE_OFF 120 /* ELF header (64) + one program header (56) */

static void put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static void put32(unsigned char *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}
static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* A minimal static ELF64 executable whose whole text is code[len]. */
static size_t make_elf(unsigned char *img, const unsigned char *code, size_t len)
{
    size_t total = CODE_OFF + len;
    memset(img, 0, CODE_OFF);
    memcpy(img,
           "\x7f"
           "ELF\x02\x01\x01",
           7);
    put16(img + 16, 2);               /* ET_EXEC */
    put16(img + 18, 0x3e);            /* EM_X86_64 */
    put32(img + 20, 1);               /* EV_CURRENT */
    put64(img + 24, BASE + CODE_OFF); /* e_entry */
    put64(img + 32, 64);              /* e_phoff */
    put16(img + 52, 64);              /* e_ehsize */
    put16(img + 54, 56);              /* e_phentsize */
    put16(img + 56, 1);               /* e_phnum */
    unsigned char *ph = img + 64;
    put32(ph, 1);           /* PT_LOAD */
    put32(ph + 4, 5);       /* PF_R | PF_X */
    put64(ph + 16, BASE);   /* p_vaddr */
    put64(ph + 24, BASE);   /* p_paddr */
    put64(ph + 32, total);  /* p_filesz */
    put64(ph + 40, total);  /* p_memsz */
    put64(ph + 48, 0x1000); /* p_align */
    memcpy(img + CODE_OFF, code, len);
    return total;
}

static const unsigned char code_exit7[] = {
    0xb8, 0x3c, 0x00, 0x00, 0x00, /* mov eax, 60 (exit) */
    0xbf, 0x07, 0x00, 0x00, 0x00, /* mov edi, 7 */
    0x0f, 0x05,                   /* syscall */
};

static const unsigned char code_openat[] = {
    0xb8, 0x01, 0x01, 0x00, 0x00, /* mov eax, 257 (openat) */
    0xbf, 0x9c, 0xff, 0xff, 0xff, /* mov edi, -100 (AT_FDCWD) */
    0x31, 0xf6,                   /* xor esi, esi */
    0x31, 0xd2,                   /* xor edx, edx */
    0x0f, 0x05,                   /* syscall */
    0xb8, 0x3c, 0x00, 0x00, 0x00, /* mov eax, 60 (exit) */
    0x31, 0xff,                   /* xor edi, edi */
    0x0f, 0x05,                   /* syscall */
};

static int run_tiny(const unsigned char *code, size_t len, struct sbx_result *res, char *err,
                    size_t errlen)
{
    unsigned char img[256];
    size_t n = make_elf(img, code, len);
    int exe = sbx_memfd_from("attnjudge-selftest", img, n);
    int input = sbx_memfd_from("attnjudge-selftest-input", "", 0);
    int rc = -1;
    struct sbx_spec spec;

    if (exe < 0 || input < 0) {
        snprintf(err, errlen, "memfd_create: %s", strerror(errno));
        goto out;
    }
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_RUN;
    sbx_limits_default(SBX_RUN, &spec.limits);
    spec.exec_fd = exe;
    spec.input_fd = input;
    spec.result_cap = 64;
    rc = sbx_run(&spec, res, err, errlen);
out:
    if (exe >= 0)
        close(exe);
    if (input >= 0)
        close(input);
    return rc;
}

/* The run sandbox starts a program, which exits as it chose. */
static int check_exit(char *err, size_t errlen)
{
    struct sbx_result res;
    char why[256];

    if (run_tiny(code_exit7, sizeof code_exit7, &res, why, sizeof why) < 0) {
        snprintf(err, errlen, "the sandbox cannot start a program: %s", why);
        return -1;
    }
    int ok = res.status == SBX_EXITED && res.exit_code == 7;
    int status = res.status;
    sbx_result_free(&res);
    if (!ok) {
        snprintf(err, errlen, "a sandboxed test program did not exit as expected (status %d)",
                 status);
        return -1;
    }
    return 0;
}

/* The run filter stops a forbidden call and names it. */
static int check_filter(char *err, size_t errlen)
{
    struct sbx_result res;
    char why[256];

    if (run_tiny(code_openat, sizeof code_openat, &res, why, sizeof why) < 0) {
        snprintf(err, errlen, "the sandbox cannot start a program: %s", why);
        return -1;
    }
    int ok = res.status == SBX_VIOLATION && strcmp(res.syscall_name, "openat") == 0;
    int status = res.status;
    sbx_result_free(&res);
    if (!ok) {
        snprintf(err, errlen, "the run filter did not catch a forbidden openat (status %d)",
                 status);
        return -1;
    }
    return 0;
}

/* The compile sandbox runs the toolchain's world: its filesystem view and
 * filter let /usr/bin/true run. */
static int check_compile(char *err, size_t errlen)
{
    struct sbx_spec spec;
    struct sbx_result res;
    char why[256];
    static const char *const true_argv[] = {"/usr/bin/true", NULL};
    int out = sbx_memfd_new("attnjudge-selftest-out");
    if (out < 0) {
        snprintf(err, errlen, "memfd_create: %s", strerror(errno));
        return -1;
    }
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_COMPILE;
    sbx_limits_default(SBX_COMPILE, &spec.limits);
    spec.steps[0] = true_argv;
    spec.n_steps = 1;
    spec.output_name = "none";
    spec.output_fd = out;
    spec.output_max = 0;
    int rc = sbx_run(&spec, &res, why, sizeof why);
    close(out);
    if (rc < 0) {
        snprintf(err, errlen, "the compile sandbox cannot start: %s", why);
        return -1;
    }
    /* true exits 0 and writes nothing: the missing output is expected */
    int ok = res.status == SBX_OUTPUT_MISSING && res.exit_code == 0;
    int status = res.status;
    sbx_result_free(&res);
    if (!ok) {
        snprintf(err, errlen, "the compile sandbox could not run /usr/bin/true (status %d)",
                 status);
        return -1;
    }
    return 0;
}

struct compile_check {
    char err[512];
    int rc;
};

static void *compile_check_thread(void *arg)
{
    struct compile_check *c = arg;
    c->rc = check_compile(c->err, sizeof c->err);
    return NULL;
}

/* The three checks are independent: the compile sandbox's runs on a
 * thread of its own (another core, where there is one: every
 * `attnjudge judge` waits for the self-test), the failure reported is the
 * first in the order exit, filter, compile. */
int sbx_selftest(char *err, size_t errlen)
{
    struct compile_check c = {.rc = -1};
    pthread_t t;
    bool threaded = pthread_create(&t, NULL, compile_check_thread, &c) == 0;
    int rc = check_exit(err, errlen);
    if (rc == 0)
        rc = check_filter(err, errlen);
    if (threaded)
        pthread_join(t, NULL);
    else
        compile_check_thread(&c);
    if (rc == 0 && c.rc < 0) {
        snprintf(err, errlen, "%s", c.err);
        rc = -1;
    }
    return rc;
}
