/*
 * drafts — server-side editor drafts (drafts.h).
 *
 * A draft is the student's own text: it is stored as sent (within the
 * source size limit) and never judged. Revisions make the last writer's
 * intent explicit: a save that names an older revision than the stored
 * one is refused with the stored draft, and the editor decides (it shows
 * the newer text and says so), instead of two machines overwriting each
 * other in turn. Saves are debounced by the editor and limited per user
 * on the server (draft_rl), so a runaway script cannot flood the
 * database.
 */
#include "server/drafts.h"

#include <stdio.h>
#include <string.h>

#include "judge/names.h"
#include "server/catalog.h"
#include "server/ratelimit.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"

/* NULL when the caller may keep a draft of slug, else the 4xx: only for a
 * problem they may see (docs/api.md, "Problem states"). */
static struct http_response *gate(struct app *a, const char *slug, bool instructor)
{
    if (!names_slug_valid(slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if (catalog_access(a->catalog, slug, instructor, clock_wall_ms()) == CATALOG_NOT_FOUND)
        return http_error(404, "not_found", "no problem '%s'", slug);
    return NULL;
}

static json_t *draft_json(const char *slug, const struct store_draft *d)
{
    return json_pack("{s:s, s:s%, s:I, s:o}", "problem", slug, "source", d->source, d->len,
                     "revision", (json_int_t)d->revision, "updated_at", views_time(d->updated_at));
}

struct http_response *drafts_get(struct app *a, struct http_request *req, const struct caller *me)
{
    const char *slug = req->param;
    int64_t user_id = me->u.id;
    bool instructor = me->instructor;
    struct store_draft d;
    struct http_response *r = gate(a, slug, instructor);
    if (r)
        return r;
    struct store *s = store_pool_get(a->pool);
    int rc = store_draft_get(s, user_id, slug, &d);
    if (rc < 0)
        r = request_internal("draft", s);
    else if (rc == STORE_NOT_FOUND)
        r = http_error(404, "not_found", "no draft of '%s' yet", slug);
    else {
        json_t *o = draft_json(slug, &d);
        r = o ? http_json(200, o) : NULL;
        store_draft_free(&d);
    }
    store_pool_put(a->pool, s);
    return r;
}

struct http_response *drafts_put(struct app *a, struct http_request *req, const struct caller *me)
{
    const char *slug = req->param;
    int64_t user_id = me->u.id;
    bool instructor = me->instructor;
    json_t *o = NULL;
    const char *source = NULL;
    size_t len = 0;
    json_int_t seen = 0;
    char key[32];
    struct store *s = NULL;
    struct http_response *r = gate(a, slug, instructor);
    if (r)
        return r;
    if ((r = request_body(req, &o, "{\"source\": string; \"revision\": optional integer}",
                          "{s:s%, s?I}", "source", &source, &len, "revision", &seen)))
        return r;
    if (len > (size_t)a->cfg->max_source_bytes) {
        r = http_error(413, "payload_too_large", "a draft is at most %lld bytes",
                       (long long)a->cfg->max_source_bytes);
        goto out;
    }
    if (seen < 0) {
        r = http_error(400, "invalid_request", "revision: the revision you last saw (1, 2, ...)");
        goto out;
    }
    snprintf(key, sizeof key, "d%lld", (long long)user_id);
    int wait = ratelimit_take(a->draft_rl, key, clock_wall_ms());
    if (wait) {
        r = request_retry_after(
            http_error(429, "rate_limited", "too many draft saves; retry in %d s", wait), wait);
        goto out;
    }
    s = store_pool_get(a->pool);
    int64_t now = clock_wall_ms(), revision = 0;
    int rc = store_draft_put(s, user_id, slug, source, len, (int64_t)seen, now, &revision);
    if (rc < 0) {
        r = request_internal("draft", s);
    } else if (rc == STORE_STALE) {
        /* Someone (another machine) saved since: send what is stored. */
        struct store_draft d;
        json_t *cur = NULL;
        if (store_draft_get(s, user_id, slug, &d) == 0) {
            cur = draft_json(slug, &d);
            store_draft_free(&d);
        }
        r = http_json(409,
                      json_pack("{s:{s:s, s:s}, s:o}", "error", "code", "draft_conflict", "message",
                                "this draft was saved elsewhere since you loaded it", "draft",
                                cur ? cur : json_null()));
    } else {
        r = http_json(200, json_pack("{s:s, s:I, s:o}", "problem", slug, "revision",
                                     (json_int_t)revision, "updated_at", views_time(now)));
    }
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

struct http_response *drafts_delete(struct app *a, struct http_request *req,
                                    const struct caller *me)
{
    const char *slug = req->param;
    int64_t user_id = me->u.id;
    bool instructor = me->instructor;
    struct http_response *r = gate(a, slug, instructor);
    if (r)
        return r;
    struct store *s = store_pool_get(a->pool);
    int rc = store_draft_delete(s, user_id, slug);
    r = rc < 0                  ? request_internal("draft", s)
        : rc == STORE_NOT_FOUND ? http_error(404, "not_found", "no draft of '%s'", slug)
                                : http_response_new(204, NULL, NULL, 0);
    store_pool_put(a->pool, s);
    return r;
}
