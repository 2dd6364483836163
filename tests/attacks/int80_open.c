/* attack: open("/etc/passwd") through the 32-bit int 0x80 entry (i386 syscall numbers: 5 = open)
 * threat: a filter that does not check the architecture (i386 numbers differ from x86_64's)
 * expect: security_violation
 * without-int80: runtime_error
 * problem: mha-fused-qkv
 */
static char attack_path[] = "/etc/passwd";

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
    long r;
    __asm__ volatile("int $0x80"
                     : "=a"(r)
                     : "a"(5L /* i386 open */), "b"((long)attack_path), "c"(0L), "d"(0L)
                     : "r8", "r9", "r10", "r11", "memory");
    (void)r;
    __asm__ volatile("int $0x80"
                     : "=a"(r)
                     : "a"(26L /* i386 ptrace */), "b"(0L), "c"(0L), "d"(0L)
                     : "r8", "r9", "r10", "r11", "memory");
    out[0] = (float)r;
}
