/*
 * static — the web UI's files, served from a directory.
 */
#ifndef ATTNJUDGE_SERVER_STATIC_H
#define ATTNJUDGE_SERVER_STATIC_H

#include "server/app.h"

/* The handler of every GET outside the API: the response to GET req->path
 * ("/" means /index.html) from the directory a->web_fd (an O_PATH
 * descriptor, or -1 for none): the file as a cacheable
 * response that owns a descriptor of it, 400 invalid_path for a path that
 * is not a plain relative one, 404 not_found for anything that is not a
 * regular file beneath web_fd, or NULL when out of memory. */
handler_fn static_serve;

#endif
