/*
 * accounts — passwords as the API changes them (docs/api.md, "Passwords"):
 * an instructor's reset to a one-time password, and a signed-in user's own
 * change. Either ends the user's other sessions; a one-time password must
 * be changed at the next sign-in (routes.c refuses everything else
 * meanwhile, 403 password_change_required).
 *
 * routes.c authorizes each route (instructors, signed in) and hands the
 * caller over; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_ACCOUNTS_H
#define ATTNJUDGE_SERVER_ACCOUNTS_H

#include <stdint.h>

#include "server/routes.h"

/* The signed-in caller. */
struct accounts_caller {
    int64_t user_id;
    const char *username;
    const char *token_hash; /* the session in use */
};

/* POST /api/users/{name}/password (instructors), empty body or {}: a new
 * one-time password for another account, returned once; the account's
 * sessions end. 200, 400 (bad name, one's own account), 404. */
struct http_response *accounts_reset(struct app *a, const struct http_request *req,
                                     const char *name, const struct accounts_caller *who);

/* POST /api/users/me/password {"old_password", "new_password"}: the
 * caller's own change; the other sessions end, this one continues. 200,
 * 400 weak_password / same_password, 401 bad_credentials (counted like a
 * failed sign-in: 429 when too many). */
struct http_response *accounts_change(struct app *a, const struct http_request *req,
                                      const struct accounts_caller *who);

#endif
