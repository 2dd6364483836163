/*
 * The harness runtime: the main() linked with every submission (and with
 * every reference). It runs inside the run sandbox; it is not part of the
 * attnjudge binary, which carries this file as text (harness_embed.S).
 *
 * It reads the dimensions, scalars and input tensors from fd AJ_FD_INPUT, gives every tensor
 * its own mapping that ends at a guard page (an overrun past the end
 * faults instead of silently reading the neighbour), fills the outputs that
 * carry no input (role out, not inout) with 0xFF bytes (NaN for f32) so that an element never written cannot pass,
 * calls the student's function through the generated attnjudge_call(),
 * and writes the outputs on fd AJ_FD_RESULT. Nothing expected is ever here: the
 * comparison happens in the judge.
 *
 * The malloc family is wrapped (ld --wrap) so that an allocation refused
 * for lack of address space is reported: a crash after it is a
 * memory_limit, not a mysterious SIGSEGV. The wrappers also fill fresh
 * memory (malloc, realloc's new tail, the aligned allocators) with 0xFF
 * bytes: a fresh process's heap comes from zeroed pages, so an accumulator
 * that is never initialised would otherwise pass here and fail in any real
 * program. 0xFF is NaN as float and double, -1 as an integer and an
 * unmapped pointer, so reading it is never silently right. calloc stays
 * zeroed, as its contract says.
 *
 * A fault in the program (SIGSEGV, SIGBUS, SIGFPE, SIGILL) runs a handler
 * on its own signal stack (so a stack overflow reaches it too) that sends
 * where it happened (AJ_TAG_CRASH: the faulting instruction's address and
 * the return addresses above it on the stack) and then lets the program
 * die of the same signal: the verdict is made outside, from how the
 * process ended, exactly as without the handler. The judge maps the
 * addresses to the student's line for a sample test only (judge/crashsite.c).
 */
/* REG_RIP and REG_RSP in <sys/ucontext.h> */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <unistd.h>

/* Not "judge/harness_proto.h": in the sandbox both files sit in /work. */
#include "harness_proto.h"

void attnjudge_call(void **tensors, const int64_t *ints, const double *floats);

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
void *__real_memalign(size_t align, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
int __wrap_posix_memalign(void **p, size_t align, size_t n);
void *__wrap_memalign(size_t align, size_t n);

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void record(uint32_t tag, const void *payload, uint64_t len)
{
    struct aj_record r = {tag, 0, len};
    write_all(AJ_FD_RESULT, &r, sizeof r);
    if (len)
        write_all(AJ_FD_RESULT, payload, (size_t)len);
}

static void nomem(uint64_t asked)
{
    record(AJ_TAG_NOMEM, &asked, sizeof asked);
}

/* what a fresh allocation holds before the program writes it */
enum { DIRTY_BYTE = 0xFF };

/* fills a fresh block, up to its usable size (realloc may grow into it) */
static void *dirty(void *p)
{
    if (p)
        memset(p, DIRTY_BYTE, malloc_usable_size(p));
    return p;
}

void *__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    if (!p && n)
        nomem(n);
    return dirty(p);
}

void *__wrap_calloc(size_t a, size_t b)
{
    void *p = __real_calloc(a, b);
    if (!p && a && b)
        nomem((uint64_t)a * b);
    return p;
}

void *__wrap_realloc(void *q, size_t n)
{
    /* the old contents stay, up to the old usable size (itself dirty or
     * written); only what lies beyond it is fresh */
    size_t old = q ? malloc_usable_size(q) : 0;
    void *p = __real_realloc(q, n);
    if (!p && n)
        nomem(n);
    if (p) {
        size_t now = malloc_usable_size(p);
        if (now > old)
            memset((char *)p + old, DIRTY_BYTE, now - old);
    }
    return p;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    void *p = __real_aligned_alloc(align, n);
    if (!p && n)
        nomem(n);
    return dirty(p);
}

void *__wrap_memalign(size_t align, size_t n)
{
    void *p = __real_memalign(align, n);
    if (!p && n)
        nomem(n);
    return dirty(p);
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
    int rc = __real_posix_memalign(p, align, n);
    if (rc != 0 && n)
        nomem(n);
    if (rc == 0)
        dirty(*p);
    return rc;
}

/* ---- where a fault happened ---- */

/* The handler's own stack: the program's may be exhausted (bytes; far
 * more than a signal frame with the largest x86 register state needs). */
static char crash_stack[64 * 1024];
/* An address in main's frame: the stack above the student's calls ends
 * there, so the scan for return addresses stops there. */
static uintptr_t stack_top;
/* The program's text, from the linker: return addresses lie inside. */
extern const unsigned char __executable_start[], etext[];

/* True if a is just after a call instruction in the program's text: e8
 * rel32 (direct), ff 15 disp32 (through memory, rip-relative), ff d0+r
 * and 41 ff d0+r (through a register). Reads only the text, which is
 * mapped readable. */
static int after_call(uintptr_t a)
{
    if (a < (uintptr_t)__executable_start + 6 || a > (uintptr_t)etext)
        return 0;
    const unsigned char *b = (const unsigned char *)a;
    return b[-5] == 0xe8 || (b[-6] == 0xff && b[-5] == 0x15) ||
           (b[-2] == 0xff && (b[-1] & 0xf8) == 0xd0) ||
           (b[-3] == 0x41 && b[-2] == 0xff && (b[-1] & 0xf8) == 0xd0);
}

/* Async-signal-safe: one write of one whole record, then the same signal
 * again with its default action. A fault repeats when the handler returns
 * (the faulting instruction runs again); a signal sent by kill or raise
 * (si_code <= 0) does not, so it is raised again, pending until return. */
static void on_fault(int sig, siginfo_t *si, void *uc_)
{
    const ucontext_t *uc = uc_;
    struct {
        struct aj_record r;
        struct aj_crash c;
    } m;

    signal(sig, SIG_DFL);
    if (si->si_code <= 0) {
        raise(sig);
        return;
    }
    memset(&m, 0, sizeof m);
    m.r.tag = AJ_TAG_CRASH;
    m.r.len = sizeof m.c;
    m.c.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    /* at most 4096 words of stack between the fault and main's frame;
     * a stack pointer outside that span is not followed */
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    if (sp % sizeof(uintptr_t) == 0 && sp < stack_top)
        for (const uintptr_t *w = (const uintptr_t *)sp;
             (uintptr_t)w < stack_top && w < (const uintptr_t *)sp + 4096 &&
             m.c.n_calls < AJ_MAX_CALLS;
             w++)
            if (after_call(*w))
                m.c.calls[m.c.n_calls++] = *w;
    write_all(AJ_FD_RESULT, &m, sizeof m);
}

/* Installs on_fault for the faults a student's code makes. A program that
 * replaces the handler or forges records changes only what it is told
 * about its own crash. */
static void catch_faults(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    stack_t ss = {.ss_sp = crash_stack, .ss_size = sizeof crash_stack};
    struct sigaction sa;

    stack_top = (uintptr_t)__builtin_frame_address(0);
    if (sigaltstack(&ss, NULL) != 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* bytes rounded up to 64 (so the start stays 64-byte aligned for SIMD),
 * placed to end exactly at an inaccessible guard page */
static void *guarded(uint64_t bytes)
{
    const uint64_t page = 4096;
    uint64_t body = (bytes + 63) / 64 * 64;
    if (body == 0)
        body = 64;
    uint64_t span = (body + page - 1) / page * page;
    char *base =
        mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mprotect(base + span, page, PROT_NONE) != 0)
        return NULL;
    return base + span - body;
}

int main(void)
{
    struct aj_in_header h;
    struct aj_in_tensor t[AJ_MAX_TENSORS];
    int64_t ints[AJ_MAX_INTS];
    double floats[AJ_MAX_FLOATS];
    void *ptr[AJ_MAX_TENSORS];

    if (read_all(AJ_FD_INPUT, &h, sizeof h) < 0 || h.magic != AJ_MAGIC ||
        h.n_tensors > AJ_MAX_TENSORS || h.n_ints > AJ_MAX_INTS || h.n_floats > AJ_MAX_FLOATS)
        return AJ_EXIT_BAD_INPUT;
    if (read_all(AJ_FD_INPUT, ints, sizeof ints[0] * h.n_ints) < 0 ||
        read_all(AJ_FD_INPUT, floats, sizeof floats[0] * h.n_floats) < 0 ||
        read_all(AJ_FD_INPUT, t, sizeof t[0] * h.n_tensors) < 0)
        return AJ_EXIT_BAD_INPUT;
    for (uint32_t i = 0; i < h.n_tensors; i++) {
        ptr[i] = NULL;
        if (t[i].is_null)
            continue;
        uint64_t bytes = t[i].n_elems * t[i].elem_size;
        ptr[i] = guarded(bytes);
        if (!ptr[i]) {
            nomem(bytes);
            return AJ_EXIT_NOMEM;
        }
        if (t[i].is_input) {
            if (read_all(AJ_FD_INPUT, ptr[i], (size_t)bytes) < 0)
                return AJ_EXIT_BAD_INPUT;
        } else {
            memset(ptr[i], 0xff, (size_t)bytes);
        }
    }

    catch_faults();
    attnjudge_call(ptr, ints, floats);

    uint64_t total = 0;
    for (uint32_t i = 0; i < h.n_tensors; i++)
        if (t[i].is_output && !t[i].is_null)
            total += t[i].n_elems * t[i].elem_size;
    struct aj_record r = {AJ_TAG_OUTPUTS, 0, total};
    write_all(AJ_FD_RESULT, &r, sizeof r);
    for (uint32_t i = 0; i < h.n_tensors; i++)
        if (t[i].is_output && !t[i].is_null)
            write_all(AJ_FD_RESULT, ptr[i], (size_t)(t[i].n_elems * t[i].elem_size));
    record(AJ_TAG_DONE, NULL, 0);
    return 0;
}
