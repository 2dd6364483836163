/*
 * npy — writing NumPy .npy files (format version 1.0).
 *
 * Theory of operation. A .npy file is the magic "\x93NUMPY", the version
 * bytes 1 0, a little-endian uint16 header length, an ASCII Python dict
 * literal such as
 *
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *
 * padded with spaces and ended by '\n' so that the data starts at a multiple
 * of 64 bytes (what numpy itself writes, so memory-mapped arrays are
 * aligned), then the raw elements in C order. The element bytes are written
 * little-endian explicitly, so the files are the same on any host.
 *
 * npy_write() replaces the file atomically (fs_write_atomic): a reader
 * never sees a half-written array.
 */
#include "judge/npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_PREFIX_LEN 10 /* magic, version (2 bytes), header length (2 bytes) */
#define NPY_ALIGN 64

static const char *npy_descr(enum tensor_dtype dtype)
{
    switch (dtype) {
    case DT_F32: return "<f4";
    case DT_U8: return "|u1";
    case DT_I32: return "<i4";
    }
    return NULL;
}

/* Writes the dict into buf (at least 512 bytes); returns its length. */
static int format_header(char *buf, size_t len, const char *descr, const int64_t *shape, int rank)
{
    size_t used;
    int n;

    n = snprintf(buf, len, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    if (n < 0 || (size_t)n >= len)
        return -1;
    used = (size_t)n;
    for (int k = 0; k < rank; k++) {
        n = snprintf(buf + used, len - used, "%s%" PRId64, k ? ", " : "", shape[k]);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    /* A one-element Python tuple needs its trailing comma: (5,) not (5). */
    n = snprintf(buf + used, len - used, "%s), }", rank == 1 ? "," : "");
    if (n < 0 || (size_t)n >= len - used)
        return -1;
    return (int)(used + (size_t)n);
}

int npy_encode(const void *data, enum tensor_dtype dtype, const int64_t *shape, int rank,
               unsigned char **out, size_t *out_len)
{
    char dict[512];
    const char *descr = npy_descr(dtype);
    unsigned char *img, *p;
    size_t header_len, total, elems = 1, esize = tensor_dtype_size(dtype);
    int dict_len;

    *out = NULL;
    *out_len = 0;
    if (!descr || rank < 0 || rank > TENSOR_MAX_RANK) {
        errno = EINVAL;
        return -1;
    }
    for (int k = 0; k < rank; k++) {
        if (shape[k] < 0 || __builtin_mul_overflow(elems, (size_t)shape[k], &elems)) {
            errno = EINVAL;
            return -1;
        }
    }
    dict_len = format_header(dict, sizeof dict, descr, shape, rank);
    if (dict_len < 0) {
        errno = EINVAL;
        return -1;
    }
    /* dict, spaces, '\n': pad the prefix + header to the next multiple of 64. */
    header_len = (size_t)dict_len + 1;
    header_len += (NPY_ALIGN - (NPY_PREFIX_LEN + header_len) % NPY_ALIGN) % NPY_ALIGN;
    if (__builtin_mul_overflow(elems, esize, &total) ||
        __builtin_add_overflow(total, NPY_PREFIX_LEN + header_len, &total)) {
        errno = EINVAL;
        return -1;
    }

    img = malloc(total ? total : 1);
    if (!img)
        return -1;
    memcpy(img, NPY_MAGIC, NPY_MAGIC_LEN);
    img[6] = 1;
    img[7] = 0;
    img[8] = (unsigned char)(header_len & 0xff);
    img[9] = (unsigned char)(header_len >> 8);
    p = img + NPY_PREFIX_LEN;
    memcpy(p, dict, (size_t)dict_len);
    memset(p + dict_len, ' ', header_len - (size_t)dict_len - 1);
    p[header_len - 1] = '\n';
    p += header_len;

    if (esize == 1) {
        memcpy(p, data, elems);
    } else {
        const unsigned char *src = data;

        /* float and int32_t are both 4 bytes; write each little-endian. */
        for (size_t i = 0; i < elems; i++) {
            uint32_t v;

            memcpy(&v, src + 4 * i, 4);
            p[4 * i + 0] = (unsigned char)(v);
            p[4 * i + 1] = (unsigned char)(v >> 8);
            p[4 * i + 2] = (unsigned char)(v >> 16);
            p[4 * i + 3] = (unsigned char)(v >> 24);
        }
    }
    *out = img;
    *out_len = total;
    return 0;
}

int npy_write(const char *path, const void *data, enum tensor_dtype dtype, const int64_t *shape,
              int rank)
{
    unsigned char *img = NULL;
    size_t len = 0;
    int rc, saved;

    if (npy_encode(data, dtype, shape, rank, &img, &len) != 0)
        return -1;
    /* exported test data is meant to be shared: 0644 */
    rc = fs_write_atomic(path, img, len, 0644);
    saved = errno;
    free(img);
    errno = saved;
    return rc;
}
