/*
 * cores — running a judgement's tests on idle cores (cores.h).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/cores.h"
#include "judge/decide.h"
#include "judge/schedule.h"

/* Threads judging in this process, over every judgement: each judgement
 * holds one while it runs, and its tests borrow more only while fewer than
 * the cores are held, so a server whose workers already keep every core
 * busy runs each submission's tests one after another. */
static atomic_int threads_busy;

static int cores_online(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < n)
        n = CPU_COUNT(&set);
    return n < 1 ? 1 : (int)n;
}

/* Takes up to want more threads' worth of idle cores; returns how many. */
static int cores_take(int want)
{
    int cores = cores_online(), got = 0;
    while (got < want) {
        int busy = atomic_load(&threads_busy);
        if (busy >= cores)
            break;
        if (atomic_compare_exchange_weak(&threads_busy, &busy, busy + 1))
            got++;
    }
    return got;
}

/* Announces (judge.h: on the judging thread, in order, a run of hidden
 * tests once) every test before upto that was claimed and is not known to
 * come after a fatal one. */
static void tests_announce(struct test_run *t, int upto)
{
    pthread_mutex_lock(&t->mu);
    int stop_at = t->stop_at;
    pthread_mutex_unlock(&t->mu);
    for (; t->announced < upto; t->announced++) {
        int k = t->announced;
        bool hidden = t->tc[k]->kind == TEST_HIDDEN;
        bool prev_hidden = k > 0 && t->tc[k - 1]->kind == TEST_HIDDEN;
        if (k <= stop_at && !(hidden && prev_hidden))
            judge_progress(t->opt, JUDGE_STAGE_RUNNING, k, t->n);
    }
}

/* Claims and runs tests until none is left; the judging thread (main)
 * announces them too. */
static void tests_work(struct test_run *t, bool main)
{
    for (;;) {
        pthread_mutex_lock(&t->mu);
        int k = schedule_claim(t->claimed, t->by_cost, t->n, main);
        bool skip = k > t->stop_at;
        pthread_mutex_unlock(&t->mu);
        if (k < 0)
            break;
        if (main)
            tests_announce(t, k + 1);
        if (skip)
            continue; /* one sleeping or crashing program does not hold a worker */
        struct judge_test_report *tr = &t->tests[k];
        t->run_test(t->ctx, t->p, t->cache, t->ref, t->exe, t->src, t->tc[k], tr, &t->ref_failed[k],
                    t->got ? &t->got[t->pi[k]] : NULL, t->err[k], TEST_ERR_LEN);
        t->ran[k] = true;
        bool stops = tr->verdict == V_INTERNAL_ERROR ||
                     (judge_verdict_is_fatal(tr->verdict) && !t->p->run_all_tests);
        pthread_mutex_lock(&t->mu);
        if (stops && k < t->stop_at)
            t->stop_at = k;
        pthread_mutex_unlock(&t->mu);
    }
}

static void *tests_helper(void *arg)
{
    tests_work(arg, false);
    return NULL;
}

int tests_run(struct test_run *t, struct judge_report *r)
{
    const struct problem *p = t->p;
    int n = t->n, helpers = 0, rc = -1;
    pthread_t tid[64];

    t->tc = calloc((size_t)n + 1, sizeof *t->tc);
    t->pi = calloc((size_t)n + 1, sizeof *t->pi);
    t->err = calloc((size_t)n + 1, sizeof *t->err);
    t->ref_failed = calloc((size_t)n + 1, sizeof *t->ref_failed);
    t->ran = calloc((size_t)n + 1, sizeof *t->ran);
    t->by_cost = calloc((size_t)n + 1, sizeof *t->by_cost);
    t->claimed = calloc((size_t)n + 1, sizeof *t->claimed);
    int64_t *cost = calloc((size_t)n + 1, sizeof *cost);
    if (!t->tc || !t->pi || !t->err || !t->ref_failed || !t->ran || !t->by_cost || !t->claimed ||
        !cost) {
        decide_internal(r, "out of memory");
        goto out;
    }
    for (size_t i = 0, k = 0; i < p->n_tests; i++)
        if (!t->opt || !t->opt->samples_only || p->tests[i].kind == TEST_SAMPLE) {
            t->tc[k] = &p->tests[i];
            t->pi[k++] = i;
        }
    t->stop_at = n;
    pthread_mutex_init(&t->mu, NULL);
    int want = (t->opt && t->opt->test_threads > 0 ? t->opt->test_threads : 64) - 1;
    if (want > n - 1)
        want = n - 1;
    if (want > (int)(sizeof tid / sizeof tid[0]))
        want = (int)(sizeof tid / sizeof tid[0]);
    int cores = want > 0 ? cores_take(want) : 0;
    for (int k = 0; k < n; k++)
        cost[k] = schedule_test_cost(p, t->tc[k]);
    schedule_by_cost(cost, n, t->by_cost);
    for (; helpers < cores; helpers++)
        if (pthread_create(&tid[helpers], NULL, tests_helper, t) != 0)
            break;
    atomic_fetch_sub(&threads_busy, cores - helpers);
    tests_work(t, true);
    tests_announce(t, n);
    for (int i = 0; i < helpers; i++)
        pthread_join(tid[i], NULL);
    atomic_fetch_sub(&threads_busy, helpers);
    pthread_mutex_destroy(&t->mu);

    /* the report, in order, as one test after another would have made it */
    bool failed = false, stopped = false;
    r->verdict = V_ACCEPTED;
    for (int k = 0; k < n; k++) {
        struct judge_test_report *tr = &r->tests[k];
        if (stopped || !t->ran[k]) {
            judge_test_report_clear(tr);
            tr->verdict = V_NOT_RUN;
            if (t->got) {
                free(t->got[t->pi[k]]);
                t->got[t->pi[k]] = NULL;
            }
            continue;
        }
        if (tr->verdict == V_INTERNAL_ERROR) {
            r->reference_failed = t->ref_failed[k];
            decide_internal(r, t->err[k]);
            /* the report ends at the failed test */
            for (int j = k + 1; j < n; j++) {
                judge_test_report_clear(&r->tests[j]);
                free(r->tests[j].name);
                free(r->tests[j].dims);
                memset(&r->tests[j], 0, sizeof r->tests[j]);
            }
            r->n_tests = k + 1;
            goto out;
        }
        if (tr->verdict != V_ACCEPTED && !failed) {
            failed = true;
            r->verdict = tr->verdict;
        }
        if (judge_verdict_is_fatal(tr->verdict) && !p->run_all_tests)
            stopped = true;
    }
    rc = 0;
out:
    free(t->tc);
    free(t->pi);
    free(t->err);
    free(t->ref_failed);
    free(t->ran);
    free(t->by_cost);
    free(t->claimed);
    free(cost);
    return rc;
}

void cores_hold(int delta)
{
    atomic_fetch_add(&threads_busy, delta);
}
