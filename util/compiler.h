/*
 * compiler — attributes every layer uses, in one place.
 */
#ifndef ATTNJUDGE_COMPILER_H
#define ATTNJUDGE_COMPILER_H

/* The result says whether the call worked (or owns memory): ignoring it is a
 * bug, so the compiler refuses it (-Werror). Cast to void does not silence
 * it; handle the result. */
#define MUST_CHECK __attribute__((warn_unused_result))

#endif
