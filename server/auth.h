/*
 * auth — passwords and session tokens, on libsodium.
 *
 * Passwords: argon2id (crypto_pwhash_str, interactive limits). Tokens: 32
 * random bytes, hex to the client; only their BLAKE2b-256 hash is stored, so
 * a copy of the database does not hold usable sessions.
 *
 * Device cookies: a browser that once signed in to an account keeps a token
 * (a random id and a keyed MAC over the id and the username) that lets its
 * later sign-ins to that account skip the shared lock-out of failed attempts
 * (docs/operations.md, "Sign-in limits").
 */
#ifndef ATTNJUDGE_SERVER_AUTH_H
#define ATTNJUDGE_SERVER_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_HASH_LEN 128 /* >= crypto_pwhash_STRBYTES */
#define AUTH_TOKEN_HEX 65 /* 64 hex digits + NUL */
#define AUTH_USERNAME_MAX 32
#define AUTH_PASSWORD_MIN 8
#define AUTH_PASSWORD_MAX 256
#define AUTH_DEVICE_LEN 98    /* 32 hex digits of id + '.' + 64 of MAC + NUL */
#define AUTH_DEVICE_ID_LEN 33 /* 32 hex digits + NUL */

struct auth;

/* How costly one password hash is: libsodium's argon2id limits
 * (docs/operations.md, `password_hash_limits`). A stored hash names its
 * own limits, so a change applies to passwords set after it. */
enum auth_limits {
    AUTH_LIMITS_INTERACTIVE, /* 64 MiB, 2 passes: the default */
    AUTH_LIMITS_MODERATE,    /* 256 MiB, 3 passes */
    AUTH_LIMITS_MINIMUM,     /* 8 KiB, 1 pass: test servers only */
};

/* Parses "interactive", "moderate" or "minimum". Returns 0, or -1. */
int auth_limits_parse(const char *s, enum auth_limits *out);

/* Initialises libsodium; at most max_parallel password hashes run at once
 * (each takes the memory of its limits for a few hundred ms). Returns NULL
 * on failure. */
struct auth *auth_new(int max_parallel, enum auth_limits limits);
void auth_free(struct auth *a);

/* Hashes password into out (AUTH_HASH_LEN). Returns 0 or -1 (out of memory). */
int auth_hash_password(struct auth *a, const char *password, char out[AUTH_HASH_LEN]);

/* True if password matches hash. With hash NULL (unknown user), verifies
 * against a dummy hash so that the answer takes the same time. */
bool auth_verify_password(struct auth *a, const char *hash, const char *password);

/* A new random token (hex) and its storage hash (hex). Returns 0 or -1. */
int auth_new_token(char token[AUTH_TOKEN_HEX], char hash[AUTH_TOKEN_HEX]);

/* The storage hash of a token presented by a client; -1 if it is not 64
 * hex digits. */
int auth_token_hash(const char *token, char hash[AUTH_TOKEN_HEX]);

/* Constant-time equality of two strings (class codes). */
bool auth_equal(const char *a, const char *b);

/* True if name is a valid username: [A-Za-z0-9][A-Za-z0-9_.-]{0,31}. */
bool auth_username_valid(const char *name);

/* A random password of n - 1 characters from an unambiguous alphabet. */
int auth_random_password(char *out, size_t n);

/* The failed-sign-in bucket (ratelimit key) of a username,
 * case-insensitively as accounts are, or of one known device of it
 * (device_id non-NULL). Used by sign-in and by the password change. */
void auth_signin_key(const char *username, const char *device_id, char *out, size_t n);

/* Whether name may not be given to a new account: "me" (any case) names
 * the caller in /api/users/me/... routes. */
bool auth_username_reserved(const char *name);

/* Derives the key that signs device cookies from a deployment secret (n
 * bytes), so that they stay valid across restarts. Until it is called, a
 * random key of this process signs them. Call before serving requests. */
void auth_device_key(struct auth *a, const unsigned char *secret, size_t n);

/* A new device cookie value for username (case-insensitive), in out. */
void auth_device_new(const struct auth *a, const char *username, char out[AUTH_DEVICE_LEN]);

/* True if value (NULL if absent) is a device cookie issued for username;
 * then its id is copied into id. */
bool auth_device_check(const struct auth *a, const char *username, const char *value,
                       char id[AUTH_DEVICE_ID_LEN]);

#endif
