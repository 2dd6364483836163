/*
 * poolkey — which sources share one benchmark measurement
 * (docs/performance.md, "Resubmitting does not re-roll the dice").
 *
 * The key is a BLAKE2b-256 digest of the source's tokens (ctoken.h), with
 * comments and layout removed and the local variables and parameters of
 * functions renamed by their order of first appearance. Everything else
 * stays as written, so that two sources share a key only if they compile
 * to the same behaviour:
 *  - literals (a changed constant is another program), operators as the
 *    compiler reads them ("a + ++b" is not "a++ + b"), keywords, and
 *    preprocessor lines, token by token;
 *  - every name that can refer to something outside the function: file-
 *    scope names (the function the harness calls, helpers, globals),
 *    called names (expf is not logf, a function-like macro is not a
 *    function pointer), member names (r.quot is not r.rem), type names
 *    and every name a preprocessor line mentions;
 *  - a local is renamed only when every appearance of its name lies in
 *    the scope of one of its declarations; a declaration the reader
 *    cannot recognise keeps its name, which costs a second measurement,
 *    never a wrong figure;
 *  - no name is renamed in a source whose macros stringize or paste
 *    tokens ('#x', 'a##b'): there a name's spelling can be behaviour.
 */
#ifndef ATTNJUDGE_JUDGE_POOLKEY_H
#define ATTNJUDGE_JUDGE_POOLKEY_H

#include <stddef.h>

#define POOLKEY_LEN 64 /* hex digits, without the NUL */

/* The key of source[0..len) as POOLKEY_LEN hex digits and a NUL in key.
 * 0, or -1 when out of memory. */
int poolkey_of(const char *source, size_t len, char key[POOLKEY_LEN + 1]);

#endif
