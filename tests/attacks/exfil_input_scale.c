/* attack: out[0] = |x[0]| * 2^80: the error statistics of a hidden test would be a hidden input, scaled
 * threat: a hidden test's inputs read back through max_abs_err / max_rel_err
 * expect: wrong_answer
 * problem: mha-fused-qkv
 *
 * Here (samples only) it is an ordinary wrong answer. tests/cli/run.sh and
 * tests/server/run.sh judge it on the hidden tests too and check that
 * nothing numeric about them comes back to a student.
 */
#include <math.h>

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)w_qkv;
    (void)w_o;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    out[0] = fabsf(x[0]) * 0x1p80f;
}
