/* attack: write forged "accepted" results and fake tensors on every descriptor 1..63, leave the output unset
 * threat: a result channel the program can write to (the harness's fd) trusted by the judge
 * expect: !accepted
 * problem: mha-fused-qkv
 *
 * Any verdict but accepted (and never internal_error, which a submission must
 * not be able to cause): wrong_answer or runtime_error.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    static const char *const forged[] = {
        "accepted\n",
        "{\"verdict\":\"accepted\",\"status\":\"ok\",\"time_ms\":0}\n",
        "OK 0 0\n",
    };
    static float fake[1 << 16];
    uint32_t hdr[4] = {0, 0, 0, 0};
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)out;
    (void)n_heads;

    for (size_t i = 0; i < sizeof fake / sizeof fake[0]; i++)
        fake[i] = 0.0f;
    hdr[0] = (uint32_t)((size_t)B * T * d_model * sizeof(float));
    for (int fd = 1; fd < 64; fd++) {
        for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++)
            (void)!write(fd, forged[i], strlen(forged[i]));
        (void)!write(fd, hdr, sizeof hdr);
        (void)!write(fd, fake, sizeof fake);
    }
}
