/*
 * check_search — the search's lines of `problem check` (check_search.h).
 */
#include "judge/check_search.h"

#include <inttypes.h>
#include <stdio.h>

#include "judge/search.h"

void check_search_where(const struct problem *p, const struct judge_report *r, char *buf,
                        size_t len)
{
    const struct judge_counterexample *cx = r->search.cx;
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; cx && i < p->n_params && at < len; i++)
        if (p->params[i].kind == PARAM_INT)
            at += (size_t)snprintf(buf + at, len - at, "%s%s=%" PRId64, at ? " " : "",
                                   p->params[i].name, cx->tc.dims[p->params[i].dim_index]);
    if (cx && at < len)
        snprintf(buf + at, len - at, " (%s)", cx->how);
}

void check_search_domain(const struct problem *p, int64_t search_ms,
                         void (*report)(void *arg, bool ok, const char *line), void *arg)
{
    char line[256];
    int64_t budget = search_budget(p, search_ms);

    if (!p->domain.present)
        snprintf(line, sizeof line,
                 "domain: none declared, so the counterexample search does not run for this "
                 "problem (docs/problem-format.md, \"Input domain\")");
    else if (!budget)
        snprintf(line, sizeof line, "domain: declared; the counterexample search was not run");
    else
        snprintf(line, sizeof line,
                 "domain: declared; the counterexample search ran after the tests of every "
                 "mistake and example, %" PRId64 " ms each",
                 budget);
    report(arg, true, line);
}
