/*
 * static — the web UI's files (static.h).
 *
 * Serves the web UI's built files (web/dist) for every GET outside the API.
 * The URL path is hostile: it is accepted only as a relative path of
 * [A-Za-z0-9._-] segments, none empty or starting with a dot (no "..", no
 * hidden files), and opened beneath the web directory's descriptor with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), or O_NOFOLLOW on kernels
 * without it, so neither a symlink nor a path escapes the directory. Only
 * regular files are served; http.c sends the descriptor, and marks the
 * response cacheable ("Cache-Control: no-cache": revalidated on each use)
 * where API responses are "no-store".
 */
#include "server/static.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/lti_ctx.h"

static const char *content_type_of(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".json", "application/json; charset=utf-8"},
        {".map", "application/json; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},
        {".gif", "image/gif"},
        {".webp", "image/webp"},
        {".ico", "image/x-icon"},
        {".woff2", "font/woff2"},
        {".woff", "font/woff"},
        {".ttf", "font/ttf"},
        {".txt", "text/plain; charset=utf-8"},
        {".md", "text/markdown; charset=utf-8"},
        {".c", "text/plain; charset=utf-8"},
        {".wasm", "application/wasm"},
    };
    const char *dot = strrchr(name, '.');
    if (dot && !strchr(dot, '/'))
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (!strcasecmp(dot, types[i].ext))
                return types[i].type;
    return "application/octet-stream";
}

/* True if rel is a safe relative path: segments of [A-Za-z0-9._-], none
 * empty or starting with a dot (no "..", no hidden files). */
static bool safe_rel_path(const char *rel)
{
    size_t n = strlen(rel);
    if (n == 0 || n > 255)
        return false;
    bool seg_start = true;
    for (const char *p = rel; *p; p++) {
        char c = *p;
        if (c == '/') {
            if (seg_start)
                return false; /* empty segment */
            seg_start = true;
            continue;
        }
        if (seg_start && c == '.')
            return false;
        if (!isalnum((unsigned char)c) && c != '.' && c != '_' && c != '-')
            return false;
        seg_start = false;
    }
    return !seg_start;
}

static int open_beneath(int dirfd, const char *rel)
{
    /* openat2 resolves strictly inside the web directory, following no
     * symlink at all; older kernels fall back to openat with the path
     * already checked to contain no "..". */
    struct open_how how = {.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY,
                           .resolve =
                               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    if (fd < 0 && errno == ENOSYS)
        fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    return (int)fd;
}

struct http_response *static_serve(struct app *a, struct http_request *req, const struct caller *me)
{
    int web_fd = a->web_fd;
    const char *url_path = req->path;
    (void)me;
    const char *rel = url_path[0] == '/' ? url_path + 1 : url_path;
    char path[300];
    if (*rel == '\0')
        rel = "index.html";
    if (!safe_rel_path(rel))
        return http_error(400, "invalid_path", "invalid path");
    snprintf(path, sizeof path, "%s", rel);
    if (web_fd < 0)
        return http_error(404, "not_found", "no such file");
    int fd = open_beneath(web_fd, path);
    if (fd < 0)
        return http_error(404, "not_found", "no such file");
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return http_error(404, "not_found", "no such file");
    }
    struct http_response *r = http_response_new(200, content_type_of(path), NULL, 0);
    if (!r) {
        close(fd);
        return NULL;
    }
    r->fd = fd;
    r->cacheable = true;
    /* a page may be framed by the registered LTI platforms (docs/lti.md) */
    if (!strcmp(content_type_of(path), "text/html; charset=utf-8"))
        r->csp = lti_page_csp(a, NULL);
    return r;
}
