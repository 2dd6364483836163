/*
 * workers — the state of one judging pool, shared by the worker threads
 * (queue.c) and the judge host's keeper (keeper.c), and by nothing else:
 * callers outside use server/queue.h.
 *
 * lock guards the workers' fields, pending, stopping and keeper_stop.
 */
#ifndef ATTNJUDGE_SERVER_WORKERS_H
#define ATTNJUDGE_SERVER_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/judge_host.h"
#include "server/store.h"

struct worker {
    struct queue *q;
    pthread_t thread;
    bool started;
    bool running;      /* thread has not exited */
    bool ready;        /* its database connection is open: it judges */
    int64_t id, claim; /* the submission in progress, 0 when idle */
};

struct queue {
    pthread_mutex_t lock;
    pthread_cond_t wake;   /* workers wait for work */
    pthread_cond_t exited; /* a worker became ready or exited */
    bool stopping;
    unsigned pending; /* notifications not yet consumed */
    char db_path[4096];
    bool sync_full;
    struct judge_ctx *judge;
    struct catalog *catalog;
    struct metrics *metrics;
    struct queue_bench bench;
    struct worker *w;
    int n;
    /* the judge host (docs/operations.md, "Judge hosts") */
    struct queue_host host;
    char name[STORE_HOST_NAME_LEN];
    char hostname[64];
    int64_t started_at;
    pthread_t keeper;
    bool keeper_started;
    bool keeper_stop;
    struct store *keeper_store; /* the keeper's connection */
};

/* Wakes a worker (queue_notify): one more notification, at most one per
 * worker, not yet consumed. */
static inline void workers_wake(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    if (q->pending < (unsigned)q->n)
        q->pending++;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
}

#endif
