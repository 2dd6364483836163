/*
 * bench_spread — how far a benchmark's leaderboard figure could land if
 * measured again (docs/performance.md, "Ties").
 *
 * The figure is the geometric mean G of the sizes' medians m_i. Its
 * interval is G × exp(±1.96 u), where u is the root mean square of the
 * sizes' robust coefficients of variation (1.4826 × MAD / median, as the
 * report gives them): the spread of one call, not the standard error of
 * a median. A median measured in another run moves with that run's
 * machine, which averaging calls within one run does not remove, and it
 * moves all sizes together: so neither the calls' count nor the sizes'
 * count narrows u. Two figures whose intervals overlap cannot be told
 * apart on this machine: the leaderboard shows them tied.
 */
#ifndef ATTNJUDGE_JUDGE_BENCH_SPREAD_H
#define ATTNJUDGE_JUDGE_BENCH_SPREAD_H

#include <jansson.h>
#include <stdbool.h>

#define BENCH_SPREAD_Z 1.96 /* two-sided 95 % under a normal spread */

/* The interval [*lo, *hi] (ms) of the geometric mean of a report as
 * bench_report_json gives it. False (and *lo, *hi untouched) when the
 * report has no figure: a size without its median or CV. */
bool bench_spread_interval(const json_t *report, double *lo, double *hi);

/* Whether the intervals [alo, ahi] and [blo, bhi] share a point. */
bool bench_spread_overlap(double alo, double ahi, double blo, double bhi);

#endif
