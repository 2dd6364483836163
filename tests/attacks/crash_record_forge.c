/* attack: write forged crash records on the result channel (an absurd address count, addresses that point nowhere, a record of the wrong size), install an own SIGSEGV handler, then fault
 * threat: a program steering the judge's crash-line lookup (judge/crashsite.c) to crash, hang or confuse the judge, or to change the verdict
 * expect: runtime_error
 * message: could not tell the line: download the sample case
 * problem: mha-fused-qkv
 *
 * Its own handler replaces the harness's, so the last record is the forged
 * one: its count is bounded, its addresses map to no line, and the message
 * says how to find the line with the sample kit.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

struct rec {
    uint32_t tag, reserved;
    uint64_t len;
};

static void forge(int fd)
{
    struct {
        struct rec r;
        uint64_t pc, n_calls, calls[8];
    } m;
    memset(&m, 0xff, sizeof m);
    m.r.tag = 0x48535243U; /* "CRSH" */
    m.r.reserved = 0;
    m.r.len = sizeof m - sizeof m.r;
    (void)!write(fd, &m, sizeof m);
}

static void own_handler(int sig)
{
    forge(4);
    signal(sig, SIG_DFL);
}

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    /* a record too short for its tag, then a well-formed forged one */
    struct rec bad = {0x48535243U, 0, 8};
    uint64_t zero = 0;
    (void)!write(4, &bad, sizeof bad);
    (void)!write(4, &zero, sizeof zero);
    forge(4);
    signal(SIGSEGV, own_handler);
    volatile float *volatile nowhere = 0;
    out[0] = *nowhere;
}
