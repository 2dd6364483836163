/*
 * secret — the per-deployment secret and the hidden tests' seeds.
 *
 * The secret is 32 random bytes in <data>/secret.key, created on first use
 * with mode 0600 (O_EXCL, so two processes starting at once agree on one).
 * Hidden seeds are keyed BLAKE2b hashes of (slug, test name): they cannot be
 * guessed without the secret and never leave the judge process.
 */
#ifndef ATTNJUDGE_SECRET_H
#define ATTNJUDGE_SECRET_H

#include <stddef.h>
#include <stdint.h>

#define SECRET_BYTES 32

struct secret {
    unsigned char key[SECRET_BYTES];
};

/* Loads <data_dir>/secret.key, creating data_dir (0700) and the key (0600)
 * if missing. Refuses a key file that is not a regular file of exactly
 * SECRET_BYTES or is readable by group/others. Returns 0 or -1 with err. */
int secret_load(const char *data_dir, struct secret *s, char *err, size_t errlen);
/* Loads the key at path (the `secret_file` of a host): it must exist, be
 * SECRET_BYTES long and not be accessible to group or others. */
int secret_load_file(const char *path, struct secret *s, char *err, size_t errlen);

/* The seed of hidden test `test` of problem `slug`. */
uint64_t secret_hidden_seed(const struct secret *s, const char *slug, const char *test);

#endif
