/*
 * auth — password hashing and session tokens on libsodium (auth.h).
 *
 * All cryptography is libsodium's; nothing here is hand-written crypto.
 * argon2id with the interactive limits (the default of
 * `password_hash_limits`) costs 64 MiB and a few hundred ms of CPU per hash,
 * which is the point (slow offline guessing) and also a way to exhaust the
 * host: a counting semaphore bounds how many hashes run at once, whatever
 * the number of HTTP threads.
 *
 * Sign-in of an unknown user still verifies against a dummy hash, so the
 * response time does not reveal which usernames exist.
 *
 * A device cookie is "<id>.<mac>": 16 random bytes and BLAKE2b-256 keyed with
 * the device key over (lower-case username, id). It holds no secret of the
 * account and no session; it only proves that this browser once knew the
 * password, so a stolen copy buys an attacker no more than its own bucket of
 * failed attempts.
 */
#include "server/auth.h"

#include <semaphore.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

struct auth {
    sem_t slots;
    unsigned long long opslimit; /* the limits of every new hash */
    size_t memlimit;
    char dummy[crypto_pwhash_STRBYTES];
    unsigned char device_key[crypto_generichash_KEYBYTES];
};

_Static_assert(AUTH_HASH_LEN >= crypto_pwhash_STRBYTES, "AUTH_HASH_LEN too small");

int auth_limits_parse(const char *s, enum auth_limits *out)
{
    static const char *const names[] = {"interactive", "moderate", "minimum"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum auth_limits)i;
            return 0;
        }
    return -1;
}

struct auth *auth_new(int max_parallel, enum auth_limits limits)
{
    struct auth *a = NULL;
    if (sodium_init() < 0)
        return NULL;
    if (!(a = calloc(1, sizeof *a)))
        return NULL;
    switch (limits) {
    case AUTH_LIMITS_MODERATE:
        a->opslimit = crypto_pwhash_OPSLIMIT_MODERATE;
        a->memlimit = crypto_pwhash_MEMLIMIT_MODERATE;
        break;
    case AUTH_LIMITS_MINIMUM:
        a->opslimit = crypto_pwhash_OPSLIMIT_MIN;
        a->memlimit = crypto_pwhash_MEMLIMIT_MIN;
        break;
    case AUTH_LIMITS_INTERACTIVE:
    default:
        a->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
        a->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
        break;
    }
    if (sem_init(&a->slots, 0, (unsigned)(max_parallel < 1 ? 1 : max_parallel)) < 0)
        goto fail;
    /* the dummy costs what a real hash costs, so that an unknown user's
     * sign-in takes as long as a known one's */
    char pw[33];
    if (auth_random_password(pw, sizeof pw) < 0 ||
        crypto_pwhash_str(a->dummy, pw, strlen(pw), a->opslimit, a->memlimit) != 0) {
        sem_destroy(&a->slots);
        goto fail;
    }
    randombytes_buf(a->device_key, sizeof a->device_key);
    return a;
fail:
    free(a);
    return NULL;
}

void auth_free(struct auth *a)
{
    if (!a)
        return;
    sem_destroy(&a->slots);
    free(a);
}

static void slot_take(struct auth *a)
{
    while (sem_wait(&a->slots) < 0)
        ; /* EINTR only */
}

int auth_hash_password(struct auth *a, const char *password, char out[AUTH_HASH_LEN])
{
    slot_take(a);
    int rc = crypto_pwhash_str(out, password, strlen(password), a->opslimit, a->memlimit);
    sem_post(&a->slots);
    return rc == 0 ? 0 : -1;
}

bool auth_verify_password(struct auth *a, const char *hash, const char *password)
{
    slot_take(a);
    int rc = crypto_pwhash_str_verify(hash ? hash : a->dummy, password, strlen(password));
    sem_post(&a->slots);
    return hash && rc == 0;
}

static void hash_hex(const unsigned char *raw, size_t n, char out[AUTH_TOKEN_HEX])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof h, raw, n, NULL, 0);
    sodium_bin2hex(out, AUTH_TOKEN_HEX, h, sizeof h);
}

int auth_new_token(char token[AUTH_TOKEN_HEX], char hash[AUTH_TOKEN_HEX])
{
    unsigned char raw[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(token, AUTH_TOKEN_HEX, raw, sizeof raw);
    hash_hex(raw, sizeof raw, hash);
    sodium_memzero(raw, sizeof raw);
    return 0;
}

int auth_token_hash(const char *token, char hash[AUTH_TOKEN_HEX])
{
    unsigned char raw[32];
    size_t n = 0;
    const char *end = NULL;
    if (strlen(token) != 64 || sodium_hex2bin(raw, sizeof raw, token, 64, NULL, &n, &end) != 0 ||
        n != 32 || *end != '\0')
        return -1;
    hash_hex(raw, sizeof raw, hash);
    return 0;
}

bool auth_equal(const char *a, const char *b)
{
    /* Compare fixed-size digests so that neither length nor content leaks. */
    unsigned char ha[32], hb[32];
    crypto_generichash(ha, sizeof ha, (const unsigned char *)a, strlen(a), NULL, 0);
    crypto_generichash(hb, sizeof hb, (const unsigned char *)b, strlen(b), NULL, 0);
    return sodium_memcmp(ha, hb, sizeof ha) == 0;
}

void auth_signin_key(const char *username, const char *device_id, char *out, size_t n)
{
    int k = device_id ? snprintf(out, n, "d:%s", device_id) : snprintf(out, n, "a:%s", username);
    for (int i = 2; !device_id && i < k && (size_t)i < n; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
}

bool auth_username_reserved(const char *name)
{
    return !strcasecmp(name, "me");
}

bool auth_username_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > AUTH_USERNAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
            return false;
    }
    return true;
}

int auth_random_password(char *out, size_t n)
{
    static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    if (n < 2 || sodium_init() < 0)
        return -1;
    for (size_t i = 0; i + 1 < n; i++)
        out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
    out[n - 1] = '\0';
    return 0;
}

void auth_device_key(struct auth *a, const unsigned char *secret, size_t n)
{
    static const char context[] = "attnjudge device cookie v1";
    /* A keyed hash of a fixed context: the judge's secret is not reused as
     * is for a second purpose. */
    crypto_generichash(a->device_key, sizeof a->device_key, (const unsigned char *)context,
                       sizeof context - 1, secret, n);
}

static void device_mac(const struct auth *a, const char *username, const char *id_hex,
                       unsigned char mac[32])
{
    char lower[AUTH_USERNAME_MAX + 1];
    size_t n = strnlen(username, AUTH_USERNAME_MAX);
    for (size_t i = 0; i < n; i++)
        lower[i] =
            (char)((username[i] >= 'A' && username[i] <= 'Z') ? username[i] + 32 : username[i]);
    lower[n] = '\0';
    crypto_generichash_state st;
    crypto_generichash_init(&st, a->device_key, sizeof a->device_key, 32);
    crypto_generichash_update(&st, (const unsigned char *)lower, n + 1); /* with its NUL */
    crypto_generichash_update(&st, (const unsigned char *)id_hex, AUTH_DEVICE_ID_LEN - 1);
    crypto_generichash_final(&st, mac, 32);
}

void auth_device_new(const struct auth *a, const char *username, char out[AUTH_DEVICE_LEN])
{
    unsigned char raw[16], mac[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(out, AUTH_DEVICE_ID_LEN, raw, sizeof raw);
    device_mac(a, username, out, mac);
    out[AUTH_DEVICE_ID_LEN - 1] = '.';
    sodium_bin2hex(out + AUTH_DEVICE_ID_LEN, AUTH_DEVICE_LEN - AUTH_DEVICE_ID_LEN, mac, sizeof mac);
}

bool auth_device_check(const struct auth *a, const char *username, const char *value,
                       char id[AUTH_DEVICE_ID_LEN])
{
    unsigned char mac[32], want[32];
    size_t n = 0;
    if (!value || strlen(value) != AUTH_DEVICE_LEN - 1 || value[AUTH_DEVICE_ID_LEN - 1] != '.')
        return false;
    for (size_t i = 0; i < AUTH_DEVICE_ID_LEN - 1; i++)
        if (!((value[i] >= '0' && value[i] <= '9') || (value[i] >= 'a' && value[i] <= 'f')))
            return false;
    if (sodium_hex2bin(mac, sizeof mac, value + AUTH_DEVICE_ID_LEN, 64, NULL, &n, NULL) != 0 ||
        n != sizeof mac)
        return false;
    char got[AUTH_DEVICE_ID_LEN];
    memcpy(got, value, AUTH_DEVICE_ID_LEN - 1);
    got[AUTH_DEVICE_ID_LEN - 1] = '\0';
    device_mac(a, username, got, want);
    if (sodium_memcmp(mac, want, sizeof mac) != 0)
        return false;
    memcpy(id, got, AUTH_DEVICE_ID_LEN);
    return true;
}
