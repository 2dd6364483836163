/* attack: bring a section named like the one in which the judge keeps the copy of the student's object, hoping the judge reads the forged one (with no symbols) instead
 * threat: the check of the C library names the file defines reading a symbol table the student chose (docs/sandbox.md)
 * expect: compile_error
 * message: is the judge's
 * problem: softmax-stable
 *
 * objcopy refuses to add a section that exists already, so the link step
 * fails; the judge would also refuse a program with two such sections.
 */
#include <stddef.h>

__attribute__((section(".attnjudge.student"), used)) static const char forged[] = "\177ELF";

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    /* never runs: the file is refused before anything does */
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        y[i] = x[i] + 0 * forged[0];
}
