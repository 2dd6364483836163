/*
 * machine — the FMA peak and the memory bandwidth of one core (machine.h).
 *
 * Both are measured with the thread's own CPU clock, best of a few rounds:
 * the best round is the one least disturbed by the rest of the machine,
 * which is what a ceiling is.
 */
#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "judge/errbuf.h"
#include "judge/machine.h"
#include "util/clock.h"
#include "util/fs.h"

#define ROUNDS 3
#define FMA_ITERS 20000000L     /* per round: 12 chains x 8 lanes x 2 FLOPs each */
#define TRIAD_ELEMS (16L << 20) /* floats per array: 64 MiB, beyond any L3 of one core's share */
#define MACHINE_JSON_MAX (16 << 10) /* bytes of machine.json read */

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Twelve independent FMA chains: more than latency x ports (4 x 2 on
 * current x86 cores), so the chains, not their dependencies, are what the
 * loop waits on. Returns the sum so that nothing is optimised away. */
__attribute__((target("avx2,fma"))) static float fma_rounds(long iters)
{
    __m256 a[12];
    const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-6f);
    for (int k = 0; k < 12; k++)
        a[k] = _mm256_set1_ps(1.0f + (float)k * 1e-3f);
    for (long i = 0; i < iters; i++) {
        a[0] = _mm256_fmadd_ps(a[0], mul, add);
        a[1] = _mm256_fmadd_ps(a[1], mul, add);
        a[2] = _mm256_fmadd_ps(a[2], mul, add);
        a[3] = _mm256_fmadd_ps(a[3], mul, add);
        a[4] = _mm256_fmadd_ps(a[4], mul, add);
        a[5] = _mm256_fmadd_ps(a[5], mul, add);
        a[6] = _mm256_fmadd_ps(a[6], mul, add);
        a[7] = _mm256_fmadd_ps(a[7], mul, add);
        a[8] = _mm256_fmadd_ps(a[8], mul, add);
        a[9] = _mm256_fmadd_ps(a[9], mul, add);
        a[10] = _mm256_fmadd_ps(a[10], mul, add);
        a[11] = _mm256_fmadd_ps(a[11], mul, add);
    }
    __m256 s = a[0];
    for (int k = 1; k < 12; k++)
        s = _mm256_add_ps(s, a[k]);
    float lanes[8];
    _mm256_storeu_ps(lanes, s);
    return lanes[0] + lanes[7];
}

/* The same with scalar multiply-adds, on a CPU without AVX2/FMA. */
static float scalar_rounds(long iters)
{
    float a[8];
    for (int k = 0; k < 8; k++)
        a[k] = 1.0f + (float)k * 1e-3f;
    for (long i = 0; i < iters; i++)
        for (int k = 0; k < 8; k++)
            a[k] = a[k] * 0.999999f + 1e-6f;
    return a[0] + a[7];
}

/* a = b + s * c, the STREAM triad; 12 bytes moved per element. */
__attribute__((noinline)) static void triad(float *restrict a, const float *restrict b,
                                            const float *restrict c, float s, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

static void cpu_model(char *out, size_t len)
{
    char *text = NULL;
    size_t n = 0;

    snprintf(out, len, "unknown");
    if (fs_read_file("/proc/cpuinfo", 0, 1 << 20, &text, &n) < 0)
        return;
    const char *at = strstr(text, "model name");
    const char *colon = at ? strchr(at, ':') : NULL;
    if (colon) {
        colon += 1 + strspn(colon + 1, " \t");
        snprintf(out, len, "%.*s", (int)strcspn(colon, "\n"), colon);
    }
    free(text);
}

/* Measures the ceilings now, on the calling thread (about a second). */
static void machine_measure(struct machine_peak *m)
{
    volatile float sink = 0;
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");

    memset(m, 0, sizeof *m);
    cpu_model(m->cpu, sizeof m->cpu);
    snprintf(m->isa, sizeof m->isa, "%s", avx2 ? "avx2-fma" : "scalar");
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = thread_cpu_s();
        double flops;
        if (avx2) {
            sink += fma_rounds(FMA_ITERS);
            flops = (double)FMA_ITERS * 12 * 8 * 2;
        } else {
            sink += scalar_rounds(FMA_ITERS / 8);
            flops = (double)(FMA_ITERS / 8) * 8 * 2;
        }
        double s = thread_cpu_s() - t0;
        if (s > 0 && flops / s / 1e9 > m->fma_gflops)
            m->fma_gflops = flops / s / 1e9;
    }

    float *a = malloc(3 * (size_t)TRIAD_ELEMS * sizeof *a);
    if (a) {
        float *b = a + TRIAD_ELEMS, *c = b + TRIAD_ELEMS;
        for (long i = 0; i < TRIAD_ELEMS; i++) {
            a[i] = 0;
            b[i] = (float)i;
            c[i] = 1.0f;
        }
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = thread_cpu_s();
            triad(a, b, c, 0.5f, TRIAD_ELEMS);
            double s = thread_cpu_s() - t0;
            double gbs = 3.0 * TRIAD_ELEMS * sizeof(float) / s / 1e9;
            if (s > 0 && gbs > m->bandwidth_gbs)
                m->bandwidth_gbs = gbs;
        }
        sink += a[TRIAD_ELEMS / 2];
        free(a);
    }
    (void)sink;
    m->measured_at = clock_wall_ms();
}

json_t *machine_peak_json(const struct machine_peak *m)
{
    return json_pack("{s:s, s:s, s:f, s:f, s:I}", "cpu", m->cpu, "isa", m->isa, "fma_gflops",
                     m->fma_gflops, "bandwidth_gbs", m->bandwidth_gbs, "measured_at",
                     (json_int_t)m->measured_at);
}

/* The cached figures, when they belong to this CPU and look like figures. */
static bool cached(const char *path, const char *cpu, struct machine_peak *m)
{
    char *text = NULL;
    size_t len = 0;
    const char *c = NULL, *isa = NULL;
    json_int_t at = 0;
    bool ok = false;

    if (fs_read_file(path, O_NOFOLLOW, MACHINE_JSON_MAX, &text, &len) < 0)
        return false;
    json_t *root = json_loadb(text, len, 0, NULL);
    free(text);
    memset(m, 0, sizeof *m);
    if (root &&
        json_unpack(root, "{s:s, s:s, s:F, s:F, s:I}", "cpu", &c, "isa", &isa, "fma_gflops",
                    &m->fma_gflops, "bandwidth_gbs", &m->bandwidth_gbs, "measured_at", &at) == 0 &&
        strcmp(c, cpu) == 0 && m->fma_gflops > 0 && m->bandwidth_gbs > 0) {
        snprintf(m->cpu, sizeof m->cpu, "%s", c);
        snprintf(m->isa, sizeof m->isa, "%s", isa);
        m->measured_at = at;
        ok = true;
    }
    json_decref(root);
    return ok;
}

int machine_peak(const char *data_dir, struct machine_peak *m, char *err, size_t errlen)
{
    char path[4096], cpu[128];

    if (snprintf(path, sizeof path, "%s/machine.json", data_dir) >= (int)sizeof path) {
        errbuf_set(err, errlen, "data directory path too long");
        return -1;
    }
    cpu_model(cpu, sizeof cpu);
    if (cached(path, cpu, m))
        return 0;
    machine_measure(m);
    json_t *j = machine_peak_json(m);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(j);
    if (!text) {
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    if (fs_write_atomic(path, text, strlen(text), 0600) < 0) {
        /* measured again at the next start */
    }
    free(text);
    return 0;
}
