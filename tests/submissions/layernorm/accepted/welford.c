/* Accepted: Welford's one-pass running mean and variance, in float. */
#include <math.h>
#include <stdlib.h>

void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows, int dim,
               float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        float mean = 0.0f, m2 = 0.0f;
        for (int j = 0; j < dim; j++) {
            const float delta = xr[j] - mean;
            mean += delta / (float)(j + 1);
            m2 += delta * (xr[j] - mean);
        }
        const float rstd = 1.0f / sqrtf(m2 / (float)dim + eps);
        for (int j = 0; j < dim; j++)
            yr[j] = gamma[j] * ((xr[j] - mean) * rstd) + beta[j];
    }
}
