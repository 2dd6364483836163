/*
 * lti_outbox — grades back to the LMS (docs/lti.md, "Grades back"): the
 * front end's thread that notices grade changes and delivers them as AGS
 * scores through the durable outbox (server/lti_outbox_store.h).
 *
 * A grade is what the grades routes show: a problem link's best judged
 * score, an assignment link's total of best counted scores, late
 * penalties applied (assignments_totals). Rather than every writer of a
 * grade (a verdict on any judge host, a rejudge, a changed due date or
 * late policy) telling the outbox, the thread recomputes the grades of
 * every graded link every sync interval and queues those that differ from
 * the newest queued one: a change made by any process, or while this one
 * was down, is found at the next pass.
 */
#ifndef ATTNJUDGE_SERVER_LTI_OUTBOX_H
#define ATTNJUDGE_SERVER_LTI_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

struct lti_ags;
struct lti_keys;
struct store;

/* A claimed delivery's lease (ms): longer than its three requests'
 * timeouts, so only a sender that died loses its claim. */
#define LTI_OUTBOX_LEASE_MS 60000

struct lti_outbox_cfg {
    int sync_ms;       /* grades recomputed this often */
    int backoff_max_s; /* the longest wait between two tries of a delivery */
    int64_t lease_ms;  /* a claimed delivery's lease */
    bool sqlite;       /* one front end: claims left by a previous run are handed back at start */
};

struct lti_outbox;

/* Starts the thread on its own connection to db_url, signing with keys
 * (borrowed: it must outlive the outbox). NULL with err. */
struct lti_outbox *lti_outbox_start(const char *db_url, bool sync_full, const struct lti_keys *keys,
                                    const struct lti_outbox_cfg *cfg, char *err,
                                    size_t errlen) MUST_CHECK;

/* Stops and joins the thread; a delivery in flight ends first (at most
 * its request's timeout). NULL: nothing. */
void lti_outbox_stop(struct lti_outbox *o);

/* The AGS client the thread uses (its token cache), for the HTTP
 * handlers' NRPS calls. Borrowed, valid until lti_outbox_stop. */
struct lti_ags *lti_outbox_ags(struct lti_outbox *o);

/* Asks for a round now rather than after the current wait (an instructor
 * made a delivery due again). NULL: nothing. */
void lti_outbox_poke(struct lti_outbox *o);

/* One pass over every graded link with s: the grades that changed
 * queued, *queued counting them. 0 or -1 (store_error(s)). */
int lti_outbox_reconcile(struct store *s, int64_t now, int *queued) MUST_CHECK;

#endif
