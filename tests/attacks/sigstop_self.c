/* attack: raise(SIGSTOP) on itself: a stopped program uses no CPU and ignores the CPU limit
 * threat: only a wall clock enforced by the parent stops a stopped program (docs/pitfalls.md §1.5)
 * expect: time_limit
 * problem: mha-fused-qkv
 */
#include <signal.h>
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
    raise(SIGSTOP);
    /* If SIGSTOP had no effect (e.g. the program is its namespace's init),
     * keep sleeping so that the wall clock still has to act. */
    for (int i = 0; i < 1000; i++)
        sleep(100);
}
