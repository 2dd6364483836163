/*
 * lti_form — urlencoded fields in and out, and the self-posting page
 * (lti_form.h). Decoding and encoding are curl_easy_unescape and
 * curl_easy_escape; the one inline script's CSP hash is libsodium's
 * SHA-256 in base64.
 */
#include "server/lti_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <sodium.h>

/* The page's one script: submit the form as soon as it is parsed. */
static const char autopost_js[] = "document.forms[0].submit();";
/* The cookie check's: go on when the probe cookie came back, else show
 * the way out of the frame. */
static const char probe_js[] = "if (document.cookie.indexOf('" LTI_FORM_PROBE "') >= 0)"
                               " location.replace(document.getElementById('go').href);"
                               " else document.getElementById('blocked').hidden = false;";

/* The CSP source of script: 'sha256-<base64>'. */
static void script_source(const char *script, char *out, size_t len)
{
    unsigned char h[crypto_hash_sha256_BYTES];
    char b64[sodium_base64_ENCODED_LEN(sizeof h, sodium_base64_VARIANT_ORIGINAL)];
    crypto_hash_sha256(h, (const unsigned char *)script, strlen(script));
    sodium_bin2base64(b64, sizeof b64, h, sizeof h, sodium_base64_VARIANT_ORIGINAL);
    snprintf(out, len, "'sha256-%s'", b64);
}

/* s[0..n) with '+' as a space, percent-decoded; NULL as lti_form_get. */
static char *decode(const char *s, size_t n)
{
    char *plus = malloc(n + 1), *out = NULL;
    int len = 0;
    if (!plus || n > 1024 * 1024)
        goto out;
    for (size_t i = 0; i < n; i++)
        plus[i] = s[i] == '+' ? ' ' : s[i];
    plus[n] = '\0';
    char *d = curl_easy_unescape(NULL, plus, (int)n, &len);
    if (d && memchr(d, '\0', (size_t)len) == NULL)
        out = strdup(d);
    curl_free(d);
out:
    free(plus);
    return out;
}

char *lti_form_get(const char *body, size_t len, const char *name)
{
    const char *p = body, *end = body + len;
    size_t nlen = strlen(name);
    while (body && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        const char *kend = eq ? eq : stop;
        char *key = decode(p, (size_t)(kend - p));
        bool hit = key && strlen(key) == nlen && !memcmp(key, name, nlen);
        free(key);
        if (hit)
            return eq ? decode(eq + 1, (size_t)(stop - eq - 1)) : strdup("");
        p = stop + 1;
    }
    return NULL;
}

int lti_form_append(char **url, const char *name, const char *value)
{
    char *v = curl_easy_escape(NULL, value, 0), *out = NULL;
    if (!v)
        return -1;
    int rc = asprintf(&out, "%s%c%s=%s", *url, strchr(*url, '?') ? '&' : '?', name, v);
    curl_free(v);
    if (rc < 0)
        return -1;
    free(*url);
    *url = out;
    return 0;
}

char *lti_form_html(const char *s)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += strchr("&<>\"'", *p) ? 6 : 1;
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p; p++) {
        const char *e = *p == '&'    ? "&amp;"
                        : *p == '<'  ? "&lt;"
                        : *p == '>'  ? "&gt;"
                        : *p == '"'  ? "&quot;"
                        : *p == '\'' ? "&#39;"
                                     : NULL;
        if (e) {
            memcpy(o, e, strlen(e));
            o += strlen(e);
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* Appends printf's output to the malloc'd *buf; -1 when out of memory
 * (*buf freed and NULL). */
static int add(char **buf, const char *a, const char *b, const char *c)
{
    char *out = NULL;
    if (!*buf || asprintf(&out, "%s%s%s%s", *buf, a, b ? b : "", c ? c : "") < 0) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    free(*buf);
    *buf = out;
    return 0;
}

char *lti_form_autopost(const char *title, const char *action, const char *const *fields, size_t n,
                        char *script_hash, size_t hash_len)
{
    script_source(autopost_js, script_hash, hash_len);
    char *t = lti_form_html(title), *a = lti_form_html(action), *page = strdup("");
    if (!t || !a)
        goto fail;
    if (add(&page, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", t,
            "</title></head>\n<body>\n") < 0 ||
        add(&page, "<form method=\"post\" action=\"", a, "\">\n") < 0)
        goto fail;
    for (size_t i = 0; i + 1 < 2 * n; i += 2) {
        char *k = lti_form_html(fields[i]), *v = lti_form_html(fields[i + 1]);
        int rc = k && v ? add(&page, "<input type=\"hidden\" name=\"", k, "\" value=\"") : -1;
        if (rc == 0)
            rc = add(&page, v, "\">\n", NULL);
        free(k);
        free(v);
        if (rc < 0)
            goto fail;
    }
    if (add(&page, "<p>", t, "</p>\n<button type=\"submit\">Continue</button>\n</form>\n") < 0 ||
        add(&page, "<script>", autopost_js, "</script>\n</body></html>\n") < 0)
        goto fail;
    free(t);
    free(a);
    return page;
fail:
    free(t);
    free(a);
    free(page);
    return NULL;
}

char *lti_form_cookie_check(const char *auth_url, const char *login_url, char *script_hash,
                            size_t hash_len)
{
    script_source(probe_js, script_hash, hash_len);
    char *go = lti_form_html(auth_url), *out = lti_form_html(login_url), *page = strdup("");
    if (!go || !out)
        goto fail;
    if (add(&page,
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>attnjudge</title></head>\n<body>\n<p><a id=\"go\" href=\"",
            go, "\">Continue to attnjudge</a></p>\n") < 0 ||
        add(&page,
            "<p id=\"blocked\" hidden>This browser keeps attnjudge from signing you in inside "
            "the course page (it blocks the cookies of other sites in frames). <a id=\"window\" "
            "target=\"_blank\" rel=\"noopener\" href=\"",
            out, "\">Open attnjudge in a new window</a></p>\n") < 0 ||
        add(&page, "<script>", probe_js, "</script>\n</body></html>\n") < 0)
        goto fail;
    free(go);
    free(out);
    return page;
fail:
    free(go);
    free(out);
    free(page);
    return NULL;
}
