/*
 * Unit tests of judge/npy: the exact header bytes (the files written here
 * were also loaded by hand with numpy.load, which returned the same shapes,
 * dtypes and values), 64-byte data alignment, little-endian data, and the
 * atomic replacement of npy_write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/npy.h"

/* Checks the fixed prefix and returns the header text (not terminated). */
static const char *header_of(const unsigned char *img, size_t len, size_t *hlen)
{
    assert_true(len >= 10);
    assert_memory_equal(img, "\x93NUMPY\x01\x00", 8);
    *hlen = (size_t)img[8] | (size_t)img[9] << 8;
    assert_true(10 + *hlen <= len);
    assert_int_equal((10 + *hlen) % 64, 0); /* data aligned to 64 bytes */
    assert_int_equal(img[10 + *hlen - 1], '\n');
    return (const char *)img + 10;
}

static void expect_header(const unsigned char *img, size_t len, const char *dict)
{
    size_t hlen, dlen = strlen(dict);
    const char *h = header_of(img, len, &hlen);

    assert_true(dlen < hlen);
    assert_memory_equal(h, dict, dlen);
    for (size_t i = dlen; i < hlen - 1; i++)
        assert_int_equal(h[i], ' ');
}

static void test_f32_rank2(void **state)
{
    float data[6] = {0, 1, -2.5f, 3, 1e-3f, -0.0f};
    int64_t shape[2] = {2, 3};
    unsigned char *img;
    size_t len;

    (void)state;
    assert_int_equal(npy_encode(data, DT_F32, shape, 2, &img, &len), 0);
    expect_header(img, len, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    assert_int_equal(len, 128 + 24); /* 10 + 61 bytes of header round up to 128 */
    /* Little-endian: -2.5f is 0xc0200000. */
    assert_memory_equal(img + 128 + 8, "\x00\x00\x20\xc0", 4);
    free(img);
}

static void test_rank1_has_trailing_comma(void **state)
{
    unsigned char data[5] = {0, 1, 1, 0, 1};
    int32_t ints[2] = {-1, 258};
    int64_t shape[1] = {5}, shape2[1] = {2};
    unsigned char *img;
    size_t len;

    (void)state;
    assert_int_equal(npy_encode(data, DT_U8, shape, 1, &img, &len), 0);
    expect_header(img, len, "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }");
    assert_int_equal(len, 128 + 5);
    assert_memory_equal(img + 128, data, 5);
    free(img);

    assert_int_equal(npy_encode(ints, DT_I32, shape2, 1, &img, &len), 0);
    expect_header(img, len, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }");
    assert_memory_equal(img + 128, "\xff\xff\xff\xff\x02\x01\x00\x00", 8);
    free(img);
}

static void test_long_shape_grows_header(void **state)
{
    float data[1] = {7};
    int64_t shape[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int64_t big[3] = {1000000000, 0, 3}; /* an empty array is valid too */
    unsigned char *img;
    size_t len, hlen;

    (void)state;
    assert_int_equal(npy_encode(data, DT_F32, shape, 8, &img, &len), 0);
    expect_header(img, len,
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1), }");
    header_of(img, len, &hlen);
    assert_int_equal(10 + hlen, 128);
    assert_int_equal(len, 128 + 4);
    free(img);

    assert_int_equal(npy_encode(data, DT_F32, big, 3, &img, &len), 0);
    expect_header(img, len,
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 0, 3), }");
    free(img);
}

static void test_write_atomic(void **state)
{
    char dir[] = "/tmp/attnjudge-npy-XXXXXX", path[128];
    float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    int64_t shape[1] = {3};
    unsigned char *img, buf[256];
    size_t len;
    struct stat st;
    struct dirent *de;
    DIR *d;
    int fd, entries = 0;
    ssize_t n;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x.npy", dir);
    assert_int_equal(npy_write(path, a, DT_F32, shape, 1), 0);
    assert_int_equal(npy_write(path, b, DT_F32, shape, 1), 0); /* replaces */

    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(npy_encode(b, DT_F32, shape, 1, &img, &len), 0);
    assert_int_equal(st.st_size, (off_t)len);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    n = read(fd, buf, sizeof buf);
    close(fd);
    assert_int_equal(n, (ssize_t)len);
    assert_memory_equal(buf, img, len);
    free(img);

    /* No temporary files left behind. */
    d = opendir(dir);
    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            entries++;
    closedir(d);
    assert_int_equal(entries, 1);

    /* A missing directory fails with errno set, not a crash. */
    snprintf(path, sizeof path, "%s/nope/x.npy", dir);
    assert_int_equal(npy_write(path, a, DT_F32, shape, 1), -1);
    snprintf(path, sizeof path, "%s/x.npy", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_rank2),
        cmocka_unit_test(test_rank1_has_trailing_comma),
        cmocka_unit_test(test_long_shape_grows_header),
        cmocka_unit_test(test_write_atomic),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
