/*
 * zipmem — a zip archive in memory (zipmem.h).
 */
#include "judge/zipmem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "judge/errbuf.h"

/* 2024-01-01T00:00:00Z: a fixed time for every entry (byte-stable zips). */
#define ZIP_MTIME 1704067200

struct zipmem {
    struct archive *a;
    struct archive_entry *e;
    char top[256];
    unsigned char *data;
    size_t len, cap;
};

static la_ssize_t membuf_write(struct archive *a, void *arg, const void *buf, size_t n)
{
    struct zipmem *z = arg;
    if (z->len + n > z->cap) {
        size_t cap = z->cap ? z->cap : 64 * 1024;
        while (cap < z->len + n)
            cap *= 2;
        unsigned char *d = realloc(z->data, cap);
        if (!d) {
            archive_set_error(a, ENOMEM, "out of memory");
            return -1;
        }
        z->data = d;
        z->cap = cap;
    }
    memcpy(z->data + z->len, buf, n);
    z->len += n;
    return (la_ssize_t)n;
}

struct zipmem *zipmem_new(const char *top, char *err, size_t errlen)
{
    struct zipmem *z = calloc(1, sizeof *z);
    if (!z || !(z->a = archive_write_new()) || !(z->e = archive_entry_new())) {
        errbuf_set(err, errlen, "out of memory");
        zipmem_free(z);
        return NULL;
    }
    snprintf(z->top, sizeof z->top, "%s", top);
    if (archive_write_set_format_zip(z->a) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(z->a, 1) != ARCHIVE_OK ||
        archive_write_open(z->a, z, NULL, membuf_write, NULL) != ARCHIVE_OK) {
        errbuf_set(err, errlen, "zip: %s", archive_error_string(z->a));
        zipmem_free(z);
        return NULL;
    }
    return z;
}

int zipmem_add(struct zipmem *z, const char *path, const void *data, size_t len)
{
    char name[1024];
    snprintf(name, sizeof name, "%s/%s", z->top, path);
    archive_entry_clear(z->e);
    archive_entry_set_pathname(z->e, name);
    archive_entry_set_filetype(z->e, AE_IFREG);
    archive_entry_set_perm(z->e, 0644);
    archive_entry_set_size(z->e, (la_int64_t)len);
    archive_entry_set_mtime(z->e, ZIP_MTIME, 0);
    if (archive_write_header(z->a, z->e) != ARCHIVE_OK ||
        archive_write_data(z->a, data, len) != (la_ssize_t)len) {
        errno = archive_errno(z->a) ? archive_errno(z->a) : EIO;
        return -1;
    }
    return 0;
}

int zipmem_finish(struct zipmem *z, unsigned char **out, size_t *len, char *err, size_t errlen)
{
    int rc = -1;
    *out = NULL;
    *len = 0;
    if (archive_write_close(z->a) != ARCHIVE_OK) {
        errbuf_set(err, errlen, "zip: %s", archive_error_string(z->a));
    } else {
        *out = z->data;
        *len = z->len;
        z->data = NULL;
        rc = 0;
    }
    zipmem_free(z);
    return rc;
}

void zipmem_free(struct zipmem *z)
{
    if (!z)
        return;
    if (z->e)
        archive_entry_free(z->e);
    if (z->a)
        archive_write_free(z->a);
    free(z->data);
    free(z);
}
