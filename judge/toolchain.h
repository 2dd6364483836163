/*
 * toolchain — which compiler, linker and libc the compile sandbox sees,
 * as the text that goes into every cache key: a compiler, binutils or libc
 * upgrade changes the programs built, so it must change the key.
 */
#ifndef ATTNJUDGE_TOOLCHAIN_H
#define ATTNJUDGE_TOOLCHAIN_H

#include <stddef.h>

#include "util/compiler.h"

/* Writes the lines "gcc VERSION MACHINE", "ld FIRST-LINE-OF-VERSION",
 * "libc glibc VERSION" (each ending in '\n') to out (len bytes). The
 * answer is kept in <data_dir>/cache/toolchain after a fingerprint of the
 * files that decide it, and probed again in a compile sandbox when the
 * fingerprint changed or the file is unreadable. Returns 0 or -1 with err.
 * Runs only the trusted toolchain: safe beside the sandbox self-test. */
int toolchain_identify(const char *data_dir, char *out, size_t len, char *err,
                       size_t errlen) MUST_CHECK;

#endif
