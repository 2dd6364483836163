/* attack: openat("/etc/passwd") with the x32 ABI syscall number (0x40000000 | 257)
 * threat: a filter that ignores the x32 bit (same AUDIT_ARCH as x86_64)
 * expect: security_violation
 * problem: mha-fused-qkv
 */
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
    long r = attack_syscall4(0x40000000L | 257, -100, (long)"/etc/passwd", 0, 0);
    out[0] = (float)r;
}
