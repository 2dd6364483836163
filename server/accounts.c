/*
 * accounts — accounts and sessions as the API changes them (accounts.h).
 *
 * Sign-in is limited twice: per client address (all attempts) and per
 * account (failed attempts only), the latter shared by every client that
 * does not hold a device cookie for the account (docs/operations.md).
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

#include "server/ratelimit.h"
#include "server/request.h"
#include "server/views.h"
#include "util/clock.h"

#define DEVICE_COOKIE "attnjudge_device"
#define DEVICE_COOKIE_AGE (180 * 24 * 3600) /* seconds: a long course */

/* 16 random characters of auth_random_password: about 95 bits. */
#define ONE_TIME_LEN 17

struct http_response *accounts_create(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *username = NULL, *password = NULL, *code = NULL, *role = NULL;
    size_t n_user = 0, n_pass = 0, n_code = 0, n_role = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    char hash[AUTH_HASH_LEN];
    int64_t id = 0;

    if ((r = request_body(req, &o,
                          "{\"username\", \"password\": strings; \"class_code\", \"role\": "
                          "optional strings}",
                          "{s:s%, s:s%, s?s%, s?s%}", "username", &username, &n_user, "password",
                          &password, &n_pass, "class_code", &code, &n_code, "role", &role,
                          &n_role)))
        return r;
    if ((r = request_field_len("username", username, n_user, 1, 64)) ||
        (r = request_field_len("password", password, n_pass, 0, AUTH_PASSWORD_MAX)) ||
        (r = request_field_len("class_code", code, n_code, 0, 128)) ||
        (r = request_field_len("role", role, n_role, 1, 16)))
        goto out;
    if (!role)
        role = "student";
    if (strcmp(role, "student") && strcmp(role, "instructor")) {
        r = http_error(400, "invalid_request", "role must be 'student' or 'instructor'");
        goto out;
    }
    if (!me->instructor) {
        /* Self-registration: only students, and only if the course allows. */
        int wait = ratelimit_take(a->auth_rl, req->remote, clock_wall_ms());
        if (wait) {
            r = request_retry_after(
                http_error(429, "rate_limited", "too many attempts; retry later"), wait);
            goto out;
        }
        if (a->cfg->registration == REG_CLOSED) {
            r = http_error(403, "registration_closed",
                           "registration is closed; ask an instructor for an account");
            goto out;
        }
        if (a->cfg->registration == REG_CODE && (!code || !auth_equal(code, a->cfg->class_code))) {
            r = http_error(403, "invalid_class_code", "a valid class_code is required");
            goto out;
        }
        if (strcmp(role, "student")) {
            r = http_error(403, "forbidden", "only instructors may create instructors");
            goto out;
        }
    }
    if (!auth_username_valid(username) || auth_username_reserved(username)) {
        r = http_error(400, "invalid_username",
                       "a username is 1 to 32 letters, digits, '_', '.' or '-', starting with "
                       "a letter or digit (and not 'me')");
        goto out;
    }
    if (strlen(password) < AUTH_PASSWORD_MIN) {
        r = http_error(400, "weak_password", "a password needs at least %d characters",
                       AUTH_PASSWORD_MIN);
        goto out;
    }
    if (auth_hash_password(a->auth, password, hash) < 0) {
        r = NULL;
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = store_user_create(s, username, hash, role, clock_wall_ms(), &id);
    if (rc < 0) {
        r = request_internal("create user", s);
        goto out;
    }
    if (rc == STORE_EXISTS) {
        r = http_error(409, "username_taken", "that username is taken");
        goto out;
    }
    r = http_json(201, json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "username", username,
                                 "role", role));
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

struct http_response *accounts_sign_in(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    const char *username = NULL, *password = NULL;
    size_t n_user = 0, n_pass = 0;
    int want_cookie = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    struct store_user u;
    bool cookie = false, known = false, ip_taken = false;
    char token[AUTH_TOKEN_HEX], hash[AUTH_TOKEN_HEX];
    char dev_id[AUTH_DEVICE_ID_LEN], device[AUTH_DEVICE_LEN], acct_key[64];
    (void)me;

    if ((r = request_body(req, &o,
                          "{\"username\", \"password\": strings; \"cookie\": optional true or "
                          "false}",
                          "{s:s%, s:s%, s?b}", "username", &username, &n_user, "password",
                          &password, &n_pass, "cookie", &want_cookie)))
        return r;
    if ((r = request_field_len("username", username, n_user, 1, 64)) ||
        (r = request_field_len("password", password, n_pass, 0, AUTH_PASSWORD_MAX)))
        goto out;
    cookie = want_cookie != 0;
    bool valid = auth_username_valid(username);
    /* A browser that signed in to this account before has a bucket of its
     * own and skips the per-address one: an attacker hammering the account,
     * or sharing the user's NAT, cannot lock it out. */
    known = valid && auth_device_check(a->auth, username, http_cookie(req, DEVICE_COOKIE), dev_id);
    int wait = known ? 0 : ratelimit_take(a->auth_rl, req->remote, clock_wall_ms());
    if (wait) {
        r = request_retry_after(http_error(429, "rate_limited", "too many attempts; retry later"),
                                wait);
        goto out;
    }
    ip_taken = !known;
    if (valid) {
        /* Every name gets a bucket, existing or not: a 429 tells nothing
         * about which accounts exist. Failures only: refunded on success. */
        auth_signin_key(username, known ? dev_id : NULL, acct_key, sizeof acct_key);
        if ((wait = ratelimit_take(a->signin_rl, acct_key, clock_wall_ms()))) {
            r = request_retry_after(
                http_error(429, "rate_limited",
                           "too many failed sign-ins to this account; retry in %d s", wait),
                wait);
            goto out;
        }
    }
    s = store_pool_get(a->pool);
    int rc = valid ? store_user_by_name(s, username, &u) : STORE_NOT_FOUND;
    if (rc < 0) {
        r = request_internal("sign in", s);
        goto out;
    }
    /* Release the connection during the slow hash. */
    store_pool_put(a->pool, s);
    s = NULL;
    if (!auth_verify_password(a->auth, rc == 0 ? u.pwhash : NULL, password)) {
        r = http_error(401, "bad_credentials", "wrong username or password");
        goto out;
    }
    if (valid)
        ratelimit_refund(a->signin_rl, acct_key, clock_wall_ms());
    if (ip_taken)
        ratelimit_refund(a->auth_rl, req->remote, clock_wall_ms());
    if (!known)
        auth_device_new(a->auth, u.username, device);
    else
        snprintf(device, sizeof device, "%s", http_cookie(req, DEVICE_COOKIE));
    int64_t now = clock_wall_ms(), expires = now + a->cfg->session_ttl_s * 1000;
    s = store_pool_get(a->pool);
    if (auth_new_token(token, hash) < 0 || store_session_create(s, hash, u.id, now, expires) < 0) {
        r = request_internal("create session", s);
        goto out;
    }
    if (store_session_purge(s, now) < 0)
        fprintf(stderr, "attnjudge: purge sessions: %s\n", store_error(s));
    snprintf(req->user, sizeof req->user, "%s", u.username);
    json_t *body = json_pack("{s:o, s:{s:I, s:s, s:s, s:b}}", "expires_at", views_time(expires),
                             "user", "id", (json_int_t)u.id, "username", u.username, "role", u.role,
                             "must_change_password", u.must_change_password);
    /* With the cookie, the token stays out of JavaScript's reach. */
    if (body && !cookie)
        json_object_set_new(body, "token", json_string(token));
    r = http_json(200, body);
    if (r && cookie) {
        char v[256];
        snprintf(v, sizeof v,
                 ACCOUNTS_SESSION_COOKIE "=%s; Path=/; Max-Age=%lld; HttpOnly; SameSite=Strict%s",
                 token, (long long)a->cfg->session_ttl_s, a->cfg->cookie_secure ? "; Secure" : "");
        http_add_header(r, "Set-Cookie", v);
    }
    if (r) {
        /* Sent to sign-in only; renewed at every sign-in. */
        char v[256];
        snprintf(v, sizeof v,
                 DEVICE_COOKIE "=%s; Path=/api/sessions; Max-Age=%d; HttpOnly; SameSite=Strict%s",
                 device, DEVICE_COOKIE_AGE, a->cfg->cookie_secure ? "; Secure" : "");
        http_add_header(r, "Set-Cookie", v);
    }
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

struct http_response *accounts_sign_out(struct app *a, struct http_request *req,
                                        const struct caller *me)
{
    (void)req;
    struct store *s = store_pool_get(a->pool);
    int rc = store_session_delete(s, me->token_hash);
    struct http_response *r =
        rc < 0 ? request_internal("sign out", s) : http_response_new(204, NULL, NULL, 0);
    store_pool_put(a->pool, s);
    if (r && rc == 0)
        http_add_header(r, "Set-Cookie",
                        a->cfg->cookie_secure ? ACCOUNTS_SESSION_COOKIE
                            "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure"
                                              : ACCOUNTS_SESSION_COOKIE
                            "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
    return r;
}

struct http_response *accounts_me(struct app *a, struct http_request *req, const struct caller *me)
{
    (void)a;
    (void)req;
    return http_json(200,
                     json_pack("{s:I, s:s, s:s, s:b, s:s?, s:s?}", "id", (json_int_t)me->u.id,
                               "username", me->u.username, "role", me->u.role,
                               "must_change_password", me->u.must_change_password, "display_name",
                               me->u.display_name[0] ? me->u.display_name : NULL, "student_id",
                               me->u.student_id[0] ? me->u.student_id : NULL));
}

struct http_response *accounts_reset(struct app *a, struct http_request *req,
                                     const struct caller *me)
{
    const char *name = req->param;
    struct http_response *r = NULL;
    struct store *s = NULL;
    struct store_user u;
    char password[ONE_TIME_LEN], hash[AUTH_HASH_LEN];
    int ended = 0;

    if (!auth_username_valid(name))
        return http_error(400, "invalid_username", "not a valid username");
    if ((r = request_no_fields(req)))
        return r;
    if (!strcasecmp(name, me->u.username))
        return http_error(400, "invalid_request",
                          "change your own password with POST /api/users/me/password");
    s = store_pool_get(a->pool);
    int rc = store_user_by_name(s, name, &u);
    if (rc < 0) {
        r = request_internal("password reset", s);
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
        r = request_internal("password reset: hashing", NULL);
        goto out;
    }
    s = store_pool_get(a->pool);
    rc = store_user_set_password(s, u.id, hash, true, NULL, &ended);
    if (rc == STORE_NOT_FOUND) /* deleted meanwhile */
        r = http_error(404, "not_found", "no user '%s'", name);
    else if (rc < 0)
        r = request_internal("password reset", s);
    else {
        r = http_json(200, json_pack("{s:s, s:s, s:b, s:i}", "username", u.username,
                                     "temporary_password", password, "must_change_password", 1,
                                     "sessions_ended", ended));
        fprintf(stderr, "attnjudge: password of '%s' reset by user %lld\n", u.username,
                (long long)me->u.id);
    }
out:
    explicit_bzero(password, sizeof password);
    store_pool_put(a->pool, s);
    return r;
}

struct http_response *accounts_change(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *old_pw = NULL, *new_pw = NULL;
    size_t n_old = 0, n_new = 0;
    json_t *o = NULL;
    struct http_response *r;
    struct store *s = NULL;
    struct store_user u;
    char hash[AUTH_HASH_LEN], key[64];
    int ended = 0;

    if ((r = request_body(req, &o, "{\"old_password\", \"new_password\": strings}", "{s:s%, s:s%}",
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
    auth_signin_key(me->u.username, NULL, key, sizeof key);
    int wait = ratelimit_take(a->signin_rl, key, clock_wall_ms());
    if (wait) {
        r = request_retry_after(
            http_error(429, "rate_limited", "too many wrong passwords; retry in %d s", wait), wait);
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = store_user_by_name(s, me->u.username, &u);
    store_pool_put(a->pool, s);
    s = NULL;
    if (rc != 0) {
        r = rc == STORE_NOT_FOUND ? http_error(401, "unauthorized", "the account is gone")
                                  : request_internal("password change", NULL);
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
        r = request_internal("password change: hashing", NULL);
        goto out;
    }
    s = store_pool_get(a->pool);
    rc = store_user_set_password(s, u.id, hash, false, me->token_hash, &ended);
    if (rc != 0)
        r = rc == STORE_NOT_FOUND ? http_error(401, "unauthorized", "the account is gone")
                                  : request_internal("password change", s);
    else
        r = http_json(200, json_pack("{s:s, s:b, s:i}", "username", u.username,
                                     "must_change_password", 0, "sessions_ended", ended));
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}
