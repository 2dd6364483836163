/* attack: allocate 128 MiB blocks until malloc returns NULL, then dereference the NULL
 * threat: memory exhaustion; an allocation failure must be memory_limit, not runtime_error (docs/pitfalls.md §1.7)
 * expect: memory_limit
 * problem: mha-fused-qkv
 */
#include <stdlib.h>
#include <string.h>

/* The blocks stay reachable, so the compiler keeps every allocation. */
static char *volatile attack_keep[1 << 16];
static char *volatile attack_null;

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)out;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    for (long i = 0; i < (1L << 16); i++) {
        /* large blocks: the judge fills each fresh block, and filling the
         * whole limit in small ones costs about the 1 s CPU limit on a slow
         * machine (a time_limit there) */
        char *p = malloc((size_t)128 << 20);
        if (p == NULL)
            break;
        memset(p, 1, 4096);
        attack_keep[i] = p;
    }
    *attack_null = 1; /* the NULL malloc gave back (or any NULL): SIGSEGV */
}
