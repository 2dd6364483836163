/*
 * accounts — password resets and changes (accounts.h).
 *
 * Why a reset returns the password rather than mailing it: the server
 * knows no addresses; the instructor hands it over as they hand over an
 * account today (docs/operations.md, "A student forgot their password").
 * It is one-time: must_change_password holds the account to the change
 * form until its owner picks their own.
 */
#include "server/accounts.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/clock.h"

/* 16 random characters of auth_random_password: about 95 bits. */
#define ONE_TIME_LEN 17

static struct http_response *internal(const char *where, struct store *s)
{
    fprintf(stderr, "attnjudge: %s: %s\n", where, s ? store_error(s) : "failed");
    return http_error(500, "internal", "internal error; the server log has the details");
}

struct http_response *accounts_reset(struct app *a, const struct http_request *req,
                                     const char *name, const struct accounts_caller *who)
{
    json_t *o = NULL;
    struct http_response *r = NULL;
    struct store *s = NULL;
    struct store_user u;
    char password[ONE_TIME_LEN], hash[AUTH_HASH_LEN];
    int ended = 0;

    if (!auth_username_valid(name))
        return http_error(400, "invalid_username", "not a valid username");
    if (req->body && (r = routes_json_body(http_header(req, "Content-Type"), req->body,
                                           req->body_len, &o, "no fields", "{}")))
        return r;
    json_decref(o);
    if (!strcasecmp(name, who->username))
        return http_error(400, "invalid_request",
                          "change your own password with POST /api/users/me/password");
    s = store_pool_get(a->pool);
    int rc = store_user_by_name(s, name, &u);
    if (rc < 0) {
        r = internal("password reset", s);
        goto out;
    }
    if (rc == STORE_NOT_FOUND) {
        r = http_error(404, "not_found", "no user '%s'", name);
        goto out;
    }
    store_pool_put(a->pool, s); /* not held during the slow hash */
    s = NULL;
    if (auth_random_password(password, sizeof password) < 0 ||
        auth_hash_password(a->auth, password, hash) < 0) {
        r = internal("password reset: hashing", NULL);
        goto out;
    }
    s = store_pool_get(a->pool);
    rc = store_user_set_password(s, u.id, hash, true, NULL, &ended);
    if (rc == STORE_NOT_FOUND) /* deleted meanwhile */
        r = http_error(404, "not_found", "no user '%s'", name);
    else if (rc < 0)
        r = internal("password reset", s);
    else {
        r = http_json(200, json_pack("{s:s, s:s, s:b, s:i}", "username", u.username,
                                     "temporary_password", password, "must_change_password", 1,
                                     "sessions_ended", ended));
        fprintf(stderr, "attnjudge: password of '%s' reset by user %lld\n", u.username,
                (long long)who->user_id);
    }
out:
    explicit_bzero(password, sizeof password);
    store_pool_put(a->pool, s);
    return r;
}

struct http_response *accounts_change(struct app *a, const struct http_request *req,
                                      const struct accounts_caller *who)
{
    const char *old_pw = NULL, *new_pw = NULL;
    size_t n_old = 0, n_new = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    struct store_user u;
    char hash[AUTH_HASH_LEN], key[64];
    int ended = 0;

    if ((r = routes_json_body(http_header(req, "Content-Type"), req->body, req->body_len, &o,
                              "{\"old_password\", \"new_password\": strings}", "{s:s%, s:s%}",
                              "old_password", &old_pw, &n_old, "new_password", &new_pw, &n_new)))
        return r;
    if (n_old > AUTH_PASSWORD_MAX || n_new > AUTH_PASSWORD_MAX) {
        r = http_error(400, "invalid_request", "a password has at most %d bytes",
                       AUTH_PASSWORD_MAX);
        goto out;
    }
    if (strlen(new_pw) < AUTH_PASSWORD_MIN || strlen(new_pw) != n_new) {
        r = http_error(400, "weak_password", "a password needs at least %d characters",
                       AUTH_PASSWORD_MIN);
        goto out;
    }
    /* The sign-in form's bucket: the change form is no faster a way to
     * guess a password. */
    auth_signin_key(who->username, NULL, key, sizeof key);
    int wait = ratelimit_take(a->signin_rl, key, clock_wall_ms());
    if (wait) {
        r = http_error(429, "rate_limited", "too many wrong passwords; retry in %d s", wait);
        char v[16];
        snprintf(v, sizeof v, "%d", wait);
        http_add_header(r, "Retry-After", v);
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = store_user_by_name(s, who->username, &u);
    store_pool_put(a->pool, s);
    s = NULL;
    if (rc != 0) {
        r = rc == STORE_NOT_FOUND ? http_error(401, "unauthorized", "the account is gone")
                                  : internal("password change", NULL);
        goto out;
    }
    if (!auth_verify_password(a->auth, u.pwhash, old_pw)) {
        r = http_error(401, "bad_credentials", "the old password is wrong");
        goto out;
    }
    ratelimit_refund(a->signin_rl, key, clock_wall_ms());
    if (!strcmp(old_pw, new_pw)) {
        r = http_error(400, "same_password", "choose a password other than the old one");
        goto out;
    }
    if (auth_hash_password(a->auth, new_pw, hash) < 0) {
        r = internal("password change: hashing", NULL);
        goto out;
    }
    s = store_pool_get(a->pool);
    rc = store_user_set_password(s, u.id, hash, false, who->token_hash, &ended);
    if (rc != 0)
        r = rc == STORE_NOT_FOUND ? http_error(401, "unauthorized", "the account is gone")
                                  : internal("password change", s);
    else
        r = http_json(200, json_pack("{s:s, s:b, s:i}", "username", u.username,
                                     "must_change_password", 0, "sessions_ended", ended));
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}
