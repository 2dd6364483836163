/* attack: create an in-memory file and execveat it (fileless execution in an empty filesystem)
 * threat: program execution without any file (docs/pitfalls.md §1.3)
 * expect: security_violation
 * message: memfd_create
 * problem: mha-fused-qkv
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

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
    static const char script[] = "#!/bin/sh\ntouch /tmp/attnjudge-escape-memfd\n";
    char *args[] = {"x", NULL};
    char *env[] = {NULL};
    int fd = (int)syscall(SYS_memfd_create, "attack", 0);
    (void)!write(fd, script, sizeof script - 1);
    syscall(SYS_execveat, fd, "", args, env, AT_EMPTY_PATH);
}
