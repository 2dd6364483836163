/*
 * Reference implementation of problem "layernorm".
 *
 * LayerNorm over the last axis of a (rows, dim) matrix, with a learned scale
 * gamma and shift beta, as torch.nn.functional.layer_norm(x, (dim,), gamma,
 * beta, eps) computes it; eps is the last argument (1e-5, PyTorch's default,
 * unless a test sets another value):
 *     mu  = mean_j x[r][j]
 *     var = mean_j (x[r][j] - mu)^2              (biased: divide by dim)
 *     y[r][j] = (x[r][j] - mu) / sqrt(var + eps) * gamma[j] + beta[j]
 * Two passes (the mean first, then the squared deviations) so that a large
 * mean does not cancel the variance away.
 *
 * Everything is accumulated in double; only the outputs are rounded to float.
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
            yr[j] = (float)((xr[j] - mu) * inv_std * gamma[j] + beta[j]);
    }
}
