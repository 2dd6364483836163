/* attack: on a hidden test (recognised by its public dims), _exit with a byte of the hidden input as the status
 * threat: eight bits of hidden data per test through the exit code in the test's message
 * expect: wrong_answer
 * problem: mha-fused-qkv
 *
 * The sample tests (dims 1x4x8/2, 2x5x12/3, 1x72x8/2, 4x1x16/4, 3x3x4/2 and
 * 1x2x32/8) get NaN, an ordinary wrong answer, so the hidden tests still run. tests/cli/run.sh and
 * tests/server/run.sh judge it on the hidden tests and check that the exit
 * code does not come back to a student.
 */
#include <math.h>
#include <stddef.h>
#include <unistd.h>

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)w_qkv;
    (void)w_o;
    int sample = (B == 1 && T == 4 && d_model == 8 && n_heads == 2) ||
                 (B == 2 && T == 5 && d_model == 12 && n_heads == 3) ||
                 (B == 1 && T == 72 && d_model == 8 && n_heads == 2) ||
                 (B == 4 && T == 1 && d_model == 16 && n_heads == 4) ||
                 (B == 3 && T == 3 && d_model == 4 && n_heads == 2) ||
                 (B == 1 && T == 2 && d_model == 32 && n_heads == 8);
    if (!sample)
        _exit(1 + (int)(fabsf(x[0]) * 64.0f) % 250);
    size_t n = (size_t)B * (size_t)T * (size_t)d_model;
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
}
