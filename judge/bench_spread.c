/*
 * bench_spread — the interval of a benchmark's geometric mean, from the
 * per-size figures of its report (bench_spread.h).
 */
#include "judge/bench_spread.h"

#include <math.h>

bool bench_spread_interval(const json_t *report, double *lo, double *hi)
{
    const json_t *sizes = json_object_get(report, "sizes");
    size_t i, n = json_array_size(sizes);
    double log_sum = 0, cv2_sum = 0;
    json_t *size;
    if (n == 0)
        return false;
    json_array_foreach(sizes, i, size)
    {
        const json_t *m = json_object_get(size, "median_ms"), *cv = json_object_get(size, "cv");
        if (!json_is_number(m) || !json_is_number(cv) || json_number_value(m) <= 0 ||
            json_number_value(cv) < 0)
            return false;
        log_sum += log(json_number_value(m));
        cv2_sum += json_number_value(cv) * json_number_value(cv);
    }
    double g = exp(log_sum / (double)n), u = sqrt(cv2_sum / (double)n);
    *lo = g * exp(-BENCH_SPREAD_Z * u);
    *hi = g * exp(BENCH_SPREAD_Z * u);
    return true;
}

bool bench_spread_overlap(double alo, double ahi, double blo, double bhi)
{
    return alo <= bhi && blo <= ahi;
}
