/* attack: modify_ldt: install a 16-bit code segment in the local descriptor table
 * threat: kernel attack surface (CVE-2015-5157, CVE-2017-17053); not in the run allow-list, denied at compile time too
 * expect: security_violation
 * message: modify_ldt
 * problem: mha-fused-qkv
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct attack_ldt_entry {
    unsigned int entry_number, base_addr, limit;
    unsigned int flags;
};

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
    struct attack_ldt_entry e;
    memset(&e, 0, sizeof e);
    e.limit = 0xfffff;
    e.flags = 1u << 4; /* seg_32bit = 0, contents = code */
    out[0] = (float)syscall(SYS_modify_ldt, 1, &e, sizeof e);
}
