/* attack: vmsplice user pages into the output pipe (the Dirty Pipe family of page-splicing bugs)
 * threat: kernel attack surface through splice/vmsplice/tee (CVE-2022-0847); not in the run allow-list, denied at compile time too
 * expect: security_violation
 * message: vmsplice
 * problem: mha-fused-qkv
 */
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    static char page[4096] = "attnjudge";
    struct iovec iov = {page, sizeof page};
    out[0] = (float)syscall(SYS_vmsplice, 1, &iov, 1, 0);
}
