/*
 * Known mistake "normalise-over-rows" of problem "layernorm": mean and variance taken down each column (over the rows) instead of over each row's features.
 * The reference with that one change; everything is accumulated in double.
 */
#include <math.h>
#include <stdlib.h>

void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows, int dim,
               float eps)
{
    for (int j = 0; j < dim; j++) {
        double mu = 0.0;
        for (int r = 0; r < rows; r++)
            mu += x[(size_t)r * dim + j];
        mu /= rows;
        double var = 0.0;
        for (int r = 0; r < rows; r++) {
            double d = x[(size_t)r * dim + j] - mu;
            var += d * d;
        }
        var /= rows;
        const double inv_std = 1.0 / sqrt(var + eps);
        for (int r = 0; r < rows; r++)
            y[(size_t)r * dim + j] =
                (float)((x[(size_t)r * dim + j] - mu) * inv_std * gamma[j] + beta[j]);
    }
}
