/*
 * lti_keys — the tool's own RS256 key pairs for LTI 1.3 (docs/lti.md):
 * what signs the deep-linking responses and the OAuth 2.0 client
 * assertions, and what /lti/jwks publishes.
 *
 * The keys live in <data>/lti/ (directory mode 0700, each private key a
 * JWK file of mode 0600 named by its creation time), generated at the
 * first open. The newest key signs; older ones stay published in the JWKS
 * for LTI_KEYS_RETIRE_MS after a newer one appears, so that a platform
 * holding a cached copy of the JWKS still verifies what the old key signed,
 * and are deleted after that. Private keys never leave this module: no
 * function returns or logs them.
 *
 * Any number of threads may sign with a struct lti_keys and read its JWKS
 * at once. A rotation by another process (the CLI) is seen by the next
 * signature or JWKS: each looks at the directory's mtime and reads the
 * keys again when it changed.
 */
#ifndef ATTNJUDGE_SERVER_LTI_KEYS_H
#define ATTNJUDGE_SERVER_LTI_KEYS_H

#include <stddef.h>

#include "util/compiler.h"

/* How long a replaced key stays published (ms): longer than any
 * platform's JWKS cache (Canvas and Moodle refetch within a day). */
#define LTI_KEYS_RETIRE_MS (7LL * 24 * 3600 * 1000)

struct json_t;
struct lti_keys;

/* Opens the key pairs under data_dir/lti/, creating the directory and a
 * first key pair when there is none. NULL with a message in err when the
 * directory or a key cannot be read or written. Caller frees with
 * lti_keys_close. */
struct lti_keys *lti_keys_open(const char *data_dir, char *err, size_t errlen) MUST_CHECK;

void lti_keys_close(struct lti_keys *k);

/* A compact JWS (RS256, header kid = the newest key's id, typ "JWT") over
 * claims (borrowed). Malloc'd, caller frees; NULL on failure. */
char *lti_keys_sign(const struct lti_keys *k, const struct json_t *claims) MUST_CHECK;

/* {"keys": [...]}: the public halves only (kty, n, e, kid, alg "RS256",
 * use "sig"), newest first. A new reference; NULL when out of memory. */
struct json_t *lti_keys_jwks(const struct lti_keys *k) MUST_CHECK;

/* The kid lti_keys_sign puts in its header now, copied into buf (len). */
void lti_keys_kid(const struct lti_keys *k, char *buf, size_t len);

/* Generates a new key pair under data_dir/lti/ that signs from now on
 * (every struct lti_keys open on it sees it at its next use), and deletes
 * keys replaced more than LTI_KEYS_RETIRE_MS ago.
 * 0, or -1 with a message in err. */
int lti_keys_rotate(const char *data_dir, char *err, size_t errlen) MUST_CHECK;

#endif
