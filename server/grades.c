/*
 * grades — the grades CSVs, long and course-wide (grades.h).
 *
 * The long CSV is the store's rows as they come. For the wide one, three
 * reads, joined here rather than in SQL so that the one query the
 * long export already runs on SQLite and PostgreSQL serves both: the
 * student accounts (store_students), the problems students are offered
 * (the catalog's listing, so drafts never leak into a sheet an LMS
 * shows), and the best score per student and problem (store_grades).
 * Students are looked up by username through a sorted index; problems by
 * a linear scan (a course has tens of them).
 */
#include "server/grades.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/catalog.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"

struct sheet {
    struct views_roster roster;   /* in the store's order: the rows */
    struct views_student **index; /* the same, sorted by strcmp of username */
    char **problem;               /* slugs, borrowed from the catalog listing */
    size_t n_problems;
    double *best; /* roster.n × n_problems, 0 when nothing */
};

static int by_username(const void *x, const void *y)
{
    return strcmp((*(struct views_student *const *)x)->username,
                  (*(struct views_student *const *)y)->username);
}

static int add_best(void *arg, const struct store_grade_row *row)
{
    struct sheet *sh = arg;
    struct views_student key = {.username = (char *)row->user}, *want = &key;
    struct views_student **found =
        bsearch(&want, sh->index, sh->roster.n, sizeof *sh->index, by_username);
    if (!found)
        return 0; /* an instructor's */
    struct views_student *u = *found;
    for (size_t k = 0; k < sh->n_problems; k++)
        if (!strcmp(sh->problem[k], row->problem)) {
            sh->best[(size_t)(u - sh->roster.st) * sh->n_problems + k] = row->best_score;
            break;
        }
    return 0;
}

/* The slugs of the catalog listing o (borrowed from it) into sh. */
static int read_problems(json_t *o, struct sheet *sh)
{
    json_t *ps = json_object_get(o, "problems");
    size_t n = json_array_size(ps);
    if (!json_is_array(ps) || !(sh->problem = calloc(n ? n : 1, sizeof *sh->problem)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *slug = json_string_value(json_object_get(json_array_get(ps, i), "slug"));
        if (!slug)
            return -1;
        sh->problem[sh->n_problems++] = (char *)slug;
    }
    return 0;
}

static char *sheet_csv(const struct sheet *sh, size_t *len)
{
    struct views_csv *c = views_csv_new();
    if (!c)
        return NULL;
    views_wide_header(c, (const char *const *)sh->problem, sh->n_problems);
    for (size_t i = 0; i < sh->roster.n; i++)
        views_wide_row(c, &sh->roster.st[i], &sh->best[i * sh->n_problems], sh->n_problems);
    return views_grades_take(c, len);
}

struct http_response *grades_csv(struct app *a, struct http_request *req, const struct caller *me)
{
    char *csv = NULL;
    size_t len = 0;
    (void)req;
    (void)me;
    struct views_csv *c = views_grades_new();
    if (!c)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_grades(s, views_add_grade, c);
    csv = views_grades_take(c, &len);
    struct http_response *r;
    if (rc < 0 || !csv) {
        r = request_internal(rc < 0 ? "grades" : "grades: cannot write the CSV", rc < 0 ? s : NULL);
        free(csv);
    } else if ((r = http_response_new(200, "text/csv; charset=utf-8", csv, len))) {
        http_add_header(r, "Content-Disposition", "attachment; filename=\"grades.csv\"");
    }
    store_pool_put(a->pool, s);
    return r;
}

struct http_response *grades_course_csv(struct app *a, struct http_request *req,
                                        const struct caller *me)
{
    struct sheet sh = {0};
    struct http_response *r = NULL;
    size_t len = 0;
    (void)req;
    (void)me;
    char *listing = catalog_list_json(a->catalog, false, clock_wall_ms(), &len);
    json_t *o = listing ? json_loadb(listing, len, 0, NULL) : NULL;
    free(listing);
    struct store *s = store_pool_get(a->pool);
    if (!o || read_problems(o, &sh) < 0) {
        fprintf(stderr, "attnjudge: course grades: cannot list the problems\n");
        goto fail;
    }
    if (store_students(s, 0, views_roster_add, &sh.roster) < 0)
        goto db;
    size_t cells = sh.roster.n * sh.n_problems;
    if (!(sh.best = calloc(cells ? cells : 1, sizeof *sh.best)) ||
        !(sh.index = calloc(sh.roster.n ? sh.roster.n : 1, sizeof *sh.index)))
        goto fail;
    for (size_t i = 0; i < sh.roster.n; i++)
        sh.index[i] = &sh.roster.st[i];
    qsort(sh.index, sh.roster.n, sizeof *sh.index, by_username);
    if (store_grades(s, add_best, &sh) < 0)
        goto db;
    char *text = sheet_csv(&sh, &len);
    if (!text)
        goto fail;
    if ((r = http_response_new(200, "text/csv; charset=utf-8", text, len)))
        http_add_header(r, "Content-Disposition", "attachment; filename=\"course-grades.csv\"");
    goto out;
db:
    fprintf(stderr, "attnjudge: course grades: %s\n", store_error(s));
fail:
    r = http_error(500, "internal", "internal error; the server log has the details");
out:
    store_pool_put(a->pool, s);
    views_roster_free(&sh.roster);
    free(sh.index);
    free(sh.problem);
    free(sh.best);
    json_decref(o);
    return r;
}
