/*
 * lti_roster — an NRPS roster sync (lti_roster.h).
 *
 * The membership container is read page by page (its Link rel="next",
 * NRPS 2.0 §2.4.1, at most MAX_PAGES) with a token of the platform for
 * the contextmembership.readonly scope (lti_ags.h), then applied member
 * by member: an account is found by (issuer, user_id), the key a launch
 * links by, so a student who arrives by roster and later by launch is one
 * account. A new one gets a username from the e-mail's local part (else
 * the name, else "lti"), made unique with a number, and a password hash
 * no password matches: the student signs in by launch only. Instructors
 * and other roles are not created here: a launch with their role does
 * that (docs/lti.md).
 */
#include "server/lti_roster.h"

#include <string.h>

#include "server/classfile.h"
#include "server/lti_ags.h"
#include "server/lti_outbox.h"
#include "server/lti_store.h"
#include "server/request.h"
#include "util/clock.h"

#define MAX_PAGES 100
#define T_MEMBERS "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
#define NO_PASSWORD "!lti" /* not a crypto_pwhash_str string: nothing verifies against it */

struct sync {
    struct store *s;
    const struct lti_platform *p;
    json_t *created, *updated;
    int members, inactive, not_learners;
};

static bool learner(json_t *roles)
{
    size_t i;
    json_t *r;
    json_array_foreach(roles, i, r)
    {
        const char *v = json_string_value(r);
        size_t n = v ? strlen(v) : 0;
        if (v && (!strcmp(v, "Learner") || (n > 8 && !strcmp(v + n - 8, "#Learner"))))
            return true;
    }
    return false;
}

/* A name or id the LMS gave, if acceptable as a display name or student
 * id (classfile_name_problem), else NULL. */
static const char *usable(const char *v, size_t max)
{
    char why[160];
    return v && *v && !classfile_name_problem(v, max, why, sizeof why) ? v : NULL;
}

/* The username base: the e-mail's local part, else the name, reduced to
 * the username alphabet, starting with a letter or digit; else "lti". */
static void username_base(const char *email, const char *name, char *out, size_t len)
{
    const char *from = email && *email ? email : name ? name : "";
    const char *end = email && *email && strrchr(email, '@') ? strrchr(email, '@') : NULL;
    size_t k = 0;
    for (const char *c = from; *c && c != end && k + 1 < len && k < AUTH_USERNAME_MAX - 4; c++) {
        char ch = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c == ' ' ? '.' : *c;
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (alnum || (k > 0 && (ch == '.' || ch == '_' || ch == '-')))
            out[k++] = ch;
    }
    out[k] = '\0';
    if (!k || !auth_username_valid(out) || auth_username_reserved(out))
        snprintf(out, len, "lti");
}

/* A new account for member m (sub, its names): 0, or -1. */
static int create(struct sync *y, const char *sub, const char *shown, const char *email)
{
    char base[AUTH_USERNAME_MAX + 1], name[AUTH_USERNAME_MAX + 8];
    username_base(email, shown, base, sizeof base);
    for (int k = 1; k < 1000; k++) {
        if (k == 1)
            snprintf(name, sizeof name, "%s", base);
        else
            snprintf(name, sizeof name, "%s%d", base, k);
        int64_t id;
        int rc = lti_store_user_create(y->s, y->p->issuer, sub, name, NO_PASSWORD, "student", shown,
                                       email, clock_wall_ms(), &id);
        if (rc == 0)
            return json_array_append_new(y->created, json_string(name));
        if (rc != STORE_EXISTS)
            return -1;
        /* the username is taken, or (issuer, sub) was linked meanwhile */
        struct store_user u;
        if (lti_store_user_find(y->s, y->p->issuer, sub, &u) == 0)
            return json_array_append_new(y->updated, json_string(u.username));
    }
    return -1;
}

static int apply(struct sync *y, json_t *m)
{
    const char *sub = json_string_value(json_object_get(m, "user_id"));
    const char *status = json_string_value(json_object_get(m, "status"));
    y->members++;
    if (!sub || !*sub || strlen(sub) >= LTI_ID_LEN)
        return 0;
    if (status && strcmp(status, "Active")) {
        y->inactive++;
        return 0;
    }
    if (!learner(json_object_get(m, "roles"))) {
        y->not_learners++;
        return 0;
    }
    const char *shown =
        usable(json_string_value(json_object_get(m, "name")), CLASSFILE_DISPLAY_NAME_MAX);
    const char *email =
        usable(json_string_value(json_object_get(m, "email")), CLASSFILE_STUDENT_ID_MAX);
    struct store_user u;
    int rc = lti_store_user_find(y->s, y->p->issuer, sub, &u);
    if (rc == STORE_NOT_FOUND)
        return create(y, sub, shown, email);
    if (rc < 0 || lti_store_user_update(y->s, u.id, NULL, shown, email) < 0)
        return -1;
    return json_array_append_new(y->updated, json_string(u.username));
}

struct http_response *lti_roster_sync(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    int64_t id;
    struct lti_link l;
    struct lti_platform p;
    struct lti_reply r = {0};
    char url[LTI_URL_LEN];
    (void)me;
    if (!request_id(req->param, &id))
        return http_error(400, "invalid_id", "not a link id");
    struct http_response *resp = request_no_fields(req);
    if (resp)
        return resp;
    struct store *s = store_pool_get(a->pool);
    struct sync y = {s, &p, json_array(), json_array(), 0, 0, 0};
    int rc = lti_store_link_get(s, id, &l);
    if (rc == STORE_NOT_FOUND) {
        resp = http_error(404, "not_found", "no resource link %lld", (long long)id);
        goto out;
    }
    if (rc < 0 || (rc = lti_store_platform_get(s, l.platform_id, &p)) != 0 || !y.created ||
        !y.updated) {
        resp = request_internal("roster", s);
        goto out;
    }
    if (!l.nrps_url[0] || !a->outbox) {
        resp = http_error(409, "no_roster_service",
                          "the LMS named no Names and Roles service for this link");
        goto out;
    }
    struct lti_client c = {p.id, p.client_id, p.token_url};
    snprintf(url, sizeof url, "%s", l.nrps_url);
    for (int page = 0; url[0] && page < MAX_PAGES; page++) {
        rc = lti_ags_call(lti_outbox_ags(a->outbox), &c, LTI_SCOPE_NRPS, "GET", url, T_MEMBERS,
                          NULL, NULL, &r);
        json_t *o = rc == 0 && r.status == 200 ? json_loadb(r.body, r.len, 0, NULL) : NULL;
        json_t *members = json_object_get(o, "members");
        if (!json_is_array(members)) {
            fprintf(stderr, "attnjudge: roster of link %lld: %s%s\n", (long long)id,
                    rc < 0 ? r.err : "the LMS answered ",
                    rc < 0            ? ""
                    : r.status == 200 ? "no members"
                                      : "an error status");
            resp = http_error(502, "lms_error", "the LMS's roster service %s%s",
                              rc < 0 ? "could not be asked: " : "answered ",
                              rc < 0            ? r.err
                              : r.status == 200 ? "no member list"
                                                : "an error");
            json_decref(o);
            goto out;
        }
        for (size_t i = 0; i < json_array_size(members); i++)
            if (apply(&y, json_array_get(members, i)) < 0) {
                json_decref(o);
                resp = request_internal("roster", s);
                goto out;
            }
        json_decref(o);
        snprintf(url, sizeof url, "%s", r.next);
        lti_reply_free(&r);
    }
    resp = http_json(200, json_pack("{s:i, s:O, s:O, s:{s:i, s:i}}", "members", y.members,
                                    "created", y.created, "updated", y.updated, "skipped",
                                    "inactive", y.inactive, "not_learners", y.not_learners));
out:
    lti_reply_free(&r);
    store_pool_put(a->pool, s);
    json_decref(y.created);
    json_decref(y.updated);
    return resp;
}

static bool has_scope(const char *scopes, const char *scope)
{
    size_t n = strlen(scope);
    for (const char *p = strstr(scopes, scope); p; p = strstr(p + 1, scope))
        if ((p == scopes || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

static int add_link(void *arg, const struct lti_link *l)
{
    bool graded =
        has_scope(l->ags_scopes, LTI_SCOPE_SCORE) &&
        (l->ags_lineitem_url[0] || (!strcmp(l->kind, "assignment") && l->ags_lineitems_url[0]));
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:b, s:b}", "id", (json_int_t)l->id, "context",
                          l->context_id, "resource_link", l->resource_link_id, "kind", l->kind,
                          "slug", l->slug, "graded", graded, "roster", l->nrps_url[0] != '\0');
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

struct http_response *lti_links_list(struct app *a, struct http_request *req,
                                     const struct caller *me)
{
    (void)req;
    (void)me;
    json_t *arr = json_array();
    struct store *s = store_pool_get(a->pool);
    struct http_response *r = !arr || lti_store_links(s, NULL, NULL, add_link, arr) < 0
                                  ? request_internal("lti links", s)
                                  : http_json(200, json_pack("{s:O}", "links", arr));
    store_pool_put(a->pool, s);
    json_decref(arr);
    return r;
}
