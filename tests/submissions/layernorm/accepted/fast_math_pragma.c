/* Accepted: the float version compiled with fast-math via a pragma. */
#pragma GCC optimize("O3", "fast-math")
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
        const float rstd = 1.0f / sqrtf(var + eps);
        for (int j = 0; j < dim; j++)
            yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}
