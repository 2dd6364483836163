/* attack: NaN in every output element but one, out[0] = 1000, so that a reported max_abs_err would be |1000 - expected[0]|
 * threat: a hidden test's error statistics reading its expected output one element per submission (a lookup table keyed on the public dims, accepted with no implementation)
 * expect: wrong_answer
 * problem: mha-fused-qkv
 *
 * Here (samples only) it is an ordinary wrong answer. tests/cli/run.sh and
 * tests/server/run.sh judge it on the hidden tests too and check that
 * nothing numeric about them comes back to a student.
 */
#include <math.h>
#include <stddef.h>

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)n_heads;
    size_t n = (size_t)B * (size_t)T * (size_t)d_model;
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
    out[0] = 1000.0f;
}
