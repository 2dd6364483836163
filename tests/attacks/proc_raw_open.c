/* attack: open("/proc/self/maps") and /proc/1/environ with the legacy open syscall (nr 2) from inline asm
 * threat: reading /proc (the host's processes, environments) from the run sandbox
 * expect: security_violation
 * message: open
 * problem: mha-fused-qkv
 */
#include <stdio.h>
#include <unistd.h>

static long attack_syscall3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(nr), "D"(a), "S"(b), "d"(c)
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
    static const char *const paths[] = {"/proc/self/maps", "/proc/1/environ"};
    char buf[4096];
    for (int i = 0; i < 2; i++) {
        long fd = attack_syscall3(2 /* open */, (long)paths[i], 0, 0);
        if (fd >= 0) {
            long n = read((int)fd, buf, sizeof buf);
            if (n > 0)
                fwrite(buf, 1, (size_t)n, stdout);
        }
    }
}
