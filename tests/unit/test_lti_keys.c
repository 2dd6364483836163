/*
 * Unit tests of the tool's LTI key pairs (server/lti_keys.h): generated at
 * the first open into a 0700 directory as 0600 files; a signature that
 * verifies with the published key and names it by kid; a JWKS without
 * private members; a rotation, seen by a set already open, whose new key
 * signs while the old one stays published.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include <cjose/cjose.h>
#include <jansson.h>

#include "server/lti_keys.h"
#include "util/fs.h"

/* Verifies the compact JWS with the JWKS key of its kid: the payload's
 * "sub" member, or NULL. Caller frees. */
static char *verify(json_t *jwks, const char *compact)
{
    cjose_err err;
    cjose_jws_t *jws = cjose_jws_import(compact, strlen(compact), &err);
    assert_non_null(jws);
    cjose_header_t *h = cjose_jws_get_protected(jws);
    assert_string_equal(cjose_header_get(h, CJOSE_HDR_ALG, &err), "RS256");
    const char *kid = cjose_header_get(h, CJOSE_HDR_KID, &err);
    assert_non_null(kid);
    char *sub = NULL;
    size_t i;
    json_t *key;
    json_array_foreach(json_object_get(jwks, "keys"), i, key)
    {
        if (strcmp(json_string_value(json_object_get(key, "kid")), kid))
            continue;
        cjose_jwk_t *jwk = cjose_jwk_import_json((cjose_header_t *)key, &err);
        assert_non_null(jwk);
        if (cjose_jws_verify(jws, jwk, &err)) {
            uint8_t *plain = NULL;
            size_t n = 0;
            assert_true(cjose_jws_get_plaintext(jws, &plain, &n, &err));
            json_t *claims = json_loadb((const char *)plain, n, 0, NULL);
            sub = strdup(json_string_value(json_object_get(claims, "sub")));
            json_decref(claims);
        }
        cjose_jwk_release(jwk);
    }
    cjose_jws_release(jws);
    return sub;
}

static void test_lti_keys(void **state)
{
    (void)state;
    char dir[] = "/tmp/attnjudge-lti-keys-XXXXXX", sub[512], err[256];
    struct stat sb;
    assert_non_null(mkdtemp(dir));
    struct lti_keys *k = lti_keys_open(dir, err, sizeof err);
    assert_non_null(k);
    snprintf(sub, sizeof sub, "%s/lti", dir);
    assert_int_equal(stat(sub, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);

    json_t *claims = json_pack("{s:s}", "sub", "tool"), *jwks = lti_keys_jwks(k);
    char *jws = lti_keys_sign(k, claims);
    assert_non_null(jws);
    assert_int_equal(json_array_size(json_object_get(jwks, "keys")), 1);
    json_t *key = json_array_get(json_object_get(jwks, "keys"), 0);
    /* public members only */
    assert_null(json_object_get(key, "d"));
    assert_null(json_object_get(key, "p"));
    assert_string_equal(json_string_value(json_object_get(key, "kty")), "RSA");
    assert_string_equal(json_string_value(json_object_get(key, "alg")), "RS256");
    char *got = verify(jwks, jws);
    assert_non_null(got);
    assert_string_equal(got, "tool");
    free(got);
    char kid1[128], kid2[128];
    lti_keys_kid(k, kid1, sizeof kid1);
    lti_keys_close(k);
    free(jws);
    json_decref(jwks);

    /* the same key at the next open */
    assert_non_null(k = lti_keys_open(dir, err, sizeof err));
    lti_keys_kid(k, kid2, sizeof kid2);
    assert_string_equal(kid2, kid1);

    /* a rotation while open: the new key signs at once, the old one is
     * still published */
    assert_int_equal(lti_keys_rotate(dir, err, sizeof err), 0);
    lti_keys_kid(k, kid2, sizeof kid2);
    assert_string_not_equal(kid2, kid1);
    jwks = lti_keys_jwks(k);
    assert_int_equal(json_array_size(json_object_get(jwks, "keys")), 2);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(jwks, "keys"), 1), "kid")),
        kid1);
    assert_non_null(jws = lti_keys_sign(k, claims));
    assert_non_null(got = verify(jwks, jws));
    cjose_err cerr;
    cjose_jws_t *parsed = cjose_jws_import(jws, strlen(jws), &cerr);
    assert_string_equal(cjose_header_get(cjose_jws_get_protected(parsed), CJOSE_HDR_KID, &cerr),
                        kid2);
    cjose_jws_release(parsed);
    free(got);
    free(jws);
    json_decref(jwks);
    lti_keys_close(k);

    /* every key file is the owner's alone */
    assert_int_equal(lti_keys_rotate(dir, err, sizeof err), 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -z \"$(find %s/lti -type f ! -perm 0600)\"", dir);
    assert_int_equal(system(cmd), 0);
    json_decref(claims);
    assert_int_equal(fs_remove_tree(dir), 0);
}

static void test_lti_keys_bad_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/attnjudge-lti-keys-XXXXXX", path[600], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/lti", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/lti/1.jwk", dir);
    assert_int_equal(fs_write_atomic(path, "{\"kty\":\"oct\",\"k\":\"AAAA\"}", 24, 0600), 0);
    /* a key that is not an RSA key is an error, not skipped */
    assert_null(lti_keys_open(dir, err, sizeof err));
    assert_non_null(strstr(err, "not an RSA private key"));
    assert_int_equal(fs_remove_tree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lti_keys),
        cmocka_unit_test(test_lti_keys_bad_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
