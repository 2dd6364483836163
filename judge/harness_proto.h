/*
 * The wire format between the judge and the harness inside the sandbox.
 * Included by judge/harness.c and, inside the sandbox, by the harness
 * runtime (judge/harness_rt.c); both sides are the same machine, so
 * integers are native (little-endian x86-64).
 *
 * Input (the program's fd AJ_FD_INPUT), written by the judge:
 *   struct aj_in_header
 *   int64_t ints[n_ints]                   the dimension arguments, in order
 *   double floats[n_floats]                the scalar (float/double) arguments
 *   struct aj_in_tensor tensors[n_tensors] every pointer argument, in order
 *   the bytes of every non-null tensor with is_input set, in order
 *
 * Result (fd AJ_FD_RESULT), written by the harness: a sequence of records
 *   struct aj_record, then `len` bytes of payload:
 *   AJ_TAG_NOMEM    an allocation failed (payload: uint64_t bytes asked)
 *   AJ_TAG_OUTPUTS  every non-null tensor's bytes with is_output set, in order
 *   AJ_TAG_DONE     the function returned and the outputs were written
 *   AJ_TAG_CRASH    a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) stopped the
 *                   program (payload: struct aj_crash); it then dies of it
 *
 * A benchmark session (judge/bench_session.c) serves several calls in one
 * process, and no tensor byte travels through a descriptor. Its input is a
 * pipe that carries, per call, the header with magic AJ_MAGIC_CALL, the
 * ints, floats and tensor descriptors, and no tensor bytes:
 *   harness: makes heap_mib MiB of heap ready (grown and touched; see
 *            harness_rt.c), maps every tensor (the same mappings again
 *            when the layout is the previous call's), sends AJ_TAG_READY
 *            (payload: one uint64_t address per tensor, 0 for a null one),
 *            then waits for the byte AJ_GO on its input;
 *   judge:   reads the program's CPU clock, writes the inputs and fills the
 *            outputs with 0xFF straight into that memory, sends AJ_GO;
 *   harness: calls the function, sends AJ_TAG_RETURNED (payload: one
 *            uint64_t, the bytes the heap grew during the call; see
 *            harness_rt.c) and reads the next header;
 *   judge:   reads the outputs out of that memory, then the CPU clock.
 * The header with magic AJ_MAGIC_END ends the session (exit 0). The same
 * crash and allocation records may come at any time.
 */
#ifndef ATTNJUDGE_HARNESS_PROTO_H
#define ATTNJUDGE_HARNESS_PROTO_H

#include <stdint.h>

/* Where the program finds its input and its result channel. The run sandbox
 * puts them there (SBX_RUN_INPUT_FD and SBX_RUN_RESULT_FD in
 * sandbox/sandbox.h, which this file cannot include: it is compiled alone
 * inside the sandbox); judge/harness.c checks at build time that both agree. */
#define AJ_FD_INPUT 3
#define AJ_FD_RESULT 4

#define AJ_MAGIC 0x324e494a41ULL        /* "AJIN2" */
#define AJ_MAGIC_CALL 0x4c4c41434a41ULL /* "AJCALL": a session's next call */
#define AJ_MAGIC_END 0x444e454a41ULL    /* "AJEND": the session is over */
#define AJ_GO 'G'                       /* the judge's go for a session's call */
#define AJ_MAX_TENSORS 32
#define AJ_MAX_INTS 32
#define AJ_MAX_FLOATS 32

#define AJ_TAG_NOMEM 0x4d454d4eU    /* "NMEM" */
#define AJ_TAG_OUTPUTS 0x5354554fU  /* "OUTS" */
#define AJ_TAG_DONE 0x454e4f44U     /* "DONE" */
#define AJ_TAG_CRASH 0x48535243U    /* "CRSH" */
#define AJ_TAG_READY 0x59444552U    /* "REDY" */
#define AJ_TAG_RETURNED 0x4e544552U /* "RETN" */

/* Return addresses a crash record carries at most. */
#define AJ_MAX_CALLS 8

/* Exit codes of the harness itself (never the student's choice alone). */
#define AJ_EXIT_BAD_INPUT 120
#define AJ_EXIT_NOMEM 121

struct aj_in_header {
    uint64_t magic;
    uint32_t n_tensors;
    uint32_t n_ints;
    uint32_t n_floats;
    /* AJ_MAGIC_CALL: MiB of heap the harness makes ready before READY (0
     * in every other header) */
    uint32_t heap_mib;
};

/* in: is_input; out: is_output (filled with 0xFF bytes before the call);
 * inout: both (the input bytes, sent back after the call) */
struct aj_in_tensor {
    uint32_t is_input;
    uint32_t is_output;
    uint32_t elem_size;
    uint32_t is_null;
    uint64_t n_elems;
};

/* Where a fault happened: the faulting instruction's address and the
 * return addresses found on the stack above it, innermost first (words
 * that point just after a call instruction in the program's text). */
struct aj_crash {
    uint64_t pc;
    uint64_t n_calls;
    uint64_t calls[AJ_MAX_CALLS];
};

struct aj_record {
    uint32_t tag;
    uint32_t reserved;
    uint64_t len;
};

#endif
