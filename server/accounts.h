/*
 * accounts — accounts and sessions as the API changes them (docs/api.md,
 * "Accounts" and "Passwords"): sign-up, sign-in and sign-out, who am I,
 * an instructor's reset to a one-time password, and a signed-in user's own
 * change. A reset or a change ends the user's other sessions; a one-time
 * password must be changed at the next sign-in (routes.c refuses
 * everything else meanwhile, 403 password_change_required).
 */
#ifndef ATTNJUDGE_SERVER_ACCOUNTS_H
#define ATTNJUDGE_SERVER_ACCOUNTS_H

#include "server/app.h"

/* The HttpOnly cookie that carries a session token (routes.c reads it). */
#define ACCOUNTS_SESSION_COOKIE "attnjudge_session"

/* POST /api/users {"username", "password", "class_code"?, "role"?}: an
 * instructor creates any account; anyone else signs up as a student, as
 * the course's registration allows (rate-limited per address). 201. */
handler_fn accounts_create;
/* POST /api/sessions {"username", "password", "cookie"?}: a session, its
 * token in the body or (cookie) in the session cookie; the device cookie
 * that exempts this browser from the per-address limit. 200, 401, 429. */
handler_fn accounts_sign_in;
/* DELETE /api/sessions: ends the caller's session and clears the cookie.
 * 204. */
handler_fn accounts_sign_out;
/* GET /api/me: the caller's account. */
handler_fn accounts_me;

/* POST /api/users/{name}/password (instructors), empty body or {}: a new
 * one-time password for another account, returned once; the account's
 * sessions end. 200, 400 (bad name, one's own account), 404. */
handler_fn accounts_reset;

/* POST /api/users/me/password {"old_password", "new_password"}: the
 * caller's own change; the other sessions end, this one continues. 200,
 * 400 weak_password / same_password, 401 bad_credentials (counted like a
 * failed sign-in: 429 when too many). */
handler_fn accounts_change;

#endif
