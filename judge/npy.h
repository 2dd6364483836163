/*
 * npy — writing NumPy .npy files (format version 1.0).
 */
#ifndef ATTNJUDGE_NPY_H
#define ATTNJUDGE_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "judge/tensor.h"

/* Encodes a .npy image of data (row-major, shape[rank]) into a new buffer
 * (*out, *out_len; caller frees *out with free). dtype descr: f32 "<f4",
 * u8 "|u1", i32 "<i4". Returns 0 or -1 (out of memory). */
int npy_encode(const void *data, enum tensor_dtype dtype, const int64_t *shape, int rank,
               unsigned char **out, size_t *out_len);

/* Writes the .npy file at path (created 0644, replaced atomically via a
 * temporary in the same directory). Returns 0 or -1 with errno set. */
int npy_write(const char *path, const void *data, enum tensor_dtype dtype, const int64_t *shape,
              int rank);

#endif
