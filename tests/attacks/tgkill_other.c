/* attack: tgkill another process (tgkill is allowed for the program's own pid only)
 * threat: an allowed syscall whose arguments must be checked (abort() needs tgkill on itself)
 * expect: security_violation
 * message: tgkill
 * problem: mha-fused-qkv
 */
#include <signal.h>
#include <sys/syscall.h>
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
    long self = getpid();
    long target = self == 1 ? 2 : 1;
    syscall(SYS_tgkill, target, target, SIGKILL);
}
