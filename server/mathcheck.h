/*
 * mathcheck — the KaTeX rule of `attnjudge problem check`, applied to an
 * upload (docs/api.md, "Upload a problem"): a package whose math KaTeX
 * cannot render is refused, as check fails it.
 */
#ifndef ATTNJUDGE_SERVER_MATHCHECK_H
#define ATTNJUDGE_SERVER_MATHCHECK_H

#include <stddef.h>

#include "judge/problem.h"

/* Checks the math of the package p, whose files are in p->dir (statement,
 * hints, walkthrough), with judge_check_math and script (web/mathcheck.mjs;
 * "" = none). Returns 1 when some math does not render, with the first
 * such formula in err ("statement.md:LINE: KaTeX cannot render this math:
 * ..."); 0 otherwise. *checked says whether every file was checked; when
 * not (no node, no script, no web/node_modules), note (note_len bytes)
 * says why in one line naming no directory of the server, and the line
 * goes to the log too. */
int mathcheck_package(const char *script, const struct problem *p, char *err, size_t errlen,
                      bool *checked, char *note, size_t note_len);

#endif
