/*
 * integrity — sources archive and similarity report (integrity.h).
 *
 * Which submission stands for a student: their last accepted one, else
 * their last one (store_problem_sources), the same in the archive and in
 * the report, so the two agree. Text every student was given — the
 * starter, the statement's code blocks, the reference — is excluded from
 * matching (sim_doc_exclude): sharing it is not copying.
 */
#include "server/integrity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/names.h"
#include "judge/similarity.h"
#include "judge/zipmem.h"
#include "server/catalog.h"
#include "server/views.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/fs.h"

#define MAX_STUDENTS 2000
#define PAIRS_DEFAULT 50
#define PAIRS_MAX 500
#define MIN_DEFAULT 0.3
#define FRAGMENT_MAX 8    /* fragments shown per pair */
#define FRAGMENT_LINES 40 /* lines shown per fragment side */

static struct http_response *internal(const char *where, const char *why)
{
    fprintf(stderr, "attnjudge: %s: %s\n", where, why);
    return http_error(500, "internal", "internal error; the server log has the details");
}

/* The students' chosen sources, copied out of the database rows. */
struct entry {
    char user[64];
    int64_t submission;
    char verdict[32];
    int64_t created_at;
    char *source;
    size_t len;
    struct sim_doc doc;
};

struct set {
    struct entry *e;
    size_t n, cap;
};

static int add_source(void *arg, const struct store_source_row *row)
{
    struct set *set = arg;
    if (set->n == MAX_STUDENTS)
        return 0;
    if (ARRAY_RESERVE(set->e, set->n, set->cap, 64) < 0)
        return -1;
    struct entry *e = &set->e[set->n];
    memset(e, 0, sizeof *e);
    snprintf(e->user, sizeof e->user, "%s", row->user);
    snprintf(e->verdict, sizeof e->verdict, "%s", row->verdict ? row->verdict : "");
    e->submission = row->submission_id;
    e->created_at = row->created_at;
    if (!(e->source = malloc(row->len + 1)))
        return -1;
    memcpy(e->source, row->source ? row->source : "", row->len);
    e->source[row->len] = '\0';
    e->len = row->len;
    set->n++;
    return 0;
}

static void set_free(struct set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->e[i].source);
        sim_doc_free(&set->e[i].doc);
    }
    free(set->e);
}

/* Loads the sources of slug; 404 for a problem not in the catalog. */
static struct http_response *load(struct app *a, const char *slug, struct set *set,
                                  const struct problem **p)
{
    char err[256];
    int version = 0;
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if (!(*p = catalog_current(a->catalog, slug, &version, err, sizeof err)))
        return http_error(404, "not_found", "no problem '%s'", slug);
    struct store *s = store_pool_get(a->pool);
    int rc = store_problem_sources(s, slug, add_source, set);
    struct http_response *r = rc < 0 ? internal("sources", store_error(s)) : NULL;
    store_pool_put(a->pool, s);
    return r;
}

struct http_response *integrity_sources(struct app *a, struct http_request *req,
                                        const struct caller *me)
{
    const char *slug = req->param;
    (void)me;
    struct set set = {0};
    const struct problem *p = NULL;
    char err[256], top[sizeof req->param + 16], name[96];
    unsigned char *zip = NULL;
    size_t zip_len = 0;
    struct http_response *r = load(a, slug, &set, &p);
    if (r)
        goto out;
    snprintf(top, sizeof top, "%s-sources", slug);
    struct zipmem *z = zipmem_new(top, err, sizeof err);
    struct views_csv *manifest = views_csv_new();
    if (!z || !manifest) {
        zipmem_free(z);
        free(views_grades_take(manifest, &zip_len));
        r = internal("sources zip", err);
        goto out;
    }
    views_csv_field(manifest, "file", false);
    views_csv_field(manifest, "username", false);
    views_csv_field(manifest, "submission", false);
    views_csv_field(manifest, "verdict", false);
    views_csv_field(manifest, "submitted_at", true);
    bool ok = true;
    for (size_t i = 0; ok && i < set.n; i++) {
        /* usernames are [A-Za-z0-9][A-Za-z0-9_.-]*: safe file names */
        snprintf(name, sizeof name, "%s.c", set.e[i].user);
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)set.e[i].submission);
        json_t *t = views_time(set.e[i].created_at);
        views_csv_field(manifest, name, false);
        views_csv_field(manifest, set.e[i].user, false);
        views_csv_field(manifest, id, false);
        views_csv_field(manifest, set.e[i].verdict, false);
        ok = views_csv_field(manifest, json_string_value(t), true) == 0 &&
             zipmem_add(z, name, set.e[i].source, set.e[i].len) == 0;
        json_decref(t);
    }
    size_t mlen = 0;
    char *mtext = views_grades_take(manifest, &mlen);
    ok = ok && mtext && zipmem_add(z, "MANIFEST.csv", mtext, mlen) == 0;
    free(mtext);
    if (!ok) {
        zipmem_free(z);
        r = internal("sources zip", "cannot add a file");
        goto out;
    }
    if (zipmem_finish(z, &zip, &zip_len, err, sizeof err) < 0) {
        r = internal("sources zip", err);
        goto out;
    }
    r = http_response_new(200, "application/zip", (char *)zip, zip_len);
    if (r) {
        char v[sizeof req->param + 64];
        snprintf(v, sizeof v, "attachment; filename=\"%s-sources.zip\"", slug);
        http_add_header(r, "Content-Disposition", v);
    }
out:
    set_free(&set);
    return r;
}

/* Writes the fenced code blocks of Markdown md to f: the statement's
 * examples, excluded from matching. */
static void code_blocks(const char *md, FILE *f)
{
    const char *at = md;
    while (at && (at = strstr(at, "```"))) {
        const char *body = strchr(at, '\n');
        if (!body)
            break;
        const char *end = strstr(body, "\n```");
        if (!end)
            end = body + strlen(body);
        fwrite(body, 1, (size_t)(end - body), f);
        fputc('\n', f);
        at = *end ? end + 4 : NULL;
    }
}

/* The text every student was given: starter, statement examples,
 * reference. */
static int base_of(const struct problem *p, struct sim_doc *base)
{
    char *text = NULL, *ref = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return -1;
    fputs(p->starter_c ? p->starter_c : "", f);
    fputc('\n', f);
    if (p->statement_md)
        code_blocks(p->statement_md, f);
    if (p->reference_path && fs_read_file(p->reference_path, 0, 1 << 20, &ref, NULL) == 0)
        fputs(ref, f);
    free(ref);
    if (fclose(f) != 0) {
        free(text);
        return -1;
    }
    int rc = sim_base_build(text, len, base);
    free(text);
    return rc;
}

struct pair {
    size_t a, b;
    double score;
};

static int cmp_pair(const void *x, const void *y)
{
    const struct pair *p = x, *q = y;
    if (p->score != q->score)
        return p->score < q->score ? 1 : -1;
    return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b < q->b ? -1 : p->b > q->b);
}

/* Lines first..last (1-based) of text, at most FRAGMENT_LINES. */
static json_t *lines_json(const char *text, int first, int last)
{
    const char *s = text;
    for (int l = 1; l < first && s; l++)
        if ((s = strchr(s, '\n')))
            s++;
    if (!s)
        return json_string("");
    const char *e = s;
    int shown = 0;
    for (int l = first; l <= last && *e && shown < FRAGMENT_LINES; l++, shown++) {
        const char *nl = strchr(e, '\n');
        e = nl ? nl + 1 : e + strlen(e);
    }
    return json_stringn_nocheck(s, (size_t)(e - s));
}

static json_t *side(const struct entry *e, int first, int last)
{
    return json_pack("{s:i, s:i, s:o}", "from_line", first, "to_line", last, "text",
                     lines_json(e->source, first, last));
}

static json_t *pair_json(const struct entry *x, const struct entry *y, double score)
{
    struct sim_match *m = NULL;
    size_t n = 0;
    if (sim_compare(&x->doc, &y->doc, &m, &n) < 0)
        return NULL;
    json_t *frags = json_array();
    for (size_t i = 0; frags && i < n && i < FRAGMENT_MAX; i++)
        json_array_append_new(frags,
                              json_pack("{s:o, s:o}", "a", side(x, m[i].a_first, m[i].a_last), "b",
                                        side(y, m[i].b_first, m[i].b_last)));
    free(m);
    return json_pack("{s:[s,s], s:[I,I], s:f, s:i, s:i, s:o}", "users", x->user, y->user,
                     "submissions", (json_int_t)x->submission, (json_int_t)y->submission, "score",
                     round(score * 1000) / 1000, "fingerprints_a", (int)x->doc.n, "fingerprints_b",
                     (int)y->doc.n, "fragments", frags ? frags : json_null());
}

struct http_response *integrity_similarity(struct app *a, struct http_request *req,
                                           const struct caller *me)
{
    const char *slug = req->param;
    (void)me;
    struct set set = {0};
    const struct problem *p = NULL;
    struct sim_doc base = {0};
    struct pair *pairs = NULL;
    double min = MIN_DEFAULT;
    long limit = PAIRS_DEFAULT;
    const char *v;
    char *end;
    if ((v = http_query(req, "min"))) {
        min = strtod(v, &end);
        if (*end || end == v || !(min >= 0 && min <= 1))
            return http_error(400, "invalid_parameter", "min must be a number from 0 to 1");
    }
    if ((v = http_query(req, "limit"))) {
        limit = strtol(v, &end, 10);
        if (*end || end == v || limit < 1 || limit > PAIRS_MAX)
            return http_error(400, "invalid_parameter", "limit must be 1 to %d", PAIRS_MAX);
    }
    struct http_response *r = load(a, slug, &set, &p);
    if (r)
        goto out;
    if (base_of(p, &base) < 0) {
        r = internal("similarity", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < set.n; i++) {
        if (sim_doc_build(set.e[i].source, set.e[i].len, &set.e[i].doc) < 0) {
            r = internal("similarity", "out of memory");
            goto out;
        }
        sim_doc_exclude(&set.e[i].doc, &base);
    }
    size_t np = 0, cap = 0;
    for (size_t i = 0; i < set.n; i++)
        for (size_t k = i + 1; k < set.n; k++) {
            double sc = sim_compare(&set.e[i].doc, &set.e[k].doc, NULL, NULL);
            if (sc < 0) {
                r = internal("similarity", "out of memory");
                goto out;
            }
            if (sc <= 0 || sc < min)
                continue;
            if (np == cap) {
                cap = cap ? cap * 2 : 64;
                struct pair *q = realloc(pairs, cap * sizeof *q);
                if (!q) {
                    r = internal("similarity", "out of memory");
                    goto out;
                }
                pairs = q;
            }
            pairs[np++] = (struct pair){i, k, sc};
        }
    if (np)
        qsort(pairs, np, sizeof *pairs, cmp_pair);
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < np && i < (size_t)limit; i++)
        json_array_append_new(arr,
                              pair_json(&set.e[pairs[i].a], &set.e[pairs[i].b], pairs[i].score));
    r = http_json(200, json_pack("{s:s, s:i, s:f, s:{s:i, s:i}, s:o}", "problem", slug, "students",
                                 (int)set.n, "min", min, "parameters", "k", SIM_K, "window", SIM_W,
                                 "pairs", arr ? arr : json_null()));
out:
    free(pairs);
    sim_doc_free(&base);
    set_free(&set);
    return r;
}
