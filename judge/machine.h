/*
 * machine — this machine's ceilings for one core: the FP32 FMA peak and
 * the memory bandwidth, measured by the judge itself (docs/performance.md).
 *
 * A benchmark's GFLOP/s means little alone; as a fraction of what this core
 * can do, and placed under the roofline these two numbers draw, it tells a
 * student whether the kernel is compute- or memory-bound. Measuring takes
 * about a second, so the figures are cached in the data directory, keyed by
 * the CPU's model name and the instruction set used.
 */
#ifndef ATTNJUDGE_MACHINE_H
#define ATTNJUDGE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/compiler.h"

struct machine_peak {
    char cpu[128];        /* /proc/cpuinfo's model name */
    char isa[16];         /* "avx2-fma" or "scalar": what the peak was measured with */
    double fma_gflops;    /* single core, FP32, fused multiply-add, GFLOP/s */
    double bandwidth_gbs; /* single core, a triad over arrays far beyond the caches, GB/s */
    int64_t measured_at;  /* ms since the epoch */
};

/* The ceilings from data_dir/machine.json when they were measured on this
 * CPU, else measured now and written there (a cache that cannot be written
 * only costs the next start a second). Returns 0, or -1 with err. */
int machine_peak(const char *data_dir, struct machine_peak *m, char *err, size_t errlen) MUST_CHECK;

/* {"cpu", "isa", "fma_gflops", "bandwidth_gbs", "measured_at"}; NULL when
 * out of memory. */
json_t *machine_peak_json(const struct machine_peak *m) MUST_CHECK;

#endif
