/* attack: relies on fresh heap memory being zero (an accumulator never initialised); here it probes what malloc, realloc's new tail and the aligned allocators return, and what calloc returns
 * threat: a mistake that passes in the judge's fresh process and fails in any real program: fresh malloc memory must be dirty, calloc's zeroed (docs/sandbox.md "Memory verdicts")
 * expect: wrong_answer
 * message: got 12345
 * problem: mha-fused-qkv
 *
 * Every probe that finds the memory as the harness must leave it lets the
 * function go on; one that does not aborts (runtime_error). At the end it
 * writes 12345 everywhere: an ordinary wrong answer, whose message shows
 * that every probe passed.
 */
#include <malloc.h>
#include <stdlib.h>

/* 1 if every byte of p[from, to) is non-zero; read through volatile so that
 * the compiler cannot assume anything about indeterminate contents */
static int all_dirty(const void *p, size_t from, size_t to)
{
    const volatile unsigned char *b = p;
    for (size_t i = from; i < to; i++)
        if (b[i] == 0)
            return 0;
    return 1;
}

static int all_zero(const void *p, size_t n)
{
    const volatile unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)n_heads;
    /* small (from the heap's fresh top) and large (mmap'd, zero pages) */
    static const size_t sizes[] = {64, 4096, (size_t)4 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *m = malloc(n);
        if (!m || !all_dirty(m, 0, n))
            abort();
        for (size_t j = 0; j < n; j++)
            m[j] = 7;
        unsigned char *r = realloc(m, 2 * n);
        if (!r || r[0] != 7 || r[n - 1] != 7 || !all_dirty(r, n, 2 * n))
            abort();
        free(r);
        void *a = aligned_alloc(64, n);
        if (!a || !all_dirty(a, 0, n))
            abort();
        free(a);
        void *pm = NULL;
        if (posix_memalign(&pm, 64, n) != 0 || !all_dirty(pm, 0, n))
            abort();
        free(pm);
        void *c = calloc(n, 1);
        if (!c || !all_zero(c, n))
            abort();
        free(c);
    }
    for (long i = 0; i < (long)B * T * d_model; i++)
        out[i] = 12345.0f;
}
