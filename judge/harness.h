/*
 * harness — what the judge generates from a problem package so that a
 * student's function can be called: the prototype header force-included
 * into the student's file, the call stub, the input blob, and the parsing
 * of what the harness runtime (harness_rt.c) sends back.
 */
#ifndef ATTNJUDGE_HARNESS_H
#define ATTNJUDGE_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/harness_proto.h"
#include "judge/problem.h"

/* The fixed compiler flags for submissions (shown to students). */
extern const char *const harness_cflags[];
/* The fixed link flags (static, malloc wrappers, libm). */
extern const char *const harness_ldflags[];

/* Writes the compile and link commands as students should read them
 * ("gcc -std=gnu11 -O2 ... -c solution.c; gcc -static ... -lm") into buf,
 * built from harness_cflags and harness_ldflags. */
void harness_compile_command(char *buf, size_t len);

/* The harness runtime's and protocol header's source texts. */
const char *harness_runtime_source(void);
const char *harness_proto_source(void);

/* Writes the C prototype of p's function (no trailing ';') into buf, e.g.
 * "void mha_cross(const float *query, ..., int num_heads)". Returns the
 * length, or -1 if it did not fit. */
int harness_prototype(const struct problem *p, char *buf, size_t len);

/* Generates "attnjudge.h" (the prototype) and "attnjudge_call.c" (the call
 * stub) for p. Returns 0 with two new strings (caller frees), or -1. */
int harness_generate(const struct problem *p, char **proto_h, char **call_c);

/* One test's tensors: data[i] for every param i that is a tensor (NULL for
 * scalars, for NULL-passed tensors and for out tensors, which have no
 * input; an inout tensor's data is its value before the call). */
struct harness_tensors {
    void *data[PROBLEM_MAX_PARAMS];
    int64_t n_elems[PROBLEM_MAX_PARAMS];
    bool is_null[PROBLEM_MAX_PARAMS];
};

/* The size in bytes of the input blob harness_write_input writes for t
 * (only t's is_null and n_elems are read). */
int64_t harness_input_size(const struct problem *p, const struct harness_tensors *t);

/* Writes the input blob for dims, scalars (indexed by param, read for the
 * PARAM_FLOAT params) and t into fd (a memfd). 0 or -1. */
int harness_write_input(const struct problem *p, const int64_t *dims, const double *scalars,
                        const struct harness_tensors *t, int fd);

/* The most bytes a header (with its ints, floats and descriptors) takes. */
#define HARNESS_HEADER_MAX                                                                         \
    (sizeof(struct aj_in_header) + sizeof(int64_t) * AJ_MAX_INTS +                                 \
     sizeof(double) * AJ_MAX_FLOATS + sizeof(struct aj_in_tensor) * AJ_MAX_TENSORS)

/* A benchmark session's next call (harness_proto.h): the header with magic
 * AJ_MAGIC_CALL, dims, scalars, t's descriptors and heap_mib (the heap to
 * make ready before the call), no tensor bytes, into buf (cap bytes,
 * HARNESS_HEADER_MAX is enough). Returns its length, or -1 when it does
 * not fit. */
int harness_call_header(const struct problem *p, const int64_t *dims, const double *scalars,
                        const struct harness_tensors *t, uint32_t heap_mib, unsigned char *buf,
                        size_t cap);

/* What came back on the result channel. Output pointers point into the
 * buffer given to harness_parse_result (borrowed). */
struct harness_result {
    bool done;             /* the function returned, outputs written */
    bool nomem;            /* an allocation was refused */
    bool malformed;        /* records did not parse */
    bool crashed;          /* a crash record came (the last one is in crash) */
    struct aj_crash crash; /* as the program sent it: addresses, untrusted */
    const unsigned char *outputs[PROBLEM_MAX_PARAMS]; /* per out or inout param */
};

/* Parses the records in buf (len bytes). Output sizes come from t. */
void harness_parse_result(const struct problem *p, const struct harness_tensors *t,
                          const unsigned char *buf, size_t len, struct harness_result *res);

#endif
