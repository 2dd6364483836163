/* Wrong answer: one-pass variance E[x^2] - E[x]^2 in float; cancels catastrophically when the mean is large.
 * Hint: with a mean of 50 and a spread of 1, E[x^2] and E[x]^2 agree in their first 4-5 digits. Subtract the mean first, then square.
 */
#include <math.h>
#include <stdlib.h>

void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows, int dim,
               float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        float mean = 0.0f, sq = 0.0f;
        for (int j = 0; j < dim; j++) {
            mean += xr[j];
            sq += xr[j] * xr[j];
        }
        mean /= (float)dim;
        float var = sq / (float)dim - mean * mean;
        if (var < 0.0f)
            var = 0.0f;
        const float rstd = 1.0f / sqrtf(var + eps);
        for (int j = 0; j < dim; j++)
            yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}
