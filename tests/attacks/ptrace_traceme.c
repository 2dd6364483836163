/* attack: ptrace(PTRACE_TRACEME): offer itself to a tracer, first step of ptrace-based escapes
 * threat: ptrace from the run sandbox
 * expect: security_violation
 * message: ptrace
 * problem: mha-fused-qkv
 */
#include <stddef.h>
#include <sys/ptrace.h>

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
    ptrace(PTRACE_TRACEME, 0, NULL, NULL);
}
