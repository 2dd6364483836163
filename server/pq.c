/*
 * pq — libpq, loaded when the first PostgreSQL connection is opened
 * (pq.h).
 */
#include "server/pq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t pq_mu = PTHREAD_MUTEX_INITIALIZER;
static struct pq_api pq_table;
static const struct pq_api *pq_loaded;

const struct pq_api *pq_load(const char *library, char *err, size_t errlen)
{
    pthread_mutex_lock(&pq_mu);
    const struct pq_api *api = pq_loaded;
    if (api) {
        pthread_mutex_unlock(&pq_mu);
        return api;
    }
    /* RTLD_LOCAL: its symbols stay out of the global namespace, so no
     * later library binds to them by accident; never unloaded */
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(err, errlen,
                 "postgresql: cannot load %s (%s); install libpq (Debian: apt-get install libpq5)",
                 library, why ? why : "unknown error");
        pthread_mutex_unlock(&pq_mu);
        return NULL;
    }
    struct pq_api t;
    const char *missing = NULL;
#define PQ_RESOLVE(name)                                                                           \
    if (!missing && !(*(void **)&t.name = dlsym(lib, #name)))                                      \
        missing = #name;
    PQ_FUNCTIONS(PQ_RESOLVE)
#undef PQ_RESOLVE
    if (missing) {
        snprintf(err, errlen, "postgresql: %s has no %s (libpq too old?)", library, missing);
        dlclose(lib);
        pthread_mutex_unlock(&pq_mu);
        return NULL;
    }
    pq_table = t;
    pq_loaded = api = &pq_table;
    pthread_mutex_unlock(&pq_mu);
    return api;
}
