/*
 * errbuf — the judge's error convention: functions return 0 / -1 (or NULL)
 * and describe the failure in a caller-owned buffer.
 */
#ifndef ATTNJUDGE_ERRBUF_H
#define ATTNJUDGE_ERRBUF_H

#include <stddef.h>

/* Formats a message into err (errlen bytes, always NUL-terminated when
 * errlen > 0); err may be NULL. */
void errbuf_set(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
