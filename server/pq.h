/*
 * pq — libpq, loaded when the first PostgreSQL connection is opened.
 *
 * libpq brings OpenSSL, Kerberos and LDAP along; mapping and relocating
 * them cost every start of the attnjudge binary about 5 ms, which
 * `attnjudge judge` (about a fifth of its start-up), every other command
 * and every SQLite deployment paid for a library they never call (docs/architecture.md, "Where the time goes").
 * The binary therefore does not link it: db_pg.c calls it through this
 * table, filled by dlopen on first use. The build still needs libpq-fe.h,
 * and a PostgreSQL deployment libpq.so.5 (Debian's libpq5).
 */
#ifndef ATTNJUDGE_PQ_H
#define ATTNJUDGE_PQ_H

#include <stddef.h>

#include <libpq-fe.h>

#include "util/compiler.h"

/* Every libpq function db_pg.c calls. */
#define PQ_FUNCTIONS(X)                                                                            \
    X(PQclear)                                                                                     \
    X(PQcmdStatus)                                                                                 \
    X(PQcmdTuples)                                                                                 \
    X(PQconnectdbParams)                                                                           \
    X(PQconsumeInput)                                                                              \
    X(PQerrorMessage)                                                                              \
    X(PQexec)                                                                                      \
    X(PQexecParams)                                                                                \
    X(PQexecPrepared)                                                                              \
    X(PQfinish)                                                                                    \
    X(PQfreemem)                                                                                   \
    X(PQftype)                                                                                     \
    X(PQgetisnull)                                                                                 \
    X(PQgetlength)                                                                                 \
    X(PQgetvalue)                                                                                  \
    X(PQnfields)                                                                                   \
    X(PQnotifies)                                                                                  \
    X(PQntuples)                                                                                   \
    X(PQprepare)                                                                                   \
    X(PQreset)                                                                                     \
    X(PQresultErrorField)                                                                          \
    X(PQresultStatus)                                                                              \
    X(PQsetNoticeProcessor)                                                                        \
    X(PQsocket)                                                                                    \
    X(PQstatus)                                                                                    \
    X(PQtransactionStatus)                                                                         \
    X(PQunescapeBytea)

struct pq_api {
#define PQ_MEMBER(name) __typeof__(name) *name;
    PQ_FUNCTIONS(PQ_MEMBER)
#undef PQ_MEMBER
};

/* The library whose functions pq_load returns. */
#define PQ_LIBRARY "libpq.so.5"

/* Loads library (PQ_LIBRARY, or another for a test) once per process,
 * safe from several threads; later calls return the same table. Returns
 * the table, or NULL with err saying what is missing and what to install.
 * A failure is not remembered: the next call tries again. */
const struct pq_api *pq_load(const char *library, char *err, size_t errlen) MUST_CHECK;

#endif
