/* Wrong answer: eps hard-coded as 1e-5f, PyTorch's default, instead of the eps argument; right only on the tests that pass 1e-5.
 * Hint: eps is an argument of the function and the tests pass different values: use the one you are given, not PyTorch's default.
 * Diagnosis: eps-hardcoded
 */
#include <math.h>
#include <stdlib.h>

void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows, int dim,
               float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        float mean = 0.0f;
        for (int j = 0; j < dim; j++)
            mean += xr[j];
        mean /= (float)dim;
        float var = 0.0f;
        for (int j = 0; j < dim; j++)
            var += (xr[j] - mean) * (xr[j] - mean);
        var /= (float)dim;
        const float rstd = 1.0f / sqrtf(var + 1e-5f);
        for (int j = 0; j < dim; j++)
            yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}
