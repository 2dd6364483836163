/*
 * lti_store — the LTI 1.3 rows of the store (migration 15; docs/lti.md):
 * registered platforms and their deployments, the logins in flight (state
 * and nonce), the link between an (issuer, sub) and a user here, the LMS
 * courses (contexts) each platform owns, and the resource links with the
 * grade (AGS) and roster (NRPS) endpoints their launches named.
 *
 * The conventions of server/store.h: a struct store is one connection of
 * one thread; 0 on success, a positive STORE_* code for an expected
 * outcome, -1 on a database error (store_error). Times are ms since the
 * epoch. Text fields longer than their buffer are refused by the writers
 * (STORE_FULL), so that what is read back is never cut.
 */
#ifndef ATTNJUDGE_SERVER_LTI_STORE_H
#define ATTNJUDGE_SERVER_LTI_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/store.h"
#include "util/compiler.h"

#define LTI_URL_LEN 1024 /* bytes, with the NUL: any URL a platform names */
#define LTI_ID_LEN 256   /* bytes, with the NUL: issuer, client, deployment, sub, ids */

struct lti_platform {
    int64_t id;
    char issuer[LTI_URL_LEN];
    char client_id[LTI_ID_LEN];
    char auth_url[LTI_URL_LEN];      /* OIDC authorization endpoint */
    char token_url[LTI_URL_LEN];     /* OAuth 2.0 token endpoint (also the assertion's aud) */
    char jwks_url[LTI_URL_LEN];      /* the platform's public keys */
    char frame_origins[LTI_URL_LEN]; /* space-separated origins that may frame the pages */
    int64_t created_at;
};

/* What a resource link opens ("problem" or "assignment" and its slug), in
 * which course, and the services its newest launch named ("" when absent). */
struct lti_link {
    int64_t id;
    int64_t platform_id;
    char deployment_id[LTI_ID_LEN];
    char context_id[LTI_ID_LEN];
    char resource_link_id[LTI_ID_LEN];
    char kind[16]; /* "problem" | "assignment" */
    char slug[64];
    char ags_lineitems_url[LTI_URL_LEN];
    char ags_lineitem_url[LTI_URL_LEN];
    char ags_scopes[LTI_URL_LEN]; /* space-separated scope URIs */
    char nrps_url[LTI_URL_LEN];   /* context_memberships_url */
    int64_t updated_at;
};

/* ---- platforms and deployments ---- */

/* Registers p (its id and created_at ignored) with n deployment ids:
 * *id the new platform's. STORE_EXISTS when (issuer, client_id) is
 * registered already, STORE_FULL when a field does not fit. */
int lti_store_platform_add(struct store *s, const struct lti_platform *p,
                           const char *const *deployments, size_t n, int64_t now,
                           int64_t *id) MUST_CHECK;

/* Removes platform id with its deployments, logins in flight, contexts
 * and links (users stay: their submissions are theirs). STORE_NOT_FOUND
 * when there is no such platform. */
int lti_store_platform_remove(struct store *s, int64_t id) MUST_CHECK;

/* Platform id into *p; STORE_NOT_FOUND when there is none. */
int lti_store_platform_get(struct store *s, int64_t id, struct lti_platform *p) MUST_CHECK;

/* The platform of issuer and client_id (client_id NULL or "": the issuer's
 * only platform; STORE_EXISTS when it has several); STORE_NOT_FOUND when
 * none is registered. */
int lti_store_platform_find(struct store *s, const char *issuer, const char *client_id,
                            struct lti_platform *p) MUST_CHECK;

/* Calls fn for every platform in id order, with its deployment ids
 * space-separated (borrowed for the call); fn's nonzero answer stops the
 * walk (-1 returned). */
int lti_store_platforms(struct store *s,
                        int (*fn)(void *arg, const struct lti_platform *p, const char *deployments),
                        void *arg) MUST_CHECK;

/* 0 when deployment_id is registered for platform_id, else STORE_NOT_FOUND. */
int lti_store_deployment_known(struct store *s, int64_t platform_id,
                               const char *deployment_id) MUST_CHECK;

/* ---- logins in flight ---- */

/* Records a login: the nonce its id_token must carry, the hash of the
 * state its browser must bring back, until expires_at. Expired rows are
 * purged here too. */
int lti_store_login_begin(struct store *s, int64_t platform_id, const char *nonce,
                          const char *state_hash, int64_t expires_at, int64_t now) MUST_CHECK;

/* Spends the login that issued nonce, if its state hash is state_hash and
 * it is unexpired and unspent: 0. STORE_NOT_FOUND when no such login was
 * issued (or it expired, or the state differs), STORE_STALE when it was
 * spent already (a replay). */
int lti_store_login_spend(struct store *s, int64_t platform_id, const char *nonce,
                          const char *state_hash, int64_t now) MUST_CHECK;

/* ---- users ---- */

/* The user (issuer, sub) is linked to, into *u; STORE_NOT_FOUND when none. */
int lti_store_user_find(struct store *s, const char *issuer, const char *sub,
                        struct store_user *u) MUST_CHECK;

/* Links (issuer, sub) to a new account named username, with role, display
 * name and student id, and a password hash no password matches (pwhash):
 * *id the user's. STORE_EXISTS when username is taken. */
int lti_store_user_create(struct store *s, const char *issuer, const char *sub,
                          const char *username, const char *pwhash, const char *role,
                          const char *display_name, const char *student_id, int64_t now,
                          int64_t *id) MUST_CHECK;

/* Sets user_id's role, display name and student id (each NULL: unchanged). */
int lti_store_user_update(struct store *s, int64_t user_id, const char *role,
                          const char *display_name, const char *student_id) MUST_CHECK;

/* The sub under which issuer knows user_id (the AGS and NRPS userId), into
 * sub[LTI_ID_LEN]; STORE_NOT_FOUND when the user is not linked there. */
int lti_store_user_sub(struct store *s, const char *issuer, int64_t user_id,
                       char sub[LTI_ID_LEN]) MUST_CHECK;

/* ---- courses ---- */

/* 0 when platform_id owns context_id through deployment_id; STORE_NOT_FOUND
 * when no platform owns it yet; STORE_EXISTS when it is owned through
 * another deployment. */
int lti_store_context_owner(struct store *s, int64_t platform_id, const char *deployment_id,
                            const char *context_id) MUST_CHECK;

/* Makes platform_id own context_id through deployment_id (an instructor's
 * launch or deep link: by, that user). STORE_EXISTS when it is owned
 * through another deployment. */
int lti_store_context_bind(struct store *s, int64_t platform_id, const char *deployment_id,
                           const char *context_id, const char *title, int64_t by,
                           int64_t now) MUST_CHECK;

/* ---- resource links ---- */

/* Records l (its id and updated_at ignored) by (platform, deployment,
 * resource link): created, or its target and services replaced. *id the
 * link's. STORE_FULL when a field does not fit. */
int lti_store_link_put(struct store *s, const struct lti_link *l, int64_t now,
                       int64_t *id) MUST_CHECK;

/* Link id into *l; STORE_NOT_FOUND when there is none. */
int lti_store_link_get(struct store *s, int64_t id, struct lti_link *l) MUST_CHECK;

/* Calls fn for every link that opens kind/slug (kind NULL: every link), in
 * id order; fn's nonzero answer stops the walk (-1 returned). */
int lti_store_links(struct store *s, const char *kind, const char *slug,
                    int (*fn)(void *arg, const struct lti_link *l), void *arg) MUST_CHECK;

#endif
