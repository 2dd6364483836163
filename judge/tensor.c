/*
 * tensor — element types by name, size and C type (see tensor.h).
 */
#include "judge/tensor.h"

#include <string.h>

static const enum tensor_dtype all_dtypes[] = {DT_F32, DT_U8, DT_I32};

size_t tensor_dtype_size(enum tensor_dtype t)
{
    switch (t) {
    case DT_F32: return 4;
    case DT_U8: return 1;
    case DT_I32: return 4;
    }
    return 0;
}

const char *tensor_dtype_name(enum tensor_dtype t)
{
    switch (t) {
    case DT_F32: return "f32";
    case DT_U8: return "u8";
    case DT_I32: return "i32";
    }
    return "?";
}

const char *tensor_dtype_ctype(enum tensor_dtype t)
{
    switch (t) {
    case DT_F32: return "float";
    case DT_U8: return "unsigned char";
    case DT_I32: return "int32_t";
    }
    return "?";
}

int tensor_dtype_from_name(const char *name, enum tensor_dtype *t)
{
    for (size_t i = 0; i < sizeof all_dtypes / sizeof all_dtypes[0]; i++) {
        if (strcmp(name, tensor_dtype_name(all_dtypes[i])) == 0) {
            *t = all_dtypes[i];
            return 0;
        }
    }
    return -1;
}
