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
 * comparison happens in the judge. In a benchmark session (harness_proto.h)
 * it only maps the tensors and says where: the judge writes the inputs and
 * the poison into them and reads the outputs back itself, between its two
 * readings of this process's CPU clock.
 *
 * Everything main() and the fault handler do goes through raw system calls
 * and this file's own loops, never through a C library function: the
 * student's object is linked first, so a library name the harness called
 * (read, memset, ...) could be replaced by the student's own definition and
 * the harness's per-call work, which the empty function it is measured
 * against pays in full, taken off the student's figure. The judge also
 * refuses a submission that defines such a name (judge/elf.c); this
 * keeps the harness right even for a name that list would miss. The
 * allocator wrappers below are the student's own calls and call into libc.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>

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

/* ---- raw system calls (x86_64: the only ABI the run filter admits) ---- */

static long sys3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return r;
}

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return r;
}

/* The loops below must stay loops: gcc may turn a fill into a memset call,
 * which the harness is built not to do (-fno-tree-loop-distribute-patterns,
 * judge/compile.c). */

/* fills len bytes at p with 0xFF, eight at a time where it can */
static void fill_ff(void *p, size_t len)
{
    unsigned char *b = p;
    while (len > 0 && (uintptr_t)b % 8 != 0) {
        *b++ = 0xFF;
        len--;
    }
    uint64_t *w = (uint64_t *)(void *)b;
    for (; len >= 8; len -= 8)
        *w++ = ~(uint64_t)0;
    for (b = (unsigned char *)w; len > 0; len--)
        *b++ = 0xFF;
}

static void zero(void *p, size_t len)
{
    unsigned char *b = p;
    while (len-- > 0)
        *b++ = 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        long n = sys3(SYS_write, fd, (long)p, (long)len);
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
        long n = sys3(SYS_read, fd, (long)p, (long)len);
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

/* A fresh allocation holds 0xFF bytes (fill_ff) before the program writes
 * it. */

/* fills a fresh block, up to its usable size (realloc may grow into it) */
static void *dirty(void *p)
{
    if (p)
        fill_ff(p, malloc_usable_size(p));
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
            fill_ff((char *)p + old, now - old);
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

/* The kernel's struct sigaction on x86_64 (not the C library's). */
struct kernel_sigaction {
    unsigned long handler; /* SIG_DFL, or a three-argument handler */
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask; /* one bit per signal */
};

/* The kernel's SA_RESTORER: a handler returns through the restorer, which
 * makes the rt_sigreturn call (the C library's sigaction adds its own). */
enum { KERNEL_SA_RESTORER = 0x04000000 };

/* Local to this object (no .globl): no other object can define it. */
void attnjudge_restore_rt(void) __asm__("attnjudge_restore_rt");
/* 15 is SYS_rt_sigreturn on x86_64 */
__asm__(".text\n"
        ".align 16\n"
        ".type attnjudge_restore_rt, @function\n"
        "attnjudge_restore_rt:\n"
        "\tmovq $15, %rax\n"
        "\tsyscall\n"
        ".size attnjudge_restore_rt, .-attnjudge_restore_rt\n");
_Static_assert(SYS_rt_sigreturn == 15, "the restorer's system-call number");

static long set_action(int sig, const struct kernel_sigaction *ka)
{
    return sys6(SYS_rt_sigaction, sig, (long)ka, 0, sizeof ka->mask, 0, 0);
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

    const struct kernel_sigaction dfl = {.handler = (unsigned long)SIG_DFL};
    set_action(sig, &dfl);
    if (si->si_code <= 0) {
        /* sig is blocked while this handler runs: pending until return */
        sys3(SYS_tgkill, sys3(SYS_getpid, 0, 0, 0), sys3(SYS_gettid, 0, 0, 0), sig);
        return;
    }
    zero(&m, sizeof m);
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
    const struct kernel_sigaction ka = {
        .handler = (unsigned long)on_fault,
        .flags = SA_SIGINFO | SA_ONSTACK | KERNEL_SA_RESTORER,
        .restorer = attnjudge_restore_rt,
    };

    stack_top = (uintptr_t)__builtin_frame_address(0);
    if (sys3(SYS_sigaltstack, (long)&ss, 0, 0) != 0)
        return;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        set_action(sigs[i], &ka);
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
    long base = sys6(SYS_mmap, 0, (long)(span + page), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* the kernel returns -errno, between -4095 and -1 */
    if (base < 0 && base > -4096)
        return NULL;
    if (sys3(SYS_mprotect, base + (long)span, (long)page, PROT_NONE) != 0)
        return NULL;
    return (char *)base + span - body;
}

/* The heap of a benchmark session. A first touch of a page costs
 * microseconds of the program's CPU time (tens of them on some virtual
 * machines: 6 ms per MiB on the CI machines, and varying from minute to
 * minute): the machine's price, not the function's. So every allocation
 * is served from the heap (no chunk mapped on its own, which would be
 * fresh pages again and unmapped on free), the heap is never given back,
 * and before a call's clock starts mib MiB of it is grown and touched
 * (prepare_heap). The judge sizes mib from how far earlier calls grew the
 * heap (judge/bench.c), which the harness reports with each return
 * (heap_grew). The pages are touched with zeros, as fresh ones hold: they
 * carry nothing of any input, and calloc may still take the heap's fresh
 * top for zeroed memory. */
static void heap_setup(void)
{
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
}

static void prepare_heap(uint32_t mib)
{
    static uint32_t ready;
    if (mib <= ready)
        return;
    size_t bytes = (size_t)mib << 20;
    char *p = __real_malloc(bytes);
    if (!p)
        return; /* the call will find out for itself, and say so */
    for (size_t i = 0; i < bytes; i += 4096)
        ((volatile char *)p)[i] = 0;
    free(p);
    ready = mib;
}

/* The program break: where the heap ends. */
static uint64_t heap_end(void)
{
    return (uint64_t)sys3(SYS_brk, 0, 0, 0);
}

/* A benchmark session (harness_proto.h): h is the first call's header.
 * The judge writes the inputs and poisons the outputs in these mappings
 * and reads the outputs back, between its readings of this process's CPU
 * clock; so the time of a call is the function's, and the copies are the
 * judge's. */
static int session(struct aj_in_header h)
{
    struct aj_in_tensor t[AJ_MAX_TENSORS], was[AJ_MAX_TENSORS];
    int64_t ints[AJ_MAX_INTS];
    double floats[AJ_MAX_FLOATS];
    void *ptr[AJ_MAX_TENSORS];
    uint64_t addr[AJ_MAX_TENSORS];
    uint32_t n_was = 0;
    char go;

    catch_faults();
    heap_setup();
    for (;;) {
        if (h.magic == AJ_MAGIC_END)
            return 0;
        if (h.magic != AJ_MAGIC_CALL || h.n_tensors > AJ_MAX_TENSORS || h.n_ints > AJ_MAX_INTS ||
            h.n_floats > AJ_MAX_FLOATS)
            return AJ_EXIT_BAD_INPUT;
        if (read_all(AJ_FD_INPUT, ints, sizeof ints[0] * h.n_ints) < 0 ||
            read_all(AJ_FD_INPUT, floats, sizeof floats[0] * h.n_floats) < 0 ||
            read_all(AJ_FD_INPUT, t, sizeof t[0] * h.n_tensors) < 0)
            return AJ_EXIT_BAD_INPUT;
        /* a benchmark's calls share one layout: the mappings of the first
         * serve them all (a new layout gets new ones; the old stay) */
        int same = h.n_tensors == n_was;
        for (uint32_t i = 0; same && i < h.n_tensors; i++) {
            const unsigned char *a = (const unsigned char *)&t[i],
                                *b = (const unsigned char *)&was[i];
            for (size_t k = 0; k < sizeof t[i]; k++)
                same &= a[k] == b[k];
        }
        for (uint32_t i = 0; !same && i < h.n_tensors; i++) {
            ptr[i] = NULL;
            was[i] = t[i];
            if (t[i].is_null)
                continue;
            uint64_t bytes = t[i].n_elems * t[i].elem_size;
            ptr[i] = guarded(bytes);
            if (!ptr[i]) {
                nomem(bytes);
                return AJ_EXIT_NOMEM;
            }
        }
        n_was = h.n_tensors;
        prepare_heap(h.heap_mib);
        for (uint32_t i = 0; i < h.n_tensors; i++)
            addr[i] = (uint64_t)(uintptr_t)ptr[i];
        record(AJ_TAG_READY, addr, sizeof addr[0] * h.n_tensors);
        if (read_all(AJ_FD_INPUT, &go, 1) < 0 || go != AJ_GO)
            return AJ_EXIT_BAD_INPUT;
        uint64_t heap_was = heap_end();
        attnjudge_call(ptr, ints, floats);
        uint64_t heap_grew = heap_end() - heap_was;
        record(AJ_TAG_RETURNED, &heap_grew, sizeof heap_grew);
        if (read_all(AJ_FD_INPUT, &h, sizeof h) < 0)
            return AJ_EXIT_BAD_INPUT;
    }
}

int main(void)
{
    struct aj_in_header h;
    struct aj_in_tensor t[AJ_MAX_TENSORS];
    int64_t ints[AJ_MAX_INTS];
    double floats[AJ_MAX_FLOATS];
    void *ptr[AJ_MAX_TENSORS];

    if (read_all(AJ_FD_INPUT, &h, sizeof h) < 0)
        return AJ_EXIT_BAD_INPUT;
    if (h.magic == AJ_MAGIC_CALL)
        return session(h);
    if (h.magic != AJ_MAGIC || h.n_tensors > AJ_MAX_TENSORS || h.n_ints > AJ_MAX_INTS ||
        h.n_floats > AJ_MAX_FLOATS)
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
            fill_ff(ptr[i], (size_t)bytes);
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
