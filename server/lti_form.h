/*
 * lti_form — the form encodings LTI's browser hops use: reading an
 * application/x-www-form-urlencoded body or query (the platform's POSTs to
 * /lti/login and /lti/launch), building a query string (the redirect to
 * the platform), and the HTML page that posts a form onward (the deep
 * linking response). Percent-encoding is libcurl's.
 */
#ifndef ATTNJUDGE_SERVER_LTI_FORM_H
#define ATTNJUDGE_SERVER_LTI_FORM_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

/* The value of field name in the urlencoded body (len bytes; '+' is a
 * space), decoded, in a new string (caller frees); NULL when absent, when
 * it holds a NUL byte, or when out of memory. The first occurrence wins. */
char *lti_form_get(const char *body, size_t len, const char *name) MUST_CHECK;

/* Appends "&name=value" (or "?name=value" when *url has no '?' yet),
 * value percent-encoded, to the malloc'd *url (realloc'd). 0 or -1. */
int lti_form_append(char **url, const char *name, const char *value) MUST_CHECK;

/* An HTML page that posts fields (name, value pairs, n of them) to action
 * by itself and offers a button where scripts do not run; title in the
 * page. script_hash gets the CSP source of its one inline script
 * ('sha256-...', at least 64 bytes). Malloc'd, caller frees; NULL when out
 * of memory. */
char *lti_form_autopost(const char *title, const char *action, const char *const *fields, size_t n,
                        char *script_hash, size_t hash_len) MUST_CHECK;

/* The page /lti/login answers inside a frame: it goes on to auth_url when
 * the frame keeps this tool's cookies (the probe cookie LTI_FORM_PROBE
 * reads back), else offers to open login_url in a window of its own,
 * where they are first-party. script_hash as lti_form_autopost. Malloc'd,
 * caller frees; NULL when out of memory. */
char *lti_form_cookie_check(const char *auth_url, const char *login_url, char *script_hash,
                            size_t hash_len) MUST_CHECK;

/* The probe cookie's name=value, set beside the state cookie. */
#define LTI_FORM_PROBE "attnjudge_lti_probe=1"

/* s with & < > " ' as HTML entities, in a new string; NULL when out of
 * memory. */
char *lti_form_html(const char *s) MUST_CHECK;

#endif
