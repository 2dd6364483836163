/*
 * compile — building a program in an SBX_COMPILE sandbox: what one build
 * is given (struct build: the files placed in /work, the argv of each
 * step), the harness object's build and a program's build, and running a
 * build into a sealed memfd with the compiler's diagnostics rewritten for
 * the student.
 *
 * The student's file is compiled alone (its diagnostics name only it),
 * then linked statically with the harness object, and a copy of its object
 * is added to the program as a section that is never loaded, for the
 * judge to read which names it defines (elf.h). The program comes back
 * as a memfd: the judge never opens a path the sandbox could have written.
 * Its ELF headers are checked before anything runs (elf.h).
 */
#ifndef ATTNJUDGE_COMPILE_H
#define ATTNJUDGE_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "judge/problem.h"
#include "judge/report.h"
#include "util/compiler.h"

#define BUILD_FILES 4 /* at most: the harness build's attnjudge.h, call stub, runtime, header */
#define BUILD_ARGV 24
#define BUILD_STEPS 3
/* The harness object: the generated call stub and the harness runtime,
 * compiled once per problem version and toolchain (harness_object). */
#define HARNESS_OBJ "attnjudge_harness.o"

/* Everything one compile sandbox is given: the files placed in /work (name
 * and text) and the argv of each step. The product is a function of this
 * and of the toolchain alone, which is why the caches are keyed on exactly
 * this (build_manifest). */
struct build {
    int n_files, n_steps;
    const char *names[BUILD_FILES];
    const char *text[BUILD_FILES];
    size_t len[BUILD_FILES];
    const char *steps[BUILD_STEPS][BUILD_ARGV];
    const char *output;     /* the file copied out of /work after the last step */
    bool executable;        /* the product is a program (its ELF headers are checked) */
    char obj[64];           /* the student's object, "<name>.o" */
    char embed[128];        /* objcopy's "<section>=<object>" (elf.h) */
    char *proto_h, *call_c; /* generated for the problem; owned */
    char *harness;          /* the harness object's bytes; owned */
    size_t harness_len;
    char *harness_manifest; /* the manifest the harness object was built from; owned */
};

void build_free(struct build *b);

/* Describes how the harness object of p is built: the generated prototype
 * header and call stub and the fixed runtime, compiled and joined into one
 * relocatable object (gcc -r; no start files, no libraries: the link of
 * each program adds them). Returns 0, or -1 with err; build_free either
 * way. */
int build_harness(struct build *b, const struct problem *p, char *err, size_t errlen) MUST_CHECK;

/* Describes how source (len bytes, named filename, which outlives b) is
 * compiled for p: with the prototype header, then linked with p's harness
 * object (harness, harness_len bytes, built from harness_manifest; b takes
 * both buffers, also on failure). Returns 0, or -1 with err; build_free
 * either way. */
int build_program(struct build *b, const struct problem *p, const char *source, size_t len,
                  const char *filename, char *harness, size_t harness_len, char *harness_manifest,
                  char *err, size_t errlen) MUST_CHECK;

enum compile_outcome { COMPILED, COMPILE_FAILED, COMPILE_INTERNAL };

/* Runs build b in a compile sandbox. On COMPILED, *exe is a read-only memfd
 * of the program. *log is the (rewritten) diagnostics either way, or NULL
 * on COMPILE_INTERNAL. */
enum compile_outcome compile_program(const struct problem *p, const struct build *b, int *exe,
                                     char **log, double *cpu_ms, double *wall_ms,
                                     struct judge_timing *timing, char *err, size_t errlen);

/* A student-chosen file name is only a label: out receives it if it is a
 * plain, short C file name, otherwise "solution.c". It goes on the
 * compiler's command line, so it never starts with '-' and never names one
 * of the judge's own files. */
void safe_filename(const char *in, char *out, size_t len);

#endif
