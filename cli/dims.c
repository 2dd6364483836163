/*
 * dims — the numbers of the command line: the --dims option of
 * `attnjudge export` ("K=V,K=V" to the problem's dimension arguments) and
 * the --search-budget of `judge` and `problem check`.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "judge/errbuf.h"
#include "judge/problem_domain.h"

int cli_parse_dims(const struct problem *p, const char *text, int64_t *dims, char *err,
                   size_t errlen)
{
    bool seen[PROBLEM_MAX_PARAMS] = {false};
    char *copy = NULL, *save = NULL, *item;
    int rc = -1;

    copy = strdup(text ? text : "");
    if (!copy) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '='), *key = item, *value, *end;
        long long n;
        int i;

        if (!eq) {
            errbuf_set(err, errlen, "'%s': expected NAME=VALUE", item);
            goto out;
        }
        *eq = '\0';
        value = eq + 1;
        while (*key == ' ')
            key++;
        for (char *e = eq; e > key && e[-1] == ' ';)
            *--e = '\0';
        i = problem_find_param(p, key);
        if (i < 0 || p->params[i].kind != PARAM_INT) {
            errbuf_set(err, errlen, "unknown dimension '%s'", key);
            goto out;
        }
        if (seen[i]) {
            errbuf_set(err, errlen, "dimension '%s' given twice", key);
            goto out;
        }
        seen[i] = true;
        errno = 0;
        n = strtoll(value, &end, 10);
        while (*end == ' ')
            end++;
        if (end == value || *end != '\0' || errno == ERANGE || n < INT_MIN || n > INT_MAX) {
            errbuf_set(err, errlen, "%s: '%s' is not an integer that fits a C int", key, value);
            goto out;
        }
        dims[p->params[i].dim_index] = n;
    }
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind == PARAM_INT && !seen[i]) {
            errbuf_set(err, errlen, "missing dimension '%s'", p->params[i].name);
            goto out;
        }
    }
    rc = 0;
out:
    free(copy);
    return rc;
}

int cli_parse_budget(const char *cmd, const char *text, int64_t *ms)
{
    char *end;
    long long v = strtoll(text, &end, 10);

    if (*text == '\0' || *end || v < 0 || v > PROBLEM_SEARCH_BUDGET_MAX) {
        fprintf(stderr, "attnjudge %s: --search-budget: milliseconds, 0 to %d\n", cmd,
                PROBLEM_SEARCH_BUDGET_MAX);
        return -1;
    }
    *ms = v;
    return 0;
}
