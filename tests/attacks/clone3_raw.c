/* attack: create a process with the raw clone3 syscall (no libc wrapper, newest clone flavour)
 * threat: process creation through a syscall a deny-list might forget
 * expect: security_violation
 * message: clone3
 * problem: mha-fused-qkv
 */
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

struct attack_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
    uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)out;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    struct attack_clone_args a = {0};
    a.exit_signal = SIGCHLD;
    long pid = syscall(SYS_clone3, &a, sizeof a);
    if (pid == 0)
        for (;;)
            ;
}
