/*
 * clock — the two clocks the project reads.
 */
#ifndef ATTNJUDGE_CLOCK_H
#define ATTNJUDGE_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch (CLOCK_REALTIME): for timestamps that
 * are stored or shown, e.g. a submission's time. May jump when the system
 * clock is set. */
int64_t clock_wall_ms(void);

/* Milliseconds, with a fraction, on CLOCK_MONOTONIC: for measuring
 * durations and scheduling; never jumps, meaningless as a date. */
double clock_mono_ms(void);

#endif
