/*
 * catalog_json — the cached JSON bodies of the catalog's two GET routes
 * (docs/api.md): one detail and one list item per entry, for its current
 * version. The catalog's files use it; callers hold the registry's write
 * lock.
 */
#ifndef ATTNJUDGE_SERVER_CATALOG_JSON_H
#define ATTNJUDGE_SERVER_CATALOG_JSON_H

#include <stddef.h>

#include "server/registry.h"

/* The cached bodies built for the registry's current state, not yet in
 * use: detail[i] belongs to r->e[i] (NULL: keep what it has). */
struct catalog_bodies {
    char **detail, **item;
    size_t *detail_len, *item_len;
    size_t n;
};

/* Builds the bodies of the registry's state into b, changing nothing in
 * use but the entries' order (path order). 0, or -1 when out of memory
 * (b is then empty). */
int catalog_bodies_build(struct catalog *r, struct catalog_bodies *b);

/* Puts b in use (cannot fail); b is emptied. The entries must not have
 * been reordered since catalog_bodies_build. */
void catalog_bodies_publish(struct catalog *r, struct catalog_bodies *b);

/* Frees what b holds and empties it. */
void catalog_bodies_free(struct catalog_bodies *b);

/* catalog_bodies_build then catalog_bodies_publish. On failure the bodies
 * in use are left as they were. */
int catalog_rebuild(struct catalog *r);

#endif
