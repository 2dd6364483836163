/* attack: ignore SIGXCPU (the soft CPU limit's signal), block it too, and spin
 * threat: RLIMIT_CPU's soft limit only sends SIGXCPU; the hard limit or the parent must kill (docs/pitfalls.md §1.5)
 * expect: time_limit
 * problem: mha-fused-qkv
 */
#include <signal.h>
#include <stddef.h>

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
    sigset_t set;
    signal(SIGXCPU, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGXCPU);
    sigprocmask(SIG_BLOCK, &set, NULL);
    for (;;)
        __asm__ volatile("" ::: "memory");
}
