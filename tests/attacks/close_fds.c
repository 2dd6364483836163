/* attack: close every descriptor 0..1023 (the result channel among them), leave the output unset
 * threat: the harness losing its result channel; the judge must not crash or hang on it
 * expect: !accepted
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
    for (int fd = 0; fd < 1024; fd++)
        close(fd);
}
