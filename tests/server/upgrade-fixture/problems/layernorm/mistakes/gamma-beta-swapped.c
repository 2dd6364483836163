/*
 * Known mistake "gamma-beta-swapped" of problem "layernorm": gamma and beta swapped: xhat * beta + gamma.
 * The reference with that one change; everything is accumulated in double.
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows, int dim,
               float eps);

void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows, int dim,
               float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        double mu = 0.0;
        for (int j = 0; j < dim; j++)
            mu += xr[j];
        mu /= dim;
        double var = 0.0;
        for (int j = 0; j < dim; j++) {
            double d = xr[j] - mu;
            var += d * d;
        }
        var /= dim;
        const double inv_std = 1.0 / sqrt(var + eps);
        for (int j = 0; j < dim; j++)
            yr[j] = (float)((xr[j] - mu) * inv_std * beta[j] + gamma[j]);
    }
}
