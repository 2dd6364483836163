/* Bench cheat: moves the work onto another thread (another clock, if the
 * timing read only the calling thread's). Expected: security_violation
 * (the sandbox allows no new thread or process, and a thread's time would
 * be the process's anyway). */
#include "common.h"
#include <pthread.h>

struct job {
    const float *x;
    float *y;
    int rows, cols;
};

static void *work(void *arg)
{
    struct job *j = arg;
    honest_softmax(j->x, j->y, j->rows, j->cols);
    burn(j->rows, j->cols);
    return NULL;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    struct job j = {x, y, rows, cols};
    pthread_t t;
    if (pthread_create(&t, NULL, work, &j) != 0) {
        work(&j);
        return;
    }
    pthread_join(t, NULL);
}
