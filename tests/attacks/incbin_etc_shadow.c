/* attack: assemble "/etc/shadow" into the program with .incbin, then print it at run time (leak the host's password hashes)
 * threat: the assembler's .incbin reads any file (docs/pitfalls.md §2.1)
 * expect: compile_error
 * message: file not found
 * problem: mha-fused-qkv
 */
#include <stdio.h>

__asm__(".section .rodata\n"
        ".globl attack_leaked\n"
        "attack_leaked:\n"
        ".incbin \"/etc/shadow\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char attack_leaked[];

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
    fputs(attack_leaked, stdout);
}
