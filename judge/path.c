/*
 * path — Kahn's topological sort with a priority: at every step, take the
 * least problem (difficulty, title, slug) whose prerequisites are already
 * listed. Quadratic in the number of problems per step, which is fine for a
 * course (tens to hundreds of problems) and keeps the code obvious.
 */
#include "judge/path.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* easy < medium < hard < anything else */
static int difficulty_rank(const char *d)
{
    static const char *const ranks[] = {"easy", "medium", "hard"};
    for (int i = 0; d && i < 3; i++)
        if (!strcmp(d, ranks[i]))
            return i;
    return 3;
}

static int cmp_problem(const struct problem *a, const struct problem *b)
{
    int ra = difficulty_rank(a->difficulty), rb = difficulty_rank(b->difficulty);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    int c = strcmp(a->title ? a->title : a->slug, b->title ? b->title : b->slug);
    return c ? c : strcmp(a->slug, b->slug);
}

static long find_slug(const struct problem *const *ps, size_t n, const char *slug)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ps[i]->slug, slug))
            return (long)i;
    return -1;
}

/* Whether every prerequisite of p that is among ps is already listed. */
static bool is_free(const struct problem *const *ps, size_t n, const bool *listed,
                    const struct problem *p)
{
    for (size_t k = 0; k < p->n_prereqs; k++) {
        long j = find_slug(ps, n, p->prereqs[k]);
        if (j >= 0 && !listed[j])
            return false;
    }
    return true;
}

int path_order(const struct problem *const *ps, size_t n, size_t *order)
{
    bool *listed = calloc(n ? n : 1, sizeof *listed);
    if (!listed)
        return -1;
    for (size_t step = 0; step < n; step++) {
        long best = -1, least = -1;
        for (size_t i = 0; i < n; i++) {
            if (listed[i])
                continue;
            if (least < 0 || cmp_problem(ps[i], ps[least]) < 0)
                least = (long)i;
            if (is_free(ps, n, listed, ps[i]) && (best < 0 || cmp_problem(ps[i], ps[best]) < 0))
                best = (long)i;
        }
        if (best < 0)
            best = least; /* a cycle: list it anyway */
        listed[best] = true;
        order[step] = (size_t)best;
    }
    free(listed);
    return 0;
}
