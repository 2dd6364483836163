/*
 * lti_deeplink — the deep-linking picker and response (lti_deeplink.h).
 *
 * The picker is a plain server-rendered page (forms, no script), so that
 * it works in any platform's frame. The response page posts the signed
 * JWT to the platform by itself through one inline script allowed by its
 * hash in the page's CSP, and offers a button where scripts do not run.
 *
 * What is linked: an assignment is graded (its content item carries a
 * lineItem with resourceId = the slug and scoreMaximum = 100 per problem,
 * the judge's scale); a problem is practice and carries none. The item
 * names its target by the custom parameter assignment= or problem=, which
 * the launch reads (lti.c).
 */
#include "server/lti_deeplink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "judge/names.h"
#include "server/catalog.h"
#include "server/lti_form.h"
#include "server/lti_keys.h"
#include "server/lti_store.h"
#include "server/request.h"
#include "util/clock.h"

#define B64URL sodium_base64_VARIANT_URLSAFE_NO_PADDING

char *lti_picker_context(const struct lti *l, int64_t user_id, int64_t platform_id,
                         const struct lti_claims *c)
{
    json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:s*, s:I}", "u", (json_int_t)user_id, "p",
                          (json_int_t)platform_id, "d", c->deployment_id, "r", c->dl_return_url,
                          "x", c->dl_data, "e", (json_int_t)(clock_wall_ms() + LTI_PICKER_TTL_MS));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL, *out = NULL;
    json_decref(o);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256(mac, (const unsigned char *)text, n, l->picker_key);
    size_t b1 = sodium_base64_ENCODED_LEN(n, B64URL),
           b2 = sodium_base64_ENCODED_LEN(sizeof mac, B64URL);
    if ((out = malloc(b1 + b2 + 1))) {
        sodium_bin2base64(out, b1, (const unsigned char *)text, n, B64URL);
        size_t k = strlen(out);
        out[k] = '.';
        sodium_bin2base64(out + k + 1, b2, mac, sizeof mac, B64URL);
    }
    free(text);
    return out;
}

struct picker_ctx {
    json_t *o;
    int64_t user_id, platform_id;
    const char *deployment_id, *return_url, *data; /* borrowed from o */
};

/* ctx checked (MAC, expiry) and read; 0 or -1. */
static int context_read(const struct lti *l, const char *ctx, struct picker_ctx *out)
{
    const char *dot = ctx ? strchr(ctx, '.') : NULL;
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    size_t n = 0, mlen = 0;
    memset(out, 0, sizeof *out);
    if (!dot || strlen(ctx) > 8192)
        return -1;
    size_t tlen = (size_t)(dot - ctx);
    char *text = malloc(tlen + 1);
    if (!text)
        return -1;
    if (sodium_base642bin((unsigned char *)text, tlen, ctx, tlen, NULL, &n, NULL, B64URL) != 0 ||
        sodium_base642bin(mac, sizeof mac, dot + 1, strlen(dot + 1), NULL, &mlen, NULL, B64URL) !=
            0 ||
        mlen != sizeof mac ||
        crypto_auth_hmacsha256_verify(mac, (const unsigned char *)text, n, l->picker_key) != 0) {
        free(text);
        return -1;
    }
    json_int_t u = 0, p = 0, e = 0;
    out->o = json_loadb(text, n, 0, NULL);
    free(text);
    if (!out->o ||
        json_unpack(out->o, "{s:I, s:I, s:s, s:s, s?s, s:I}", "u", &u, "p", &p, "d",
                    &out->deployment_id, "r", &out->return_url, "x", &out->data, "e", &e) < 0 ||
        e < clock_wall_ms()) {
        json_decref(out->o);
        out->o = NULL;
        return -1;
    }
    out->user_id = u;
    out->platform_id = p;
    return 0;
}

static struct http_response *bad_context(void)
{
    return http_error(403, "lti_bad_context",
                      "this page's deep-linking context is invalid or has expired: add the tool "
                      "from the course again");
}

/* An HTML response (body taken) with the LTI page CSP. */
static struct http_response *html(struct app *a, char *body, const char *script_hash)
{
    if (!body)
        return NULL;
    struct http_response *r =
        http_response_new(200, "text/html; charset=utf-8", body, strlen(body));
    if (r)
        r->csp = lti_page_csp(a, script_hash);
    return r;
}

/* Appends text to the malloc'd *page; -1 when out of memory (freed). */
static int put(char **page, const char *text)
{
    char *out = NULL;
    if (!*page || asprintf(&out, "%s%s", *page, text) < 0) {
        free(*page);
        *page = NULL;
        return -1;
    }
    free(*page);
    *page = out;
    return 0;
}

/* One form: a button that links kind/slug, titled title. */
static int put_choice(char **page, const char *ctx, const char *kind, const char *slug,
                      const char *title)
{
    char *t = lti_form_html(title), *s = lti_form_html(slug), *line = NULL;
    int rc = -1;
    if (t && s &&
        asprintf(
            &line,
            "<li><form method=\"post\" action=\"/lti/deep-link\">"
            "<input type=\"hidden\" name=\"ctx\" value=\"%s\">"
            "<input type=\"hidden\" name=\"kind\" value=\"%s\">"
            "<input type=\"hidden\" name=\"slug\" value=\"%s\">"
            "<button type=\"submit\" data-slug=\"%s\">%s</button> <code>%s</code></form></li>\n",
            ctx, kind, s, s, t, s) >= 0)
        rc = put(page, line);
    free(line);
    free(t);
    free(s);
    return rc;
}

struct choices {
    char **page;
    const char *ctx;
};

static int assignment_choice(void *arg, const struct store_assignment *as)
{
    struct choices *c = arg;
    return put_choice(c->page, c->ctx, "assignment", as->slug, as->title) < 0 ? -1 : 0;
}

struct http_response *lti_picker(struct app *a, struct http_request *req, const struct caller *me)
{
    struct picker_ctx pc;
    const char *ctx = http_query(req, "ctx");
    (void)me;
    if (!a->lti || context_read(a->lti, ctx, &pc) < 0)
        return bad_context();
    json_decref(pc.o);
    char *page = strdup("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                        "<title>Add attnjudge content</title></head>\n<body>\n"
                        "<h1>Add attnjudge content</h1>\n<h2>Assignments (graded)</h2>\n<ul>\n");
    struct choices c = {&page, ctx};
    struct store *s = store_pool_get(a->pool);
    int rc = store_assignment_list(s, assignment_choice, &c);
    if (rc < 0 && page) {
        struct http_response *r = request_internal("lti picker", s);
        store_pool_put(a->pool, s);
        free(page);
        return r;
    }
    store_pool_put(a->pool, s);
    if (put(&page, "</ul>\n<h2>Problems (practice, not graded)</h2>\n<ul>\n") < 0)
        return NULL;
    size_t len = 0;
    char *listing = catalog_list_json(a->catalog, true, clock_wall_ms(), &len);
    json_t *doc = listing ? json_loadb(listing, len, 0, NULL) : NULL, *p;
    free(listing);
    size_t i;
    json_array_foreach(json_object_get(doc, "problems"), i, p)
    {
        const char *slug = json_string_value(json_object_get(p, "slug"));
        const char *title = json_string_value(json_object_get(p, "title"));
        if (slug && put_choice(&page, ctx, "problem", slug, title ? title : slug) < 0)
            break;
    }
    json_decref(doc);
    if (put(&page, "</ul>\n</body></html>\n") < 0)
        return NULL;
    return html(a, page, NULL);
}

/* The LtiDeepLinkingResponse's claims for kind/slug titled title (n
 * problems when an assignment). */
static json_t *response_claims(const struct app *a, const struct lti_platform *p,
                               const struct picker_ctx *pc, const char *kind, const char *slug,
                               const char *title, size_t n)
{
    char url[320], nonce[AUTH_TOKEN_HEX], unused[AUTH_TOKEN_HEX];
    int64_t now = clock_wall_ms() / 1000;
    if (auth_new_token(nonce, unused) < 0)
        return NULL;
    snprintf(url, sizeof url, "%s/lti/launch", a->cfg->public_url);
    json_t *item = json_pack("{s:s, s:s, s:s, s:{s:s}}", "type", "ltiResourceLink", "title", title,
                             "url", url, "custom", kind, slug);
    if (item && !strcmp(kind, "assignment"))
        json_object_set_new(item, "lineItem",
                            json_pack("{s:f, s:s, s:s}", "scoreMaximum", 100.0 * (double)n, "label",
                                      title, "resourceId", slug));
    json_t *claims = json_pack(
        "{s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:[o]}", "iss", p->client_id, "aud", p->issuer,
        "iat", (json_int_t)now, "exp", (json_int_t)(now + 300), "nonce", nonce,
        "https://purl.imsglobal.org/spec/lti/claim/message_type", "LtiDeepLinkingResponse",
        "https://purl.imsglobal.org/spec/lti/claim/version", "1.3.0",
        "https://purl.imsglobal.org/spec/lti/claim/deployment_id", pc->deployment_id,
        "https://purl.imsglobal.org/spec/lti-dl/claim/content_items", item);
    if (claims && pc->data)
        json_object_set_new(claims, "https://purl.imsglobal.org/spec/lti-dl/claim/data",
                            json_string(pc->data));
    return claims;
}

static int count_problem(void *arg, const char *slug)
{
    (void)slug;
    (*(size_t *)arg)++;
    return 0;
}

struct http_response *lti_pick(struct app *a, struct http_request *req, const struct caller *me)
{
    struct picker_ctx pc = {0};
    struct http_response *r = NULL;
    struct store *s = NULL;
    struct lti_platform p;
    char title[256], *jwt = NULL, *ctx = NULL, *kind = NULL, *slug = NULL;
    json_t *claims = NULL;
    size_t n = 0;
    (void)me;
    ctx = lti_form_get(req->body, req->body_len, "ctx");
    kind = lti_form_get(req->body, req->body_len, "kind");
    slug = lti_form_get(req->body, req->body_len, "slug");
    if (!a->lti || context_read(a->lti, ctx, &pc) < 0) {
        r = bad_context();
        goto out;
    }
    if (!kind || !slug || (strcmp(kind, "problem") && strcmp(kind, "assignment")) ||
        !names_slug_valid(slug)) {
        r = http_error(400, "invalid_request", "pick an assignment or a problem");
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = lti_store_platform_get(s, pc.platform_id, &p);
    if (rc == 0 && !strcmp(kind, "assignment")) {
        struct store_assignment as;
        rc = store_assignment_get(s, slug, &as, count_problem, &n);
        snprintf(title, sizeof title, "%s", as.title);
    } else if (rc == 0) {
        rc = catalog_access(a->catalog, slug, true, clock_wall_ms()) == 0 ? 0 : STORE_NOT_FOUND;
        snprintf(title, sizeof title, "%s", slug);
    }
    if (rc < 0) {
        r = request_internal("lti pick", s);
        goto out;
    }
    if (rc != 0) {
        r = http_error(404, "not_found", "no such %s (or the platform was removed)", kind);
        goto out;
    }
    if (!(claims = response_claims(a, &p, &pc, kind, slug, title, n)) ||
        !(jwt = lti_keys_sign(a->lti->keys, claims)))
        goto out;
    const char *fields[] = {"JWT", jwt};
    char hash[128];
    r = html(a,
             lti_form_autopost("Adding the content to the course…", pc.return_url, fields, 1, hash,
                               sizeof hash),
             hash);
out:
    store_pool_put(a->pool, s);
    json_decref(pc.o);
    json_decref(claims);
    free(jwt);
    free(ctx);
    free(kind);
    free(slug);
    return r;
}
