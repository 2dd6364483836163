/* attack: raise its own CPU limit to infinity with setrlimit (prlimit64 with a new limit)
 * threat: prlimit64 is allowed for reading only (docs/pitfalls.md §1.5)
 * expect: security_violation
 * message: prlimit
 * problem: mha-fused-qkv
 */
#include <sys/resource.h>

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
    struct rlimit inf = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_CPU, &inf);
    setrlimit(RLIMIT_AS, &inf);
}
