/* Bench cheat: tells the judge its call is over before it has begun, by
 * writing the harness's "returned" record on the result channel itself
 * (fd 4; judge/harness_proto.h), hoping the clock stops there while it
 * burns and then computes. Expected: gains nothing. The judge takes the
 * outputs out of the program's memory when the record comes and reads the
 * clock only after that: either they are not written yet (wrong_answer)
 * or the work that wrote them was counted. Only at benchmark sizes: a
 * test's run would read the forged record as a broken result. */
#include "common.h"
#include <stdint.h>
#include <unistd.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    if ((long)rows * cols >= 100000) {
        const uint32_t record[4] = {0x4e544552u, 0, 0, 0}; /* "RETN", no payload */
        if (write(4, record, sizeof record) < 0)
            return;
    }
    burn(rows, cols);
    honest_softmax(x, y, rows, cols);
}
