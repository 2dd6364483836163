/*
 * cache — the judge's trusted programs and where their builds are kept:
 * the harness object, the reference and the known mistakes, each compiled
 * once per problem version and toolchain under <data>/cache/<key>/, where
 * key hashes everything that could change the product or its outputs
 * (problem.json, the sources, the harness, the flags, the toolchain).
 * Expected outputs are cached in the same directory (testdata.h).
 *
 * A cache that cannot be written only costs time; a file read from it is
 * opened with O_NOFOLLOW and never trusted beyond its size limit.
 */
#ifndef ATTNJUDGE_CACHE_H
#define ATTNJUDGE_CACHE_H

#include <stddef.h>

#include "judge/compile.h"
#include "judge/context.h"
#include "judge/problem.h"
#include "util/compiler.h"

/* build_program with p's harness object from the cache (built there first
 * if missing). Returns 0, or -1 with err; build_free either way. */
int build_make(struct build *b, const struct judge_ctx *ctx, const struct problem *p,
               const char *source, size_t len, const char *filename, char *err,
               size_t errlen) MUST_CHECK;

/* Opens a trusted program of the package, the reference or a known
 * mistake (source at src_path, compiled as filename), compiling it on a
 * cache miss. dir receives the cache directory of this build: the key
 * covers the source, so each mistake has its own directory and its own
 * cached outputs, under the same discipline as the reference's. Returns 0
 * with *exe a read-only memfd, or -1 with err. */
int package_program(const struct judge_ctx *ctx, const struct problem *p, const char *src_path,
                    const char *filename, char *dir, size_t dirlen, int *exe, char *err,
                    size_t errlen) MUST_CHECK;

/* package_program's work for a source already in memory (src_len bytes):
 * a trusted program of the judge's own, such as the empty function the
 * benchmark measures its overhead with. */
int program_from_text(const struct judge_ctx *ctx, const struct problem *p, const char *src,
                      size_t src_len, const char *filename, char *dir, size_t dirlen, int *exe,
                      char *err, size_t errlen) MUST_CHECK;

/* Opens the reference program; dir receives its cache directory. */
int reference_program(const struct judge_ctx *ctx, const struct problem *p, char *dir,
                      size_t dirlen, int *exe, char *err, size_t errlen) MUST_CHECK;

#endif
