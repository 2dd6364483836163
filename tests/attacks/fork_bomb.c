/* attack: fork bomb: every process forks 64 children, forever
 * threat: process creation inside the run sandbox (RLIMIT_NPROC is per uid, docs/pitfalls.md §1.6)
 * expect: security_violation
 * message: clone|fork
 * problem: mha-fused-qkv
 */
#include <unistd.h>

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
    for (;;)
        for (int i = 0; i < 64; i++)
            fork();
}
