/* attack: start threads to escape the CPU-time accounting of one thread and race the harness
 * threat: process/thread creation (clone3/clone) in the run sandbox
 * expect: security_violation
 * message: clone
 * problem: mha-fused-qkv
 */
#include <pthread.h>

static void *attack_spin(void *arg)
{
    for (;;)
        __asm__ volatile("" ::: "memory");
    return arg;
}

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
    pthread_t th;
    for (int i = 0; i < 8; i++)
        pthread_create(&th, NULL, attack_spin, NULL);
}
