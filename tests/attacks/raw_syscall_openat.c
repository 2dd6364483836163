/* attack: openat(/etc/passwd) with an inline-asm syscall instruction, bypassing libc's wrappers
 * threat: a sandbox that only wraps libc functions; seccomp must see the raw syscall
 * expect: security_violation
 * message: openat
 * forbid: root:x:0
 * problem: mha-fused-qkv
 */
#include <stdio.h>
#include <unistd.h>

static long attack_syscall4(long nr, long a, long b, long c, long d)
{
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return r;
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)out;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    char buf[4096];
    long fd = attack_syscall4(257 /* openat */, -100 /* AT_FDCWD */, (long)"/etc/passwd",
                              0 /* O_RDONLY */, 0);
    if (fd >= 0) {
        long n = read((int)fd, buf, sizeof buf);
        if (n > 0)
            fwrite(buf, 1, (size_t)n, stdout);
    }
}
