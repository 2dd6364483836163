/*
 * protocheck — does the statement document the function students must
 * write? A statement's code block that declares the problem's function
 * with another parameter list (a scaffold's prototype left in place, a
 * parameter added to problem.json but not to the statement) misleads
 * every student, who compiles against the prototype the judge generates
 * from problem.json (judge/harness.c).
 */
#ifndef ATTNJUDGE_PROTOCHECK_H
#define ATTNJUDGE_PROTOCHECK_H

#include "judge/check.h"
#include "judge/problem.h"

/* Finds, in every fenced code block of p's statement.md, each declaration
 * or definition of p->function (a type before the name; a call is not
 * one) and compares its parameter list with harness_prototype()'s: the
 * number of parameters and each one's type, white space and parameter
 * names aside. Reports each mismatch as one line naming statement.md's
 * line and both prototypes. Returns the number of mismatches. A mismatch
 * is a warning: the package still works (docs/authoring.md). */
int protocheck_statement(const struct problem *p, judge_check_report_fn warn, void *arg);

#endif
