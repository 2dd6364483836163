/*
 * tensor — the vocabulary every layer of the judge shares about tensors:
 * the element types a problem's signature may use and the rank limit.
 *
 * A leaf header: it includes nothing of the project, so the generator, the
 * comparison, the .npy writer and the problem loader can all use it without
 * depending on each other.
 */
#ifndef ATTNJUDGE_TENSOR_H
#define ATTNJUDGE_TENSOR_H

#include <stddef.h>

#define TENSOR_MAX_RANK 8 /* dimensions of one tensor */

/* Element types, as written in problem.json: "f32", "u8", "i32". */
enum tensor_dtype { DT_F32, DT_U8, DT_I32 };

/* Size in bytes of one element of the dtype. */
size_t tensor_dtype_size(enum tensor_dtype t);

/* "f32", "u8", "i32"; and the C type ("float", "unsigned char", "int32_t"). */
const char *tensor_dtype_name(enum tensor_dtype t);
const char *tensor_dtype_ctype(enum tensor_dtype t);

/* The inverse of tensor_dtype_name: sets *t and returns 0, or -1 for an unknown
 * name. */
int tensor_dtype_from_name(const char *name, enum tensor_dtype *t);

#endif
