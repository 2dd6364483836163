/*
 * keeper — this process as a judge host: recovery of dead hosts' claims,
 * the heartbeat that renews its leases, and the wake-ups of its workers
 * on other processes' writes (see keeper.h).
 *
 * Every process that judges (serve with workers, `attnjudge worker`) is a
 * judge host named hostname/pid/random. Each claim records its holder and
 * a lease; the keeper thread's heartbeat renews the host's leases every
 * third of a lease and records its load (judge_hosts), and hands back to
 * the queue any claim whose lease ran out: its holder died without a
 * word. A worker process has no one to call queue_notify for it: the
 * keeper listens for the database's announcements (PostgreSQL) or watches
 * its write-ahead log with inotify (SQLite) and wakes the workers when
 * another process writes (no polling of an idle queue).
 *
 * Crash safety: at start, the claims of this machine's judge processes
 * that no longer exist go back to the queue at once, and those of other
 * machines when their lease expires.
 */
#include "server/keeper.h"

#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "server/metrics.h"
#include "server/store.h"
#include "server/workers.h"
#include "util/clock.h"

/* Dead judge processes of this machine, found by store_hosts. */
struct dead_hosts {
    const struct queue *q;
    char (*names)[STORE_HOST_NAME_LEN];
    size_t n, cap;
};

/* A host row of this machine whose process is gone: its pid no longer
 * exists, or it is ours under another name (an earlier incarnation in a
 * container, where pids repeat). kill(pid, 0) failing with EPERM means it
 * exists as another user. */
static int find_dead(void *arg, const struct store_host *h)
{
    struct dead_hosts *d = arg;
    if (strcmp(h->hostname, d->q->hostname) || !strcmp(h->name, d->q->name))
        return 0;
    bool dead = h->pid == (int64_t)getpid() || h->pid <= 0 ||
                (kill((pid_t)h->pid, 0) < 0 && errno == ESRCH);
    if (!dead)
        return 0;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 8;
        void *more = realloc(d->names, cap * sizeof *d->names);
        if (!more)
            return -1;
        d->names = more;
        d->cap = cap;
    }
    snprintf(d->names[d->n++], STORE_HOST_NAME_LEN, "%s", h->name);
    return 0;
}

/* Hands back the claims of this machine's dead judge processes and every
 * expired lease; logs what it did. */
void keeper_recover(struct queue *q, struct store *s)
{
    struct dead_hosts d = {.q = q};
    int judging = 0, benchmarks = 0;
    if (store_hosts(s, 0, find_dead, &d) < 0)
        fprintf(stderr, "attnjudge: judge hosts: %s\n", store_error(s));
    for (size_t i = 0; i < d.n; i++) {
        if (store_leases_release(s, d.names[i], &judging, &benchmarks) < 0 ||
            store_host_remove(s, d.names[i]) < 0) {
            fprintf(stderr, "attnjudge: judge host %s: %s\n", d.names[i], store_error(s));
            continue;
        }
        if (judging || benchmarks)
            fprintf(stderr,
                    "attnjudge: %d interrupted judgement(s) and %d benchmark(s) of %s (gone) "
                    "queued again\n",
                    judging, benchmarks, d.names[i]);
    }
    free(d.names);
    if (store_leases_expire(s, clock_wall_ms(), &judging, &benchmarks) < 0)
        fprintf(stderr, "attnjudge: leases: %s\n", store_error(s));
    else if (judging || benchmarks)
        fprintf(stderr,
                "attnjudge: %d judgement(s) and %d benchmark(s) whose lease expired queued "
                "again\n",
                judging, benchmarks);
}

/* Records this host's heartbeat (when it judges) and renews its leases. */
static void beat(struct queue *q, struct store *s)
{
    if (q->n == 0)
        return; /* a front end only: not a judge host */
    struct store_host h = {.pid = getpid(), .started_at = q->started_at};
    snprintf(h.name, sizeof h.name, "%s", q->name);
    snprintf(h.hostname, sizeof h.hostname, "%s", q->hostname);
    pthread_mutex_lock(&q->lock);
    for (int i = 0; i < q->n; i++) {
        h.workers += q->w[i].running && q->w[i].ready;
        h.busy += q->w[i].id != 0;
    }
    pthread_mutex_unlock(&q->lock);
    /* NULL (no metrics, or out of memory): recorded as none */
    char *stats = q->metrics ? metrics_judging_json(q->metrics) : NULL;
    h.stats = stats;
    if (store_host_beat(s, &h, clock_wall_ms()) < 0)
        fprintf(stderr, "attnjudge: heartbeat: %s\n", store_error(s));
    free(stats);
}

/* An inotify descriptor that reports writes to the database's write-ahead
 * log (SQLite), or -1. */
static int watch_wal(const char *db_path, char *wal, size_t len)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", db_path);
    snprintf(wal, len, "%s-wal", strrchr(db_path, '/') ? strrchr(db_path, '/') + 1 : db_path);
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0)
        return -1;
    /* the directory, not the file: the log is created and removed as
     * connections come and go */
    if (inotify_add_watch(fd, dirname(dir), IN_MODIFY | IN_CREATE) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* True if the inotify events waiting on fd name the file wal. */
static bool wal_written(int fd, const char *wal)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool hit = false;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            if (e->len && !strcmp(e->name, wal))
                hit = true;
            p += sizeof *e + e->len;
        }
    return hit;
}

/* The keeper thread: a heartbeat every third of a lease, expired leases
 * handed back, and (host.watch) the workers woken on database writes. */
static void *keeper_main(void *arg)
{
    struct queue *q = arg;
    char wal[256];
    /* PostgreSQL: new work is announced by NOTIFY, from any process on
     * any machine; SQLite: by writes to its write-ahead log, seen here */
    int listening = q->host.watch && q->n > 0 ? store_queue_listen(q->keeper_store) : 0;
    if (listening < 0)
        fprintf(stderr, "attnjudge: listen: %s (new work is found every second instead)\n",
                store_error(q->keeper_store));
    int fd =
        q->host.watch && q->n > 0 && listening == 0 ? watch_wal(q->db_path, wal, sizeof wal) : -1;
    if (q->host.watch && q->n > 0 && listening == 0 && fd < 0)
        fprintf(stderr, "attnjudge: inotify: %s (new work is found every second instead)\n",
                strerror(errno));
    int64_t period = q->host.lease_ms / 3 > 100 ? q->host.lease_ms / 3 : 100;
    double next = clock_mono_ms(); /* the first beat at once */
    for (;;) {
        pthread_mutex_lock(&q->lock);
        bool stop = q->keeper_stop;
        pthread_mutex_unlock(&q->lock);
        if (stop)
            break;
        double now = clock_mono_ms();
        if (now >= next) {
            int judging = 0, benchmarks = 0;
            beat(q, q->keeper_store);
            if (store_leases_expire(q->keeper_store, clock_wall_ms(), &judging, &benchmarks) < 0)
                fprintf(stderr, "attnjudge: leases: %s\n", store_error(q->keeper_store));
            else if (judging || benchmarks) {
                fprintf(stderr,
                        "attnjudge: %d judgement(s) and %d benchmark(s) whose lease expired "
                        "(their host is gone) queued again\n",
                        judging, benchmarks);
                workers_wake(q);
            }
            next = now + (double)period;
            continue;
        }
        /* wait for the next beat, a database write, or (at most 250 ms
         * later) a stop; without inotify, look for work every second */
        int wait = (int)(next - now) < 250 ? (int)(next - now) + 1 : 250;
        int heard = listening > 0 ? store_queue_wait(q->keeper_store, wait) : -1;
        if (heard > 0) {
            workers_wake(q);
        } else if (heard == 0) {
            /* nothing announced: the loop looks at the stop flag */
        } else if (fd >= 0) {
            struct pollfd pfd = {fd, POLLIN, 0};
            if (poll(&pfd, 1, wait) > 0 && wal_written(fd, wal))
                workers_wake(q);
        } else {
            usleep((useconds_t)wait * 1000);
            if (q->host.watch && q->n > 0 && (int64_t)now / 1000 != (int64_t)(now + wait) / 1000)
                workers_wake(q);
        }
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* Stops and joins the keeper; the host leaves the table (its claims are
 * the caller's to settle). */
void keeper_stop(struct queue *q)
{
    if (!q->keeper_started)
        return;
    pthread_mutex_lock(&q->lock);
    q->keeper_stop = true;
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->keeper, NULL);
    q->keeper_started = false;
}

int keeper_start(struct queue *q)
{
    int rc = pthread_create(&q->keeper, NULL, keeper_main, q);
    if (rc == 0)
        q->keeper_started = true;
    return rc;
}
