/* attack: an ifunc resolver (run while relocating, before constructors and main) opens a socket
 * threat: student code before main, earlier than any constructor (docs/pitfalls.md §1.1)
 * expect: security_violation
 * message: socket
 * problem: mha-fused-qkv
 *
 * The resolver runs before TLS exists, so it issues the syscall itself.
 */
typedef void mha_fn(const float *, const float *, const float *, float *, int, int, int, int);

static long attack_raw_socket(void)
{
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(41L /* socket */), "D"(2L /* AF_INET */), "S"(1L /* SOCK_STREAM */),
                       "d"(0L)
                     : "rcx", "r11", "memory");
    return r;
}

static void attack_impl(const float *x, const float *w_qkv, const float *w_o, float *out, int B,
                        int T, int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)out;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
}

static mha_fn *attack_resolver(void)
{
    attack_raw_socket();
    return attack_impl;
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads) __attribute__((ifunc("attack_resolver")));
