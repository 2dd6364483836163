/*
 * db_pg — the PostgreSQL backend of server/db.h, over libpq.
 *
 * Theory of operation. A statement is written with SQLite's ?-placeholders;
 * db_prepare rewrites them to $1..$n once (db_pg_placeholders). It is
 * prepared on the server (PQprepare, under a name never reused on the
 * connection) at its first db_step, with the parameter types of that
 * step's bindings: int64 as int8, double as float8, text as text, blobs as
 * bytea (sent in binary), NULL as "unknown", which the server infers from
 * where the parameter stands. The types are fixed at prepare time, so a later step with
 * other types (an int64 where a NULL was) prepares it again. Values travel
 * as text; the whole result of a step is fetched at once (the store's
 * reads are bounded by their LIMITs) and db_step walks its rows.
 *
 * Failures: the SQLSTATE decides the class (db.h). A connection that went
 * bad makes every statement of the connection stale: db_reconnect (or the
 * next db_step outside a transaction) opens it again, bumps a generation
 * number that tells each statement to prepare itself again, sets the
 * session's settings and LISTENs on the channels again.
 *
 * Transactions: db_begin is BEGIN (READ COMMITTED) and a transaction-scoped
 * advisory lock held until COMMIT or ROLLBACK, one key for all, so write
 * transactions run one at a time as they do on SQLite; db_begin_concurrent
 * is the BEGIN without the lock. lock_timeout (5 s,
 * SQLite's busy timeout) bounds every lock wait: past it, DB_TRANSIENT.
 */
#include "server/db_impl.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/pq.h"
#include "util/clock.h"

/* PostgreSQL's oids of its built-in types, fixed across versions */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_TEXT 25
#define OID_FLOAT8 701

/* the advisory lock every db_begin takes: "atnj" */
#define WRITE_LOCK_KEY "1635020394"
#define MAX_CHANNELS 8
#define MAX_PARAMS 65535 /* the protocol's limit */

/* libpq's functions (server/pq.h), set by db_pg_open (always to the same
 * table; atomic, as threads open connections at once): every other
 * function here works on a connection it opened */
static const struct pq_api *_Atomic pq;

struct pg_db {
    struct db base;
    PGconn *conn;
    unsigned gen;                    /* bumped by each reconnect */
    unsigned long long next_name;    /* prepared statements s1, s2, ... */
    bool in_tx;                      /* between db_begin and commit / rollback */
    bool tx_lost;                    /* the connection died inside it */
    char channels[MAX_CHANNELS][64]; /* LISTENed, again after a reconnect */
    int n_channels;
};

struct pg_stmt {
    struct db_stmt base;
    char *sql; /* with $N placeholders */
    int nparams;
    char **values; /* [nparams], malloc'd; NULL is SQL NULL */
    int *lengths, *formats;
    Oid *types;      /* of the current bindings */
    Oid *prep_types; /* the prepared statement's */
    char name[32];   /* "" until prepared */
    unsigned gen;    /* the connection's generation it was prepared in */
    PGresult *res;   /* the step's result, NULL before the first step */
    bool ran;
    int row;             /* the current row of res, -1 before the first */
    char **decoded;      /* [PQnfields] decoded bytea values of the current row */
    size_t *decoded_len; /* their bytes */
    int n_decoded;
};

static struct pg_db *pg(struct db *db)
{
    return (struct pg_db *)db;
}

static struct pg_stmt *ps(struct db_stmt *st)
{
    return (struct pg_stmt *)st;
}

/* ---- failures ---- */

static bool transient_state(const char *s)
{
    return strncmp(s, "08", 2) == 0 || /* connection exception */
           strcmp(s, "40001") == 0 ||  /* serialization failure */
           strcmp(s, "40P01") == 0 ||  /* deadlock detected */
           strcmp(s, "55P03") == 0 ||  /* lock not available: lock_timeout */
           strcmp(s, "57P01") == 0 ||  /* admin shutdown (also pg_terminate_backend) */
           strcmp(s, "57P02") == 0 ||  /* crash shutdown */
           strcmp(s, "57P03") == 0;    /* cannot connect now (starting up) */
}

/* Records the failure of a command (res may be NULL: a client-side
 * failure); -1. A connection lost inside a transaction dooms it. */
static int fail_res(struct pg_db *p, const char *what, const PGresult *res)
{
    const char *state = res ? pq->PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = res ? pq->PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    enum db_errclass cls = DB_FAILED;
    if (pq->PQstatus(p->conn) != CONNECTION_OK || (state && transient_state(state)))
        cls = DB_TRANSIENT;
    else if (state && strcmp(state, "23505") == 0)
        cls = DB_UNIQUE;
    if (pq->PQstatus(p->conn) != CONNECTION_OK && p->in_tx)
        p->tx_lost = true;
    if (primary)
        return db_fail(&p->base, cls, "%s: %s (SQLSTATE %s)", what, primary, state ? state : "?");
    return db_fail(&p->base, cls, "%s: %s", what, pq->PQerrorMessage(p->conn));
}

/* Runs a command without parameters whose result is not needed: 0 or -1. */
static int command(struct pg_db *p, const char *what, const char *sql)
{
    PGresult *r = pq->PQexec(p->conn, sql);
    ExecStatusType es = pq->PQresultStatus(r);
    int rc = es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK || es == PGRES_EMPTY_QUERY
                 ? 0
                 : fail_res(p, what, r);
    pq->PQclear(r);
    return rc;
}

/* ---- connection ---- */

/* libpq prints the server's notices (NOTICE: table does not exist,
 * skipping) on stderr by default; the server's log is no place for them. */
static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* What every new or renewed session needs: lock_timeout, the LISTENs. */
static int session_setup(struct pg_db *p)
{
    pq->PQsetNoticeProcessor(p->conn, ignore_notice, NULL);
    if (command(p, "session", "SET lock_timeout = '5s'") < 0)
        return -1;
    for (int i = 0; i < p->n_channels; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "LISTEN %s", p->channels[i]);
        if (command(p, "listen", sql) < 0)
            return -1;
    }
    return 0;
}

static int pg_reconnect(struct db *db)
{
    struct pg_db *p = pg(db);
    pq->PQreset(p->conn);
    p->gen++;
    p->in_tx = p->tx_lost = false;
    if (pq->PQstatus(p->conn) != CONNECTION_OK)
        return db_fail(db, DB_TRANSIENT, "reconnect: %s", pq->PQerrorMessage(p->conn));
    return session_setup(p);
}

/* Before a command: the connection is usable, or is made so (outside a
 * transaction), or the call fails. */
static int ready(struct pg_db *p)
{
    if (p->tx_lost)
        return db_fail(&p->base, DB_TRANSIENT,
                       "the connection was lost inside a transaction (roll it back)");
    if (pq->PQstatus(p->conn) == CONNECTION_OK)
        return 0;
    if (p->in_tx) {
        p->tx_lost = true;
        return db_fail(&p->base, DB_TRANSIENT,
                       "the connection was lost inside a transaction (roll it back)");
    }
    return pg_reconnect(&p->base);
}

static void pg_close(struct db *db)
{
    pq->PQfinish(pg(db)->conn);
    free(db);
}

static int pg_exec(struct db *db, const char *script)
{
    struct pg_db *p = pg(db);
    return ready(p) < 0 ? -1 : command(p, "exec", script);
}

/* ---- placeholders ---- */

char *db_pg_placeholders(const char *sql, int *nparams)
{
    size_t len = strlen(sql);
    /* a "?" becomes at most "$65535" */
    char *out = malloc(len * 6 + 1);
    if (!out)
        return NULL;
    char *o = out;
    int max = 0;
    const char *s = sql;
    while (*s) {
        if (*s == '\'' || *s == '"') {
            /* a literal or quoted identifier; a doubled quote stays inside;
             * E'...' strings also escape with a backslash */
            char q = *s;
            bool backslash = q == '\'' && s > sql && (s[-1] == 'E' || s[-1] == 'e');
            *o++ = *s++;
            while (*s) {
                if (backslash && *s == '\\' && s[1]) {
                    *o++ = *s++;
                    *o++ = *s++;
                } else if (*s == q && s[1] == q) {
                    *o++ = *s++;
                    *o++ = *s++;
                } else if (*s == q) {
                    *o++ = *s++;
                    break;
                } else {
                    *o++ = *s++;
                }
            }
        } else if (s[0] == '-' && s[1] == '-') {
            while (*s && *s != '\n')
                *o++ = *s++;
        } else if (s[0] == '/' && s[1] == '*') {
            *o++ = *s++;
            *o++ = *s++;
            while (*s && !(s[0] == '*' && s[1] == '/'))
                *o++ = *s++;
            if (*s) {
                *o++ = *s++;
                *o++ = *s++;
            }
        } else if (*s == '?') {
            s++;
            long n = max + 1; /* "?": one more than the highest so far (SQLite's rule) */
            if (*s >= '0' && *s <= '9') {
                n = 0;
                while (*s >= '0' && *s <= '9' && n <= MAX_PARAMS)
                    n = n * 10 + (*s++ - '0');
            }
            if (n < 1 || n > MAX_PARAMS) {
                free(out);
                return NULL;
            }
            if (n > max)
                max = (int)n;
            o += sprintf(o, "$%ld", n);
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    *nparams = max;
    return out;
}

/* ---- statements ---- */

static void free_decoded(struct pg_stmt *s)
{
    for (int i = 0; i < s->n_decoded; i++) {
        free(s->decoded[i]);
        s->decoded[i] = NULL;
    }
}

static void clear_values(struct pg_stmt *s)
{
    for (int i = 0; i < s->nparams; i++) {
        free(s->values[i]);
        s->values[i] = NULL;
        s->lengths[i] = s->formats[i] = 0;
        s->types[i] = 0;
    }
}

static void pg_reset(struct db_stmt *st)
{
    struct pg_stmt *s = ps(st);
    free_decoded(s);
    pq->PQclear(s->res);
    s->res = NULL;
    s->ran = false;
    s->row = -1;
    clear_values(s);
}

static void pg_finalize(struct db_stmt *st)
{
    struct pg_stmt *s = ps(st);
    struct pg_db *p = pg(st->db);
    pg_reset(st);
    /* the server's copy: best effort (a lost connection took it already) */
    if (s->name[0] && s->gen == p->gen && pq->PQstatus(p->conn) == CONNECTION_OK && !p->in_tx) {
        char sql[64];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", s->name);
        pq->PQclear(pq->PQexec(p->conn, sql));
    }
    free(s->decoded);
    free(s->decoded_len);
    free(s->values);
    free(s->lengths);
    free(s->formats);
    free(s->types);
    free(s->prep_types);
    free(s->sql);
    free(s);
}

static struct db_stmt *pg_prepare(struct db *db, const char *sql)
{
    struct pg_stmt *s = calloc(1, sizeof *s);
    if (!s)
        goto oom;
    s->base.db = db;
    s->row = -1;
    s->sql = db_pg_placeholders(sql, &s->nparams);
    if (!s->sql) {
        free(s);
        db_fail(db, DB_FAILED, "prepare: a ?N out of 1..%d, or out of memory", MAX_PARAMS);
        return NULL;
    }
    size_t n = s->nparams ? (size_t)s->nparams : 1;
    s->values = calloc(n, sizeof *s->values);
    s->lengths = calloc(n, sizeof *s->lengths);
    s->formats = calloc(n, sizeof *s->formats);
    s->types = calloc(n, sizeof *s->types);
    s->prep_types = calloc(n, sizeof *s->prep_types);
    if (!s->values || !s->lengths || !s->formats || !s->types || !s->prep_types) {
        pg_finalize(&s->base);
        goto oom;
    }
    return &s->base;
oom:
    db_fail(db, DB_FAILED, "prepare: out of memory");
    return NULL;
}

static int pg_bind(struct db_stmt *st, int i, const struct db_value *v)
{
    struct pg_stmt *s = ps(st);
    if (i > s->nparams)
        return db_fail(st->db, DB_FAILED, "bind: parameter %d of %d", i, s->nparams);
    int k = i - 1;
    free(s->values[k]);
    s->values[k] = NULL;
    s->lengths[k] = s->formats[k] = 0;
    s->types[k] = 0;
    char num[40];
    const char *text = NULL;
    switch (v->type) {
    case DB_T_INT64:
        snprintf(num, sizeof num, "%lld", (long long)v->i);
        text = num;
        s->types[k] = OID_INT8;
        break;
    case DB_T_DOUBLE:
        if (isnan(v->d))
            snprintf(num, sizeof num, "NaN");
        else if (isinf(v->d))
            snprintf(num, sizeof num, "%sInfinity", v->d < 0 ? "-" : "");
        else
            snprintf(num, sizeof num, "%.17g", v->d);
        text = num;
        s->types[k] = OID_FLOAT8;
        break;
    case DB_T_TEXT:
        s->values[k] = malloc(v->n + 1);
        if (!s->values[k])
            return db_fail(st->db, DB_FAILED, "bind: out of memory");
        memcpy(s->values[k], v->p, v->n);
        s->values[k][v->n] = '\0';
        s->types[k] = OID_TEXT;
        return 0;
    case DB_T_BLOB:
        if (v->n > (size_t)0x7fffffff)
            return db_fail(st->db, DB_FAILED, "bind: blob of %zu bytes", v->n);
        s->values[k] = malloc(v->n ? v->n : 1);
        if (!s->values[k])
            return db_fail(st->db, DB_FAILED, "bind: out of memory");
        memcpy(s->values[k], v->p, v->n);
        s->lengths[k] = (int)v->n;
        s->formats[k] = 1;
        s->types[k] = OID_BYTEA;
        return 0;
    default: return 0;
    }
    s->values[k] = strdup(text);
    return s->values[k] ? 0 : db_fail(st->db, DB_FAILED, "bind: out of memory");
}

/* Prepares s on the server unless it is already, in this connection's
 * generation and with the current parameter types. */
static int prepare_on_server(struct pg_db *p, struct pg_stmt *s)
{
    size_t tsize = (size_t)s->nparams * sizeof *s->types;
    if (s->name[0] && s->gen == p->gen && memcmp(s->types, s->prep_types, tsize) == 0)
        return 0;
    if (s->name[0] && s->gen == p->gen) {
        char sql[64];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", s->name);
        pq->PQclear(pq->PQexec(p->conn, sql));
    }
    s->name[0] = '\0';
    char name[32];
    snprintf(name, sizeof name, "s%llu", ++p->next_name);
    PGresult *r = pq->PQprepare(p->conn, name, s->sql, s->nparams, s->types);
    int rc = pq->PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : fail_res(p, "prepare", r);
    pq->PQclear(r);
    if (rc == 0) {
        snprintf(s->name, sizeof s->name, "%s", name);
        s->gen = p->gen;
        if (tsize)
            memcpy(s->prep_types, s->types, tsize);
    }
    return rc;
}

/* The row count of an INSERT, UPDATE, DELETE or MERGE (db_changes). */
static void note_changes(struct pg_db *p, PGresult *r)
{
    const char *tag = pq->PQcmdStatus(r);
    if (strncmp(tag, "INSERT", 6) == 0 || strncmp(tag, "UPDATE", 6) == 0 ||
        strncmp(tag, "DELETE", 6) == 0 || strncmp(tag, "MERGE", 5) == 0)
        p->base.changes = strtoll(pq->PQcmdTuples(r), NULL, 10);
}

static int pg_step(struct db_stmt *st)
{
    struct pg_stmt *s = ps(st);
    struct pg_db *p = pg(st->db);
    free_decoded(s);
    if (!s->ran) {
        if (ready(p) < 0 || prepare_on_server(p, s) < 0)
            return -1;
        PGresult *r = pq->PQexecPrepared(p->conn, s->name, s->nparams,
                                         (const char *const *)s->values, s->lengths, s->formats, 0);
        ExecStatusType es = pq->PQresultStatus(r);
        if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
            fail_res(p, "step", r);
            pq->PQclear(r);
            return -1;
        }
        note_changes(p, r);
        s->res = r;
        s->ran = true;
        s->row = -1;
    }
    if (s->row + 1 < pq->PQntuples(s->res)) {
        s->row++;
        return DB_ROW;
    }
    s->row = pq->PQntuples(s->res);
    return DB_DONE;
}

/* ---- columns ---- */

static bool pg_column_null(struct db_stmt *st, int col)
{
    struct pg_stmt *s = ps(st);
    return !s->res || col < 0 || col >= pq->PQnfields(s->res) || s->row < 0 ||
           s->row >= pq->PQntuples(s->res) || pq->PQgetisnull(s->res, s->row, col);
}

/* A boolean's "t" reads as 1, "f" as 0 (SQLite's comparisons are 1 / 0). */
static const char *number_text(struct pg_stmt *s, int col)
{
    if (pg_column_null(&s->base, col))
        return NULL;
    const char *v = pq->PQgetvalue(s->res, s->row, col);
    if (pq->PQftype(s->res, col) == OID_BOOL)
        return v[0] == 't' ? "1" : "0";
    return v;
}

static int64_t pg_column_int64(struct db_stmt *st, int col)
{
    const char *v = number_text(ps(st), col);
    return v ? strtoll(v, NULL, 10) : 0;
}

static double pg_column_double(struct db_stmt *st, int col)
{
    const char *v = number_text(ps(st), col);
    return v ? strtod(v, NULL) : 0.0;
}

/* A bytea column's value decoded from its text form (\x...), kept with a
 * NUL after it until the next step or reset. */
static const char *decoded(struct pg_stmt *s, int col, size_t *n)
{
    if (!s->decoded) {
        size_t k = (size_t)pq->PQnfields(s->res);
        s->decoded = calloc(k, sizeof *s->decoded);
        s->decoded_len = calloc(k, sizeof *s->decoded_len);
        if (!s->decoded || !s->decoded_len) {
            free(s->decoded);
            free(s->decoded_len);
            s->decoded = NULL;
            s->decoded_len = NULL;
            return NULL;
        }
        s->n_decoded = (int)k;
    }
    if (!s->decoded[col]) {
        size_t len = 0;
        unsigned char *raw =
            pq->PQunescapeBytea((const unsigned char *)pq->PQgetvalue(s->res, s->row, col), &len);
        if (!raw)
            return NULL;
        s->decoded[col] = malloc(len + 1);
        if (s->decoded[col]) {
            memcpy(s->decoded[col], raw, len);
            s->decoded[col][len] = '\0';
        }
        pq->PQfreemem(raw);
        if (!s->decoded[col])
            return NULL;
        s->decoded_len[col] = len;
    }
    *n = s->decoded_len[col];
    return s->decoded[col];
}

static const void *pg_column_blob(struct db_stmt *st, int col, size_t *n)
{
    struct pg_stmt *s = ps(st);
    *n = 0;
    if (pg_column_null(st, col))
        return NULL;
    if (pq->PQftype(s->res, col) == OID_BYTEA)
        return decoded(s, col, n);
    *n = (size_t)pq->PQgetlength(s->res, s->row, col);
    return pq->PQgetvalue(s->res, s->row, col);
}

static const char *pg_column_text(struct db_stmt *st, int col)
{
    struct pg_stmt *s = ps(st);
    if (pg_column_null(st, col))
        return NULL;
    size_t n;
    if (pq->PQftype(s->res, col) == OID_BYTEA)
        return decoded(s, col, &n);
    return pq->PQgetvalue(s->res, s->row, col);
}

/* ---- transactions ---- */

static int pg_begin(struct db *db, bool alone)
{
    struct pg_db *p = pg(db);
    if (ready(p) < 0)
        return -1;
    if (p->in_tx)
        return db_fail(db, DB_FAILED, "begin: a transaction is open already");
    /* one query string: BEGIN stays open after it, with the lock */
    PGresult *r = pq->PQexec(p->conn, alone ? "BEGIN ISOLATION LEVEL READ COMMITTED;"
                                              " SELECT pg_advisory_xact_lock(" WRITE_LOCK_KEY ")"
                                            : "BEGIN ISOLATION LEVEL READ COMMITTED");
    ExecStatusType want = alone ? PGRES_TUPLES_OK : PGRES_COMMAND_OK;
    int rc = pq->PQresultStatus(r) == want ? 0 : fail_res(p, "begin", r);
    pq->PQclear(r);
    if (rc < 0) {
        if (pq->PQstatus(p->conn) == CONNECTION_OK)
            pq->PQclear(pq->PQexec(p->conn, "ROLLBACK"));
        return -1;
    }
    p->in_tx = true;
    return 0;
}

static int pg_commit(struct db *db)
{
    struct pg_db *p = pg(db);
    if (ready(p) < 0)
        return -1;
    /* PostgreSQL only warns; SQLite fails, and so does this */
    if (!p->in_tx)
        return db_fail(db, DB_FAILED, "commit: no transaction is open");
    PGresult *r = pq->PQexec(p->conn, "COMMIT");
    int rc;
    if (pq->PQresultStatus(r) != PGRES_COMMAND_OK)
        rc = fail_res(p, "commit", r);
    else if (strcmp(pq->PQcmdStatus(r), "COMMIT") !=
             0) /* an aborted transaction answers ROLLBACK */
        rc = db_fail(db, DB_FAILED, "commit: the transaction had failed and was rolled back");
    else
        rc = 0;
    pq->PQclear(r);
    if (!p->tx_lost)
        p->in_tx = false;
    return rc;
}

static void pg_rollback(struct db *db)
{
    struct pg_db *p = pg(db);
    /* the error that led here stays in db->err; with no transaction open
     * (libpq knows without asking the server) there is nothing to send:
     * the store's pool rolls back every connection it gets back */
    if (pq->PQstatus(p->conn) == CONNECTION_OK && pq->PQtransactionStatus(p->conn) != PQTRANS_IDLE)
        pq->PQclear(pq->PQexec(p->conn, "ROLLBACK"));
    p->in_tx = p->tx_lost = false;
}

/* ---- notifications ---- */

static int pg_listen(struct db *db, const char *channel)
{
    struct pg_db *p = pg(db);
    int i = 0;
    while (i < p->n_channels && strcmp(p->channels[i], channel) != 0)
        i++;
    if (i == MAX_CHANNELS)
        return db_fail(db, DB_FAILED, "listen: more than %d channels", MAX_CHANNELS);
    if (ready(p) < 0)
        return -1;
    char sql[96];
    snprintf(sql, sizeof sql, "LISTEN %s", channel);
    if (command(p, "listen", sql) < 0)
        return -1;
    if (i == p->n_channels)
        snprintf(p->channels[p->n_channels++], sizeof p->channels[0], "%s", channel);
    return 0;
}

static int pg_notify(struct db *db, const char *channel, const char *payload)
{
    struct pg_db *p = pg(db);
    if (ready(p) < 0)
        return -1;
    const char *values[2] = {channel, payload ? payload : ""};
    PGresult *r =
        pq->PQexecParams(p->conn, "SELECT pg_notify($1, $2)", 2, NULL, values, NULL, NULL, 0);
    int rc = pq->PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : fail_res(p, "notify", r);
    pq->PQclear(r);
    return rc;
}

static int pg_wait_notify(struct db *db, int timeout_ms, char *channel, size_t len)
{
    struct pg_db *p = pg(db);
    if (ready(p) < 0)
        return -1;
    double deadline = clock_mono_ms() + timeout_ms;
    bool polled = false; /* the socket is read once even with no time left */
    for (;;) {
        /* notifications read along with earlier results come first */
        PGnotify *n = pq->PQnotifies(p->conn);
        if (n) {
            if (channel && len)
                snprintf(channel, len, "%s", n->relname);
            pq->PQfreemem(n);
            return 1;
        }
        double left = deadline - clock_mono_ms();
        if (polled && left <= 0)
            return 0;
        struct pollfd pfd = {.fd = pq->PQsocket(p->conn), .events = POLLIN};
        if (pfd.fd < 0)
            return fail_res(p, "wait", NULL);
        int r = poll(&pfd, 1, left > 0 ? (int)left + 1 : 0);
        polled = true;
        if (r < 0 && errno != EINTR)
            return db_fail(db, DB_FAILED, "wait: poll: %s", strerror(errno));
        if (r > 0 && (!pq->PQconsumeInput(p->conn) || pq->PQstatus(p->conn) != CONNECTION_OK))
            return fail_res(p, "wait", NULL);
    }
}

static const struct db_ops pg_ops = {
    .close = pg_close,
    .exec = pg_exec,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .bind = pg_bind,
    .step = pg_step,
    .reset = pg_reset,
    .column_null = pg_column_null,
    .column_int64 = pg_column_int64,
    .column_double = pg_column_double,
    .column_text = pg_column_text,
    .column_blob = pg_column_blob,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .reconnect = pg_reconnect,
    .listen = pg_listen,
    .notify = pg_notify,
    .wait_notify = pg_wait_notify,
};

struct db *db_pg_open(const char *url, char *err, size_t errlen)
{
    struct pg_db *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->base.ops = &pg_ops;
    p->base.backend = DB_POSTGRESQL;
    if (!(pq = pq_load(PQ_LIBRARY, err, errlen))) {
        free(p);
        return NULL;
    }
    /* defaults first: the URL's own settings override them */
    const char *const keys[] = {"connect_timeout", "application_name", "client_encoding", "dbname",
                                NULL};
    const char *const values[] = {"10", "attnjudge", "UTF8", url, NULL};
    p->conn = pq->PQconnectdbParams(keys, values, 1);
    if (!p->conn) {
        snprintf(err, errlen, "postgresql: out of memory");
        free(p);
        return NULL;
    }
    if (pq->PQstatus(p->conn) != CONNECTION_OK || session_setup(p) < 0) {
        snprintf(err, errlen, "postgresql: %s",
                 pq->PQstatus(p->conn) != CONNECTION_OK ? pq->PQerrorMessage(p->conn)
                                                        : p->base.err);
        size_t n = strlen(err);
        while (n > 0 && err[n - 1] == '\n')
            err[--n] = '\0';
        pg_close(&p->base);
        return NULL;
    }
    return &p->base;
}
