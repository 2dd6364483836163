/*
 * lti_outbox — grades found and delivered to LMSs (lti_outbox.h).
 *
 * One thread, one database connection. Each round: a reconcile pass when
 * the sync interval has passed (or a poke asked for one), then deliveries
 * while any is due (at most ROUND of them, so a long backlog does not
 * hold up the next pass), then a wait of TICK_MS or until poked.
 *
 * A delivery: its line item (the launch's own, the one found or created
 * before, else looked up by resource link and resourceId in the line-item
 * container, created when there is none), then the score POSTed to the
 * line item's /scores. Its outcome: delivered (2xx); tried again later
 * with a back-off of 1, 2, 4 ... s up to backoff_max_s, or the LMS's
 * Retry-After when longer (no answer, 408, 429, 5xx); failed with the
 * reason (any other answer, or the user no longer linked). The outbox's
 * sequence guard (server/lti_outbox_store.h) keeps a user's scores in
 * order across threads, processes and restarts; each score carries the
 * timestamp queued with it, so a delivery repeated after a sender died
 * between the LMS's answer and the record of it is the same score again,
 * which AGS platforms take as no change (AGS 2.0 §3.4.8).
 */
#include "server/lti_outbox.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <sodium.h>

#include "server/assignments.h"
#include "server/lti_ags.h"
#include "server/lti_outbox_store.h"
#include "util/clock.h"
#include "util/isotime.h"

#define TICK_MS 250
#define ROUND 50
#define T_LINEITEM "application/vnd.ims.lis.v2.lineitem+json"
#define T_CONTAINER "application/vnd.ims.lis.v2.lineitemcontainer+json"
#define T_SCORE "application/vnd.ims.lis.v1.score+json"

struct lti_outbox {
    struct lti_outbox_cfg cfg;
    struct store *s;
    struct lti_ags *ags;
    char holder[STORE_HOST_NAME_LEN];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop, poked, started;
};

/* ---- finding grade changes ---- */

/* A list of user ids. */
struct ids {
    int64_t *v;
    size_t n, cap;
};

static int add_id(void *arg, int64_t id)
{
    struct ids *l = arg;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        int64_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = id;
    return 0;
}

/* Grades of one link by user: (user, given, maximum) triples. */
struct grades {
    struct ids users;
    double *given, *max; /* parallel to users.v */
    size_t cap;
    double maximum; /* the link's, for add_grade */
};

static int add_graded(void *arg, int64_t user_id, double given, double maximum)
{
    struct grades *g = arg;
    if (g->users.n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        double *v = realloc(g->given, cap * sizeof *v),
               *w = v ? realloc(g->max, cap * sizeof *w) : NULL;
        if (v)
            g->given = v;
        if (!w)
            return -1;
        g->max = w;
        g->cap = cap;
    }
    g->given[g->users.n] = given;
    g->max[g->users.n] = maximum;
    return add_id(&g->users, user_id);
}

static int add_grade(void *arg, int64_t user_id, double score)
{
    return add_graded(arg, user_id, score, ((struct grades *)arg)->maximum);
}

static void grades_free(struct grades *g)
{
    free(g->users.v);
    free(g->given);
    free(g->max);
}

/* The index of user_id in g, or g->users.n. */
static size_t find(const struct grades *g, int64_t user_id)
{
    size_t i = 0;
    while (i < g->users.n && g->users.v[i] != user_id)
        i++;
    return i;
}

struct pass {
    struct store *s;
    int64_t now;
    int queued;
};

/* Queues the grade of every student of l's platform whose grade changed;
 * a student with nothing counted is passed NAN (0 if a grade was sent
 * before: a rejudge or a new due date can take a grade away). */
static int reconcile_link(void *arg, const struct lti_graded_link *l)
{
    struct pass *p = arg;
    struct ids students = {0}, busy = {0};
    struct grades g = {0}, sent = {0};
    int rc = -1;
    /* the link's strings are the list statement's: copy what is used
     * after other statements ran */
    int64_t link_id = l->id, platform_id = l->platform_id;
    char slug[80];
    bool assignment = !strcmp(l->kind, "assignment");
    snprintf(slug, sizeof slug, "%s", l->slug);
    if (assignment) {
        int r = assignments_totals(p->s, slug, &g.maximum, add_grade, &g);
        if (r == STORE_NOT_FOUND) { /* the assignment was deleted: nothing to grade */
            rc = 0;
            goto out;
        }
        if (r < 0)
            goto out;
    } else {
        g.maximum = 100;
        if (store_lti_problem_best(p->s, slug, add_grade, &g) < 0)
            goto out;
    }
    if (store_lti_platform_students(p->s, platform_id, add_id, &students) < 0 ||
        store_lti_link_last(p->s, link_id, add_graded, &sent) < 0 ||
        store_lti_in_flight(p->s, slug, assignment, add_id, &busy) < 0)
        goto out;
    for (size_t i = 0; g.maximum > 0 && i < students.n; i++) {
        size_t k = find(&g, students.v[i]), j = find(&sent, students.v[i]);
        bool judging = false;
        for (size_t b = 0; b < busy.n && !judging; b++)
            judging = busy.v[b] == students.v[i];
        if (judging)
            continue; /* a grade half rejudged is no grade: the next pass sends it */
        double given = k < g.users.n ? g.given[k] : NAN;
        if (j == sent.users.n
                ? isnan(given)
                : sent.given[j] == (isnan(given) ? 0 : given) && sent.max[j] == g.maximum)
            continue; /* unchanged: no write (store_lti_grade_put checks again) */
        struct lti_grade grade = {given, g.maximum, "Completed", "FullyGraded"};
        bool queued = false;
        if (store_lti_grade_put(p->s, link_id, students.v[i], &grade, p->now, &queued) < 0)
            goto out;
        p->queued += queued;
    }
    rc = 0;
out:
    free(students.v);
    free(busy.v);
    grades_free(&g);
    grades_free(&sent);
    return rc;
}

/* The graded links, copied out of the list statement so that each can run
 * statements of its own. */
struct links {
    struct lti_graded_link *v;
    size_t n, cap;
};

static char *copy(const char *t)
{
    return strdup(t ? t : "");
}

static int add_link(void *arg, const struct lti_graded_link *l)
{
    struct links *ls = arg;
    if (ls->n == ls->cap) {
        size_t cap = ls->cap ? 2 * ls->cap : 16;
        struct lti_graded_link *v = realloc(ls->v, cap * sizeof *v);
        if (!v)
            return -1;
        ls->v = v;
        ls->cap = cap;
    }
    struct lti_graded_link c = {l->id,
                                l->platform_id,
                                copy(l->kind),
                                copy(l->slug),
                                copy(l->lineitems_url),
                                copy(l->lineitem_url),
                                copy(l->resource_link_id),
                                copy(l->found_url)};
    ls->v[ls->n++] = c;
    return c.kind && c.slug && c.lineitems_url && c.lineitem_url && c.resource_link_id &&
                   c.found_url
               ? 0
               : -1;
}

static void links_free(struct links *ls)
{
    for (size_t i = 0; i < ls->n; i++) {
        free((char *)ls->v[i].kind);
        free((char *)ls->v[i].slug);
        free((char *)ls->v[i].lineitems_url);
        free((char *)ls->v[i].lineitem_url);
        free((char *)ls->v[i].resource_link_id);
        free((char *)ls->v[i].found_url);
    }
    free(ls->v);
}

int lti_outbox_reconcile(struct store *s, int64_t now, int *queued)
{
    struct links ls = {0};
    struct pass p = {s, now, 0};
    int rc = store_lti_graded_links(s, add_link, &ls);
    for (size_t i = 0; rc == 0 && i < ls.n; i++)
        rc = reconcile_link(&p, &ls.v[i]);
    links_free(&ls);
    *queued = p.queued;
    return rc;
}

/* ---- delivering ---- */

enum outcome { DELIVERED, AGAIN, FAILED };

/* What an LMS's answer (or its absence) means for the delivery. */
static enum outcome judge_reply(const struct lti_reply *r, int rc, const char *what, char *why,
                                size_t len)
{
    if (rc < 0 && r->status == 0) {
        snprintf(why, len, "%s: %s", what, r->err);
        return AGAIN;
    }
    if (rc < 0) { /* the token endpoint answered, but no token */
        snprintf(why, len, "%s", r->err);
        return r->status == 429 || r->status >= 500 ? AGAIN : FAILED;
    }
    if (r->status >= 200 && r->status < 300)
        return DELIVERED;
    snprintf(why, len, "%s: HTTP %ld", what, r->status);
    return r->status == 408 || r->status == 425 || r->status == 429 || r->status >= 500 ? AGAIN
                                                                                        : FAILED;
}

/* The "id" of the first line item of a container (or of one line item). */
static int lineitem_id(const struct lti_reply *r, char *out, size_t len)
{
    json_t *o = json_loadb(r->body, r->len, 0, NULL);
    json_t *li = json_is_array(o) ? json_array_get(o, 0) : o;
    const char *id = json_string_value(json_object_get(li, "id"));
    int rc = id && strlen(id) < len ? 0 : -1;
    if (rc == 0)
        snprintf(out, len, "%s", id);
    json_decref(o);
    return rc;
}

/* d's line item URL into url: the launch's, the one found before, or one
 * looked up or created now (and recorded). */
static enum outcome find_lineitem(struct lti_outbox *o, const struct lti_delivery *d,
                                  const struct lti_client *c, char *url, size_t len, char *why,
                                  size_t wlen)
{
    struct lti_reply r;
    char *e_rl = NULL, *e_slug = NULL, query[3 * LTI_URL_LEN];
    enum outcome out = FAILED;
    if (d->lineitem_url[0] || d->found_url[0]) {
        snprintf(url, len, "%s", d->lineitem_url[0] ? d->lineitem_url : d->found_url);
        return DELIVERED;
    }
    if (!d->lineitems_url[0]) {
        snprintf(why, wlen, "the resource link has no line items service");
        return FAILED;
    }
    CURL *esc = curl_easy_init();
    if (!esc || !(e_rl = curl_easy_escape(esc, d->resource_link_id, 0)) ||
        !(e_slug = curl_easy_escape(esc, d->slug, 0))) {
        snprintf(why, wlen, "out of memory");
        out = AGAIN;
        goto done;
    }
    snprintf(query, sizeof query, "%s%cresource_link_id=%s&resource_id=%s", d->lineitems_url,
             strchr(d->lineitems_url, '?') ? '&' : '?', e_rl, e_slug);
    int rc = lti_ags_call(o->ags, c, LTI_SCOPE_LINEITEM, "GET", query, T_CONTAINER, NULL, NULL, &r);
    if ((out = judge_reply(&r, rc, "line items", why, wlen)) == DELIVERED &&
        lineitem_id(&r, url, len) < 0) {
        lti_reply_free(&r);
        json_t *li = json_pack("{s:f, s:s, s:s, s:s}", "scoreMaximum", d->maximum, "label", d->slug,
                               "resourceId", d->slug, "resourceLinkId", d->resource_link_id);
        char *body = li ? json_dumps(li, JSON_COMPACT) : NULL;
        json_decref(li);
        if (!body) {
            snprintf(why, wlen, "out of memory");
            out = AGAIN;
            goto done;
        }
        rc = lti_ags_call(o->ags, c, LTI_SCOPE_LINEITEM, "POST", d->lineitems_url, T_LINEITEM,
                          T_LINEITEM, body, &r);
        free(body);
        if ((out = judge_reply(&r, rc, "line item creation", why, wlen)) == DELIVERED &&
            lineitem_id(&r, url, len) < 0) {
            snprintf(why, wlen, "line item creation: no id in the answer");
            out = FAILED;
        }
    }
    lti_reply_free(&r);
    if (out == DELIVERED &&
        store_lti_lineitem_set(o->s, d->link_id, url, d->maximum, clock_wall_ms()) < 0)
        fprintf(stderr, "attnjudge: lti outbox: %s\n", store_error(o->s));
done:
    curl_free(e_rl);
    curl_free(e_slug);
    if (esc)
        curl_easy_cleanup(esc);
    return out;
}

/* The scores endpoint of a line item: its path + "/scores", the query kept. */
static int scores_url(const char *lineitem, char *out, size_t len)
{
    const char *q = strchr(lineitem, '?');
    size_t n = q ? (size_t)(q - lineitem) : strlen(lineitem);
    while (n > 0 && lineitem[n - 1] == '/')
        n--;
    int w = snprintf(out, len, "%.*s/scores%s", (int)n, lineitem, q ? q : "");
    return w > 0 && (size_t)w < len ? 0 : -1;
}

static enum outcome deliver(struct lti_outbox *o, const struct lti_delivery *d, long *retry_s,
                            char *why, size_t wlen)
{
    struct lti_client c = {d->platform_id, d->client_id, d->token_url};
    char lineitem[LTI_URL_LEN], url[LTI_URL_LEN + 16], ts[ISOTIME_LEN];
    struct lti_reply r;
    *retry_s = 0;
    if (!d->sub[0]) {
        snprintf(why, wlen, "the student is not linked to the platform any more");
        return FAILED;
    }
    enum outcome out = find_lineitem(o, d, &c, lineitem, sizeof lineitem, why, wlen);
    if (out != DELIVERED)
        return out;
    if (scores_url(lineitem, url, sizeof url) < 0 || isotime_format(d->timestamp, ts) < 0) {
        snprintf(why, wlen, "the line item's URL is too long");
        return FAILED;
    }
    json_t *score = json_pack("{s:s, s:f, s:f, s:s, s:s, s:s}", "userId", d->sub, "scoreGiven",
                              d->given, "scoreMaximum", d->maximum, "activityProgress", d->activity,
                              "gradingProgress", d->grading, "timestamp", ts);
    char *body = score ? json_dumps(score, JSON_COMPACT) : NULL;
    json_decref(score);
    if (!body) {
        snprintf(why, wlen, "out of memory");
        return AGAIN;
    }
    int rc = lti_ags_call(o->ags, &c, LTI_SCOPE_SCORE, "POST", url, "application/json", T_SCORE,
                          body, &r);
    free(body);
    out = judge_reply(&r, rc, "score", why, wlen);
    *retry_s = r.retry_after_s;
    lti_reply_free(&r);
    return out;
}

/* When to try a delivery again after its attempts-th failed try (ms). */
static int64_t backoff_ms(const struct lti_outbox *o, int attempts, long retry_after_s)
{
    int64_t s = 1;
    for (int i = 1; i < attempts && s < o->cfg.backoff_max_s; i++)
        s *= 2;
    if (s > o->cfg.backoff_max_s)
        s = o->cfg.backoff_max_s;
    if (retry_after_s > s)
        s = retry_after_s;
    return s * 1000;
}

/* Claims and delivers one due score: 1 (one done), 0 (none due) or -1. */
static int deliver_next(struct lti_outbox *o)
{
    struct lti_delivery d;
    char why[320] = "";
    long retry_s = 0;
    int rc = store_lti_outbox_claim(o->s, o->holder, clock_wall_ms(), o->cfg.lease_ms, &d);
    if (rc == STORE_NOT_FOUND)
        return 0;
    if (rc < 0)
        return -1;
    enum outcome out = deliver(o, &d, &retry_s, why, sizeof why);
    int64_t now = clock_wall_ms();
    const char *state = out == DELIVERED ? "delivered" : out == AGAIN ? "pending" : "failed";
    int64_t next = out == AGAIN ? now + backoff_ms(o, d.attempts, retry_s) : now;
    if (out != DELIVERED)
        fprintf(stderr, "attnjudge: lti outbox: score %lld (link %lld, try %d): %s%s\n",
                (long long)d.id, (long long)d.link_id, d.attempts, why,
                out == AGAIN ? "; will try again" : "; failed");
    rc = store_lti_outbox_end(o->s, d.id, o->holder, state, out == DELIVERED ? NULL : why, next,
                              now);
    if (rc == STORE_STALE)
        fprintf(stderr, "attnjudge: lti outbox: score %lld: the claim ran out meanwhile\n",
                (long long)d.id);
    return rc < 0 ? -1 : 1;
}

/* ---- the thread ---- */

static void *run(void *arg)
{
    struct lti_outbox *o = arg;
    int64_t next_pass = 0;
    for (;;) {
        pthread_mutex_lock(&o->lock);
        bool stop = o->stop, poked = o->poked;
        o->poked = false;
        pthread_mutex_unlock(&o->lock);
        if (stop)
            break;
        int64_t now = clock_wall_ms();
        if (poked || now >= next_pass) {
            int queued = 0;
            if (lti_outbox_reconcile(o->s, now, &queued) < 0)
                fprintf(stderr, "attnjudge: lti outbox: grades: %s\n", store_error(o->s));
            next_pass = now + o->cfg.sync_ms;
        }
        int n = 0, r = 1;
        while (n < ROUND && (r = deliver_next(o)) > 0)
            n++;
        if (r < 0)
            fprintf(stderr, "attnjudge: lti outbox: %s\n", store_error(o->s));
        if (n == ROUND)
            continue;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&o->lock);
        if (!o->stop && !o->poked)
            pthread_cond_timedwait(&o->wake, &o->lock, &until);
        pthread_mutex_unlock(&o->lock);
    }
    return NULL;
}

struct lti_outbox *lti_outbox_start(const char *db_url, bool sync_full, const struct lti_keys *keys,
                                    const struct lti_outbox_cfg *cfg, char *err, size_t errlen)
{
    struct lti_outbox *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    o->cfg = *cfg;
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->wake, NULL);
    unsigned char tag[4];
    randombytes_buf(tag, sizeof tag);
    char host[64] = "localhost";
    if (gethostname(host, sizeof host - 1) < 0)
        snprintf(host, sizeof host, "localhost");
    snprintf(o->holder, sizeof o->holder, "%s/%d/%02x%02x%02x%02x", host, (int)getpid(), tag[0],
             tag[1], tag[2], tag[3]);
    if (!(o->s = store_open(db_url, sync_full, err, errlen)))
        goto fail;
    if (!(o->ags = lti_ags_new(keys))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* SQLite has one front end: a delivery still marked as sending was
     * left by a previous run of this one */
    if (cfg->sqlite && store_lti_outbox_release(o->s) < 0) {
        snprintf(err, errlen, "lti outbox: %s", store_error(o->s));
        goto fail;
    }
    int e = pthread_create(&o->thread, NULL, run, o);
    if (e) {
        snprintf(err, errlen, "lti outbox: pthread_create: %s", strerror(e));
        goto fail;
    }
    o->started = true;
    return o;
fail:
    lti_outbox_stop(o);
    return NULL;
}

void lti_outbox_stop(struct lti_outbox *o)
{
    if (!o)
        return;
    if (o->started) {
        pthread_mutex_lock(&o->lock);
        o->stop = true;
        pthread_cond_signal(&o->wake);
        pthread_mutex_unlock(&o->lock);
        pthread_join(o->thread, NULL);
    }
    lti_ags_free(o->ags);
    if (o->s)
        store_close(o->s);
    pthread_cond_destroy(&o->wake);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

struct lti_ags *lti_outbox_ags(struct lti_outbox *o)
{
    return o->ags;
}

void lti_outbox_poke(struct lti_outbox *o)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->lock);
    o->poked = true;
    pthread_cond_signal(&o->wake);
    pthread_mutex_unlock(&o->lock);
}
