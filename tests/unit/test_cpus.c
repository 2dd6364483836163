/*
 * Unit tests of server/cpus.c: which core benchmarks get, from the
 * `bench_cpu` setting and the cores a process may use, and the setting's
 * parsing (server/config.c).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/config.h"
#include "server/cpus.h"

static cpu_set_t cores(const int *list, int n)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int i = 0; i < n; i++)
        CPU_SET(list[i], &s);
    return s;
}

/* auto: the last core when 3 or more are allowed, none on 2 (there a core
 * kept for benchmarks would halve the verdicts' throughput) */
static void test_cpus_auto(void **state)
{
    (void)state;
    struct cpus_plan p;
    char err[256], line[200];
    cpu_set_t two = cores((int[]){0, 1}, 2);
    assert_int_equal(cpus_plan(CPUS_BENCH_AUTO, &two, &p, err, sizeof err), 0);
    assert_false(p.pinned);
    assert_int_equal(CPU_COUNT(&p.judging), 2);
    cpus_describe(&p, line, sizeof line);
    assert_string_equal(line, "benchmarks share every core with judging");

    cpu_set_t four = cores((int[]){0, 1, 2, 3}, 4);
    assert_int_equal(cpus_plan(CPUS_BENCH_AUTO, &four, &p, err, sizeof err), 0);
    assert_true(p.pinned);
    assert_int_equal(p.bench_cpu, 3);
    assert_false(CPU_ISSET(3, &p.judging));
    assert_int_equal(CPU_COUNT(&p.judging), 3);
    cpus_describe(&p, line, sizeof line);
    assert_string_equal(line, "benchmarks on core 3, judging on cores 0-2");

    /* a process confined to scattered cores (taskset, a cgroup's cpuset) */
    cpu_set_t some = cores((int[]){0, 2, 5}, 3);
    assert_int_equal(cpus_plan(CPUS_BENCH_AUTO, &some, &p, err, sizeof err), 0);
    assert_int_equal(p.bench_cpu, 5);
    cpus_describe(&p, line, sizeof line);
    assert_string_equal(line, "benchmarks on core 5, judging on cores 0,2");
}

/* a core named by the operator is used even on two cores; one the process
 * may not use, or the only one, is refused, saying why */
static void test_cpus_explicit(void **state)
{
    (void)state;
    struct cpus_plan p;
    char err[256];
    cpu_set_t two = cores((int[]){0, 1}, 2);
    assert_int_equal(cpus_plan(1, &two, &p, err, sizeof err), 0);
    assert_true(p.pinned);
    assert_int_equal(p.bench_cpu, 1);
    assert_true(CPU_ISSET(0, &p.judging));
    assert_int_equal(CPU_COUNT(&p.judging), 1);

    assert_int_equal(cpus_plan(7, &two, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "core 7 is not one this process may use (cores 0-1)"));

    cpu_set_t one = cores((int[]){0}, 1);
    assert_int_equal(cpus_plan(0, &one, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "judging would have none; set bench_cpu = off"));

    cpu_set_t four = cores((int[]){0, 1, 2, 3}, 4);
    assert_int_equal(cpus_plan(CPUS_BENCH_OFF, &four, &p, err, sizeof err), 0);
    assert_false(p.pinned);
    assert_int_equal(CPU_COUNT(&p.judging), 4);
}

/* moving the calling thread: to the benchmark core and back */
static void test_cpus_enter(void **state)
{
    (void)state;
    struct cpus_plan p;
    char err[256];
    cpu_set_t mine, now;
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    if (CPU_COUNT(&mine) < 2) {
        /* nothing to move between: the plan is refused, as tested above */
        assert_int_equal(cpus_plan(CPUS_BENCH_OFF, NULL, &p, err, sizeof err), 0);
        assert_int_equal(cpus_enter_bench(&p), 0);
        return;
    }
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            last = c;
    assert_int_equal(cpus_plan(last, NULL, &p, err, sizeof err), 0);
    assert_int_equal(cpus_enter_bench(&p), 0);
    assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
    assert_int_equal(CPU_COUNT(&now), 1);
    assert_true(CPU_ISSET(last, &now));
    assert_int_equal(cpus_enter_judging(&p), 0);
    assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
    assert_false(CPU_ISSET(last, &now));
    assert_int_equal(CPU_COUNT(&now), CPU_COUNT(&mine) - 1);
    /* back to every core, as the test found it */
    assert_int_equal(sched_setaffinity(0, sizeof mine, &mine), 0);
}

/* bench_cpu = auto | off | a core's number */
static void test_cpus_setting(void **state)
{
    (void)state;
    struct config c;
    char err[CONFIG_ERR_LEN];
    config_defaults(&c);
    assert_int_equal(c.bench_cpu, CPUS_BENCH_AUTO);
    assert_int_equal(config_set(&c, "bench_cpu", "off", err, sizeof err), 0);
    assert_int_equal(c.bench_cpu, CPUS_BENCH_OFF);
    assert_int_equal(config_set(&c, "bench_cpu", "3", err, sizeof err), 0);
    assert_int_equal(c.bench_cpu, 3);
    assert_int_equal(config_set(&c, "bench_cpu", "auto", err, sizeof err), 0);
    assert_int_equal(c.bench_cpu, CPUS_BENCH_AUTO);
    assert_int_equal(config_set(&c, "bench_cpu", "last", err, sizeof err), -1);
    assert_non_null(strstr(err, "or 'auto' or 'off'"));
    assert_int_equal(config_set(&c, "bench_cpu", "-2", err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpus_auto),
        cmocka_unit_test(test_cpus_explicit),
        cmocka_unit_test(test_cpus_enter),
        cmocka_unit_test(test_cpus_setting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
