/*
 * grades — the course-wide wide CSV (grades.h).
 *
 * Three reads, joined here rather than in SQL so that the one query the
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

#include "server/views.h"
#include "util/clock.h"

struct student {
    char *username, *student_id, *display_name; /* one allocation, at username */
};

struct sheet {
    struct student *st;
    size_t n, cap;
    char **problem; /* slugs, borrowed from the catalog listing */
    size_t n_problems;
    double *best; /* n × n_problems, 0 when nothing */
};

static int add_student(void *arg, const struct store_student *u)
{
    struct sheet *sh = arg;
    if (sh->n == sh->cap) {
        size_t cap = sh->cap ? sh->cap * 2 : 64;
        struct student *st = realloc(sh->st, cap * sizeof *st);
        if (!st)
            return -1;
        sh->st = st;
        sh->cap = cap;
    }
    size_t a = strlen(u->username) + 1, b = strlen(u->student_id) + 1;
    char *text = malloc(a + b + strlen(u->display_name) + 1);
    if (!text)
        return -1;
    memcpy(text, u->username, a);
    memcpy(text + a, u->student_id, b);
    strcpy(text + a + b, u->display_name);
    sh->st[sh->n++] = (struct student){text, text + a, text + a + b};
    return 0;
}

static int by_username(const void *x, const void *y)
{
    return strcmp(((const struct student *)x)->username, ((const struct student *)y)->username);
}

static int add_best(void *arg, const struct store_grade_row *row)
{
    struct sheet *sh = arg;
    struct student key = {(char *)row->user, NULL, NULL};
    struct student *s = bsearch(&key, sh->st, sh->n, sizeof *sh->st, by_username);
    if (!s)
        return 0;
    for (size_t k = 0; k < sh->n_problems; k++)
        if (!strcmp(sh->problem[k], row->problem)) {
            sh->best[(size_t)(s - sh->st) * sh->n_problems + k] = row->best_score;
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
    char num[32];
    if (!c)
        return NULL;
    views_csv_field(c, "username", false);
    views_csv_field(c, "student_id", false);
    views_csv_field(c, "display_name", false);
    for (size_t k = 0; k < sh->n_problems; k++)
        views_csv_field(c, sh->problem[k], false);
    views_csv_field(c, "total", true);
    for (size_t i = 0; i < sh->n; i++) {
        double total = 0;
        views_csv_field(c, sh->st[i].username, false);
        views_csv_field(c, sh->st[i].student_id, false);
        views_csv_field(c, sh->st[i].display_name, false);
        for (size_t k = 0; k < sh->n_problems; k++) {
            double v = sh->best[i * sh->n_problems + k];
            total += v;
            views_score_text(v, num, sizeof num);
            views_csv_field(c, num, false);
        }
        views_score_text(total, num, sizeof num);
        views_csv_field(c, num, true);
    }
    return views_grades_take(c, len);
}

struct http_response *grades_course_csv(struct app *a)
{
    struct sheet sh = {0};
    struct http_response *r = NULL;
    size_t len = 0;
    char *listing = catalog_list_json(a->catalog, false, clock_wall_ms(), &len);
    json_t *o = listing ? json_loadb(listing, len, 0, NULL) : NULL;
    free(listing);
    struct store *s = store_pool_get(a->pool);
    if (!o || read_problems(o, &sh) < 0) {
        fprintf(stderr, "attnjudge: course grades: cannot list the problems\n");
        goto fail;
    }
    if (store_students(s, 0, add_student, &sh) < 0)
        goto db;
    qsort(sh.st, sh.n, sizeof *sh.st, by_username);
    size_t cells = sh.n * sh.n_problems;
    if (!(sh.best = calloc(cells ? cells : 1, sizeof *sh.best)))
        goto fail;
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
    for (size_t i = 0; i < sh.n; i++)
        free(sh.st[i].username);
    free(sh.st);
    free(sh.problem);
    free(sh.best);
    json_decref(o);
    return r;
}
