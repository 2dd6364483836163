/*
 * lti_keys — the tool's RS256 key pairs on disk, and the signatures and
 * JWKS made with them (lti_keys.h).
 *
 * Each key is one file <data>/lti/<created_ms>.jwk: the private JWK as
 * cjose writes it, with its kid (the RFC 7638 thumbprint of the public
 * key, so that the kid names the key itself and not a file). Files are
 * written atomically with mode 0600 in a 0700 directory; a file of any
 * other name is ignored, one that does not import as an RSA key is an
 * error (a key silently skipped would change which key signs).
 *
 * All the cryptography is cjose's (over OpenSSL): key generation, JWK
 * import and export, the JWS. The thumbprint's SHA-256 and base64url are
 * libsodium's. Nothing here prints a private key; error messages name
 * files, never their contents.
 */
#include "server/lti_keys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjose/cjose.h>
#include <jansson.h>
#include <sodium.h>

#include "util/clock.h"
#include "util/fs.h"

#define MAX_KEYS 16              /* keys published: the newest and those replaced recently */
#define MAX_FILES 256            /* key files a directory may hold before rotation prunes it */
#define KEY_FILE_MAX (64 * 1024) /* bytes: a 2048-bit private JWK is ~1.7 KiB */
#define RSA_BITS 2048

struct key {
    int64_t created_ms;
    cjose_jwk_t *jwk;
};

/* The keys published and the newest that signs. */
struct key_set {
    struct key keys[MAX_KEYS]; /* newest first */
    int n;
};

struct lti_keys {
    char dir[4096];
    /* readers (sign, jwks) hold it shared; a reload swaps the set under it
     * held exclusively */
    pthread_rwlock_t lock;
    struct key_set set;
    pthread_mutex_t reload; /* one reload at a time */
    struct timespec seen;   /* the directory's mtime when the set was read */
};

static void key_dir(const char *data_dir, char *buf, size_t len)
{
    snprintf(buf, len, "%s/lti", data_dir);
}

/* The created time a file name <ms>.jwk carries, or -1 for other names. */
static int64_t key_file_time(const char *name)
{
    char *end = NULL;
    if (name[0] < '0' || name[0] > '9')
        return -1;
    errno = 0;
    long long v = strtoll(name, &end, 10);
    if (errno || strcmp(end, ".jwk") || v < 0)
        return -1;
    return (int64_t)v;
}

/* RFC 7638: base64url(SHA-256('{"e":E,"kty":"RSA","n":N}')) into kid. */
static int thumbprint(const cjose_jwk_t *jwk, char *kid, size_t len)
{
    cjose_err cerr;
    char *pub = cjose_jwk_to_json(jwk, false, &cerr);
    json_t *o = pub ? json_loads(pub, 0, NULL) : NULL;
    const char *e = NULL, *n = NULL;
    int rc = -1;
    free(pub);
    if (!o || json_unpack(o, "{s:s, s:s}", "e", &e, "n", &n) < 0)
        goto out;
    size_t tlen = strlen(e) + strlen(n) + 32;
    char *canon = malloc(tlen);
    if (!canon)
        goto out;
    snprintf(canon, tlen, "{\"e\":\"%s\",\"kty\":\"RSA\",\"n\":\"%s\"}", e, n);
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)canon, strlen(canon));
    free(canon);
    if (len < sodium_base64_ENCODED_LEN(sizeof h, sodium_base64_VARIANT_URLSAFE_NO_PADDING))
        goto out;
    sodium_bin2base64(kid, len, h, sizeof h, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    rc = 0;
out:
    json_decref(o);
    return rc;
}

/* A new key pair, written to dir/<now>.jwk (0600). */
static int key_generate(const char *dir, char *err, size_t errlen)
{
    static const uint8_t e[] = {0x01, 0x00, 0x01}; /* 65537 */
    cjose_err cerr;
    char kid[64], path[4200];
    char *priv = NULL;
    int rc = -1;
    cjose_jwk_t *jwk = cjose_jwk_create_RSA_random(RSA_BITS, e, sizeof e, &cerr);
    if (!jwk) {
        snprintf(err, errlen, "cannot generate an RSA key: %s", cerr.message);
        return -1;
    }
    if (thumbprint(jwk, kid, sizeof kid) < 0 || !cjose_jwk_set_kid(jwk, kid, strlen(kid), &cerr) ||
        !(priv = cjose_jwk_to_json(jwk, true, &cerr))) {
        snprintf(err, errlen, "cannot export the new key");
        goto out;
    }
    int64_t now = clock_wall_ms();
    /* two rotations within one millisecond: the second waits its turn */
    struct stat sb;
    for (int i = 0; i < 1000; i++, now++) {
        snprintf(path, sizeof path, "%s/%" PRId64 ".jwk", dir, now);
        if (stat(path, &sb) < 0)
            break;
    }
    if (fs_write_atomic(path, priv, strlen(priv), 0600) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    /* root (the command line) writes for the server, which owns the
     * directory once it ran as run_as and must read the new key at once */
    if (geteuid() == 0 && stat(dir, &sb) == 0 && sb.st_uid != 0 &&
        lchown(path, sb.st_uid, sb.st_gid) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (priv) {
        sodium_memzero(priv, strlen(priv));
        free(priv);
    }
    cjose_jwk_release(jwk);
    return rc;
}

static int by_newest(const void *a, const void *b)
{
    int64_t x = ((const struct key *)a)->created_ms, y = ((const struct key *)b)->created_ms;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The key files' times in dir, newest first (times: MAX_FILES): their
 * count, or -1. */
static int list_keys(const char *dir, int64_t *times, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct key found[MAX_FILES];
    int n = 0;
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    while ((errno = 0, e = readdir(d))) {
        int64_t t = key_file_time(e->d_name);
        if (t < 0)
            continue;
        if (n == MAX_FILES) {
            snprintf(err, errlen, "%s holds more than %d keys", dir, MAX_FILES);
            closedir(d);
            return -1;
        }
        found[n++].created_ms = t;
    }
    closedir(d);
    qsort(found, (size_t)n, sizeof found[0], by_newest);
    for (int i = 0; i < n; i++)
        times[i] = found[i].created_ms;
    return n;
}

/* Creates dir (0700) or tightens it to 0700. */
static int ensure_dir(const char *dir, char *err, size_t errlen)
{
    struct stat sb;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create it: %s", dir, strerror(errno));
        return -1;
    }
    if (lstat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    if ((sb.st_mode & 077) && chmod(dir, 0700) < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Deletes the keys replaced (a newer one exists) more than
 * LTI_KEYS_RETIRE_MS ago, and those beyond the MAX_KEYS newest. */
static void retire_old(const char *dir, const int64_t *times, int n, int64_t now)
{
    for (int i = 1; i < n; i++) {
        if (i < MAX_KEYS && now - times[i - 1] <= LTI_KEYS_RETIRE_MS)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%" PRId64 ".jwk", dir, times[i]);
        if (unlink(path) < 0)
            fprintf(stderr, "attnjudge: lti: cannot delete the retired key %s: %s\n", path,
                    strerror(errno));
    }
}

static void set_release(struct key_set *s)
{
    for (int i = 0; i < s->n; i++)
        cjose_jwk_release(s->keys[i].jwk);
    s->n = 0;
}

/* Reads the key files of dir into s (generating a first pair when there is
 * none), and the directory's mtime into seen. 0, or -1 with err (s empty). */
static int load_set(const char *dir, struct key_set *s, struct timespec *seen, char *err,
                    size_t errlen)
{
    int64_t times[MAX_FILES];
    struct stat sb;
    s->n = 0;
    int n = list_keys(dir, times, err, errlen);
    if (n == 0 &&
        (key_generate(dir, err, errlen) < 0 || (n = list_keys(dir, times, err, errlen)) < 0))
        return -1;
    if (n < 0)
        return -1;
    if (stat(dir, &sb) < 0) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    *seen = sb.st_mtim;
    int64_t now = clock_wall_ms();
    for (int i = 0; i < n && i < MAX_KEYS; i++) {
        /* a key replaced long ago is not published any more */
        if (i > 0 && now - times[i - 1] > LTI_KEYS_RETIRE_MS)
            break;
        char path[4200], *text = NULL;
        size_t len = 0;
        cjose_err cerr;
        snprintf(path, sizeof path, "%s/%" PRId64 ".jwk", dir, times[i]);
        if (fs_read_file(path, O_NOFOLLOW, KEY_FILE_MAX, &text, &len) < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            goto fail;
        }
        cjose_jwk_t *jwk = cjose_jwk_import(text, len, &cerr);
        sodium_memzero(text, len);
        free(text);
        if (!jwk || cjose_jwk_get_kty(jwk, &cerr) != CJOSE_JWK_KTY_RSA ||
            !cjose_jwk_get_kid(jwk, &cerr)) {
            snprintf(err, errlen, "%s: not an RSA private key with a kid", path);
            if (jwk)
                cjose_jwk_release(jwk);
            goto fail;
        }
        s->keys[s->n].created_ms = times[i];
        s->keys[s->n++].jwk = jwk;
    }
    return 0;
fail:
    set_release(s);
    return -1;
}

struct lti_keys *lti_keys_open(const char *data_dir, char *err, size_t errlen)
{
    struct lti_keys *k = NULL;
    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium failed to start");
        return NULL;
    }
    if (!(k = calloc(1, sizeof *k))) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    key_dir(data_dir, k->dir, sizeof k->dir);
    if (ensure_dir(k->dir, err, errlen) < 0 ||
        load_set(k->dir, &k->set, &k->seen, err, errlen) < 0) {
        free(k);
        return NULL;
    }
    pthread_rwlock_init(&k->lock, NULL);
    pthread_mutex_init(&k->reload, NULL);
    return k;
}

/* Reads the keys again when the directory changed since (a rotation by
 * `attnjudge lti rotate-key`, or a retirement): the new key signs from
 * now on. A set that does not read keeps the one in use (logged). */
static void refresh(struct lti_keys *k)
{
    struct stat sb;
    struct key_set fresh, old;
    struct timespec seen;
    char err[256];
    pthread_mutex_lock(&k->reload);
    if (stat(k->dir, &sb) < 0 ||
        (sb.st_mtim.tv_sec == k->seen.tv_sec && sb.st_mtim.tv_nsec == k->seen.tv_nsec)) {
        pthread_mutex_unlock(&k->reload);
        return;
    }
    if (load_set(k->dir, &fresh, &seen, err, sizeof err) < 0) {
        fprintf(stderr,
                "attnjudge: lti: the keys changed but do not read (the old ones stay): %s\n", err);
        k->seen = sb.st_mtim; /* not again until the next change */
        pthread_mutex_unlock(&k->reload);
        return;
    }
    pthread_rwlock_wrlock(&k->lock);
    old = k->set;
    k->set = fresh;
    k->seen = seen;
    pthread_rwlock_unlock(&k->lock);
    pthread_mutex_unlock(&k->reload);
    set_release(&old);
}

void lti_keys_close(struct lti_keys *k)
{
    if (!k)
        return;
    set_release(&k->set);
    pthread_rwlock_destroy(&k->lock);
    pthread_mutex_destroy(&k->reload);
    free(k);
}

void lti_keys_kid(const struct lti_keys *k, char *buf, size_t len)
{
    struct lti_keys *m = (struct lti_keys *)k; /* the lock only */
    cjose_err cerr;
    refresh(m);
    pthread_rwlock_rdlock(&m->lock);
    snprintf(buf, len, "%s", cjose_jwk_get_kid(m->set.keys[0].jwk, &cerr));
    pthread_rwlock_unlock(&m->lock);
}

char *lti_keys_sign(const struct lti_keys *k, const struct json_t *claims)
{
    struct lti_keys *m = (struct lti_keys *)k; /* the lock and the reload only */
    cjose_err cerr;
    const char *compact = NULL;
    char *payload = NULL, *out = NULL;
    cjose_jws_t *jws = NULL;
    cjose_header_t *hdr = cjose_header_new(&cerr);
    refresh(m);
    pthread_rwlock_rdlock(&m->lock);
    const cjose_jwk_t *jwk = m->set.keys[0].jwk;
    if (!hdr || !cjose_header_set(hdr, CJOSE_HDR_ALG, CJOSE_HDR_ALG_RS256, &cerr) ||
        !cjose_header_set(hdr, CJOSE_HDR_KID, cjose_jwk_get_kid(jwk, &cerr), &cerr) ||
        !cjose_header_set(hdr, "typ", "JWT", &cerr))
        goto out;
    if (!(payload = json_dumps(claims, JSON_COMPACT)))
        goto out;
    jws = cjose_jws_sign(jwk, hdr, (const uint8_t *)payload, strlen(payload), &cerr);
    if (jws && cjose_jws_export(jws, &compact, &cerr))
        out = strdup(compact);
out:
    pthread_rwlock_unlock(&m->lock);
    if (jws)
        cjose_jws_release(jws);
    if (hdr)
        cjose_header_release(hdr);
    free(payload);
    return out;
}

json_t *lti_keys_jwks(const struct lti_keys *k)
{
    struct lti_keys *m = (struct lti_keys *)k; /* the lock and the reload only */
    json_t *keys = json_array(), *root = json_pack("{s:o}", "keys", keys);
    if (!root)
        return NULL;
    refresh(m);
    pthread_rwlock_rdlock(&m->lock);
    for (int i = 0; i < m->set.n; i++) {
        cjose_err cerr;
        char *pub = cjose_jwk_to_json(m->set.keys[i].jwk, false, &cerr);
        json_t *o = pub ? json_loads(pub, 0, NULL) : NULL;
        free(pub);
        if (!o || json_object_set_new(o, "alg", json_string("RS256")) < 0 ||
            json_object_set_new(o, "use", json_string("sig")) < 0 ||
            json_array_append_new(keys, o) < 0) {
            json_decref(o);
            json_decref(root);
            root = NULL;
            break;
        }
    }
    pthread_rwlock_unlock(&m->lock);
    return root;
}

int lti_keys_rotate(const char *data_dir, char *err, size_t errlen)
{
    char dir[4096];
    int64_t times[MAX_FILES];
    key_dir(data_dir, dir, sizeof dir);
    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium failed to start");
        return -1;
    }
    if (ensure_dir(dir, err, errlen) < 0 || key_generate(dir, err, errlen) < 0)
        return -1;
    int n = list_keys(dir, times, err, errlen);
    if (n < 0)
        return -1;
    retire_old(dir, times, n, clock_wall_ms());
    return 0;
}
