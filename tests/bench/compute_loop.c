/* make bench's yardstick for the machine's own noise: a fixed amount of
 * arithmetic (dependent multiply-adds on registers, no memory traffic),
 * its process CPU time printed in ms. tests/bench/overhead_cv.py times it
 * between benchmark judgements: the spread of these times is the floor a
 * benchmark's spread is held against. */
#include <stdio.h>
#include <time.h>

int main(void)
{
    struct timespec a, b;
    volatile double sink;
    double x = 1.0, y = 0.5;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    for (long i = 0; i < 150000000L; i++) {
        x = x * 0.9999999 + 1e-7;
        y = y * 0.9999998 + 2e-7;
    }
    sink = x + y;
    (void)sink;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    return 0;
}
