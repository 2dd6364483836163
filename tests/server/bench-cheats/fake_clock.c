/* Bench cheat: interposes every clock a timer inside the process could read
 * (clock_gettime, gettimeofday, time, clock) so that they stand still, then
 * burns CPU. Expected: gains nothing (the time is the kernel's accounting of
 * the process, read by the judge outside it). */
#include "common.h"
#include <sys/time.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
    (void)id;
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    tv->tv_sec = 0;
    tv->tv_usec = 0;
    return 0;
}

time_t time(time_t *t)
{
    if (t)
        *t = 0;
    return 0;
}

clock_t clock(void)
{
    return 0;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    honest_softmax(x, y, rows, cols);
    burn(rows, cols);
}
