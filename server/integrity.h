/*
 * integrity — instructors' tools against copying (docs/integrity.md): every
 * student's chosen source of a problem as one archive, for MOSS or JPlag,
 * and attnjudge's own report of the most similar pairs with the shared
 * fragments side by side (judge/similarity.h).
 *
 * routes.c admits instructors only; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_INTEGRITY_H
#define ATTNJUDGE_SERVER_INTEGRITY_H

#include "server/app.h"

/* GET /api/problems/{slug}/sources: a zip of <slug>-sources/<user>.c and
 * MANIFEST.csv. */
handler_fn integrity_sources;
/* GET /api/problems/{slug}/similarity[?min=0.5&limit=50]. */
handler_fn integrity_similarity;

#endif
