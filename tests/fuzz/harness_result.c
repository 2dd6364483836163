/*
 * Fuzz target: the result channel (judge/harness.c harness_parse_result),
 * the bytes a student's program writes on its descriptor 4 — which a
 * hostile program controls completely.
 *
 * Input: one byte giving the number of output-bearing parameters, two bytes
 * per parameter (kind, role, dtype, NULL-passed; element count), then the
 * channel's bytes. Checks that every output the parser hands back lies
 * inside the buffer, whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "judge/harness.h"
#include "judge/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink; /* the outputs' bytes, read so that ASan checks them */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct problem p;
    struct harness_tensors t;
    struct harness_result res;

    if (size < 1)
        return 0;
    memset(&p, 0, sizeof p);
    memset(&t, 0, sizeof t);
    p.n_params = data[0] % (PROBLEM_MAX_PARAMS + 1);
    size_t off = 1;
    for (int i = 0; i < p.n_params; i++, off += 2) {
        if (off + 2 > size)
            return 0;
        uint8_t f = data[off];
        struct param *q = &p.params[i];
        q->kind = f & 1 ? (f & 0x80 ? PARAM_FLOAT : PARAM_INT) : PARAM_TENSOR;
        q->role = f & 2 ? (f & 0x40 ? ROLE_INOUT : ROLE_OUT) : ROLE_IN;
        q->dtype = (enum tensor_dtype)((f >> 2) % 3);
        t.is_null[i] = f & 0x20;
        /* element counts as the judge computes them: small here, so that
         * inputs can cover them */
        t.n_elems[i] = data[off + 1];
    }
    const uint8_t *buf = data + off;
    size_t len = size - off;
    harness_parse_result(&p, &t, buf, len, &res);
    unsigned sum = 0; /* reads every output byte */
    for (int i = 0; i < p.n_params; i++) {
        if (!res.outputs[i])
            continue;
        size_t bytes = (size_t)t.n_elems[i] * tensor_dtype_size(p.params[i].dtype);
        if (res.outputs[i] < buf || res.outputs[i] + bytes > buf + len)
            abort(); /* an output outside the channel's bytes */
        for (size_t k = 0; k < bytes; k++)
            sum += res.outputs[i][k];
    }
    sink = sum;
    return 0;
}
