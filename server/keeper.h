/*
 * keeper — the judge host's keeper thread: what a judging process does
 * for the other hosts besides judging (docs/operations.md, "Judge
 * hosts"). queue.c starts and stops it; it shares the queue's state
 * (server/workers.h).
 */
#ifndef ATTNJUDGE_SERVER_KEEPER_H
#define ATTNJUDGE_SERVER_KEEPER_H

struct queue;
struct store;

/* Hands back the claims of this machine's dead judge processes and every
 * expired lease, with s (the keeper's connection); logs what it did. Run
 * once before the workers claim anything. */
void keeper_recover(struct queue *q, struct store *s);

/* Starts the keeper thread on q->keeper_store: a heartbeat every third of
 * a lease, expired leases handed back, and (host.watch) the workers woken
 * on database writes. Returns 0 or pthread_create's error number. */
int keeper_start(struct queue *q);

/* Stops and joins the keeper, if it was started; the host leaves the
 * table (its claims are the caller's to settle). */
void keeper_stop(struct queue *q);

#endif
